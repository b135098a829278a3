// Drives the Lessons part of the chart page in headless Chromium on a freshly started system: clicks every lesson's
// button in turn, waits for each experiment to end, and checks what each card shows (the verdict sentence, its badges,
// the measured ratio and range, the other checks, the chart's bars and whiskers) against the API's experiment; then a
// reload, large type at 1024×768, the console and the network. It checks that the page says what the API measured, never
// that a lesson holds on this machine.
// Usage: node lessons.mjs <gateway URL> <screenshot folder> [timeout seconds per experiment=150]
// Prints one JSON line; exits 1 on any failure.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { apiOf, checks, finish, launch, watch } from './harness.mjs';

const [gateway, outDir, timeoutArg = '150'] = process.argv.slice(2);
if (!gateway || !outDir) {
  console.error('usage: node lessons.mjs <gateway URL> <screenshot folder> [timeout seconds per experiment]');
  process.exit(2);
}
const origin = new URL(gateway).origin;
const timeout = Number(timeoutArg) * 1000;
const failures = [];
const consoleErrors = [];
const foreignRequests = [];
const screenshots = [];
const experiments = {};
const result = { ok: false, failures, consoleErrors, foreignRequests, screenshots, experiments };

const { check, same } = checks(failures);
const getJson = apiOf(origin);

mkdirSync(outDir, { recursive: true });
const browser = await launch();
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  watch(context, page, origin, { consoleErrors, foreignRequests });

  const lessons = await getJson('/api/lessons');
  const status = await getJson('/api/status');
  check(status.warmed === true, `the gateway did not warm up at start: ${status.warmup}`);

  const cardsShown = () => page.waitForFunction((n) => document.querySelectorAll('#lesson-cards .lesson').length === n, lessons.length, { timeout: 15000 });
  await page.goto(origin + '/');
  await cardsShown();
  same(await page.$$eval('#lesson-cards .lesson', (cards) => cards.map((card) => card.dataset.lesson)), lessons.map((lesson) => lesson.id), 'the lessons, in order');
  check(await page.evaluate(() => document.querySelector('main').firstElementChild.id) === 'lessons', 'the Lessons part is not the first thing in <main>');
  same(await page.textContent('#warmup'), status.warmup, 'the warm-up sentence');
  // A freshly started system: no lesson has an experiment yet.
  same(await page.$$eval('#lesson-cards .lesson', (cards) => cards.filter((card) => card.dataset.experiment).length), 0, 'cards with an experiment before any click');
  for (const lesson of lessons) {
    const card = `#lesson-${lesson.id}`;
    same(await page.textContent(`${card} .lesson-claim`), lesson.lesson, `${lesson.id}: the claim`);
    check(await page.getByRole('button', { name: `Run the experiment: ${lesson.title}`, exact: true }).count() === 1, `${lesson.id}: no button named "Run the experiment: ${lesson.title}"`);
    same(await page.getAttribute(`${card} .lesson-about a`, 'href'), lesson.link, `${lesson.id}: the link to Microsoft's guide`);
    same(await page.textContent(`${card} details p`), lesson.design, `${lesson.id}: what the experiment runs`);
  }
  // The design opens by keyboard.
  await page.focus(`#lesson-${lessons[0].id} details summary`);
  await page.keyboard.press('Enter');
  check(await page.$eval(`#lesson-${lessons[0].id} details`, (details) => details.open), 'Enter on "What the experiment runs" does not open it');

  // Every lesson in turn, as a presenter would: press its button and wait for the verdict. The first by keyboard.
  const progressSeen = {};
  for (const [index, lesson] of lessons.entries()) {
    const card = `#lesson-${lesson.id}`;
    await page.waitForFunction(() => [...document.querySelectorAll('#lesson-cards .lesson button.primary')].every((button) => !button.disabled), null, { timeout: 15000 });
    const clicked = Date.now();
    if (index === 0) {
      await page.focus(`${card} button.primary`);
      await page.keyboard.press('Enter');
    } else {
      await page.click(`${card} button.primary`);
    }
    await page.waitForFunction((selector) => document.querySelector(selector).dataset.state !== 'idle', card, { timeout: 15000 });
    // While it runs, no other lesson can start; the status line says how far it is.
    const during = await page.evaluate((selector) => ({
      state: document.querySelector(selector).dataset.state,
      othersEnabled: [...document.querySelectorAll('#lesson-cards .lesson')].filter((other) => `#${other.id}` !== selector)
        .filter((other) => !other.querySelector('button.primary').disabled).map((other) => other.dataset.lesson),
    }), card);
    if (during.state === 'running') check(during.othersEnabled.length === 0, `${lesson.id} runs while these lessons can start: ${during.othersEnabled.join(', ')}`);
    progressSeen[lesson.id] = await page.waitForFunction((selector) => {
      const text = document.querySelector(`${selector} .lesson-status`).textContent;
      return /^(Step \d+ of \d+|Running since)/.test(text) ? text : null;
    }, card, { timeout: 10000, polling: 50 }).then((handle) => handle.jsonValue(), () => null);
    await page.waitForFunction((selector) => ['done', 'error'].includes(document.querySelector(selector).dataset.state), card, { timeout, polling: 100 });
    const id = await page.getAttribute(card, 'data-experiment');
    const view = id ? await getJson(`/api/lessons/${lesson.id}/experiments/${id}`) : null;
    experiments[lesson.id] = { id, state: view?.state, ms: Date.now() - clicked, sentence: view?.verdict?.sentence, progress: progressSeen[lesson.id] };
    check(view !== null, `${lesson.id}: the card names no experiment after the click`);
    check(view && view.state !== 'Running', `${lesson.id}: the card says it ended, the API says ${view?.state}`);
    same((await getJson(`/api/lessons/${lesson.id}`)).latest?.id, id, `${lesson.id}: the lesson's latest experiment`);
  }
  check(Object.values(progressSeen).some(Boolean), 'no lesson\'s status line said how far its experiment was while it ran');

  /** What one card shows against the API's experiment. */
  const checkCard = async (lesson, view, when) => {
    const card = `#lesson-${lesson.id}`;
    const what = `${lesson.id} ${when}`;
    const shown = await page.evaluate(({ selector, chartId }) => {
      const root = document.querySelector(selector);
      const texts = (query) => [...root.querySelectorAll(query)].map((node) => node.textContent);
      const chart = Chart.getChart(chartId);
      return {
        experiment: root.dataset.experiment,
        state: root.dataset.state,
        status: root.querySelector('.lesson-status').textContent,
        verdict: root.querySelector('.lesson-verdict')?.textContent ?? null,
        badges: texts('.lesson-result > .badges .badge'),
        ratio: root.querySelector('.lesson-ratio')?.textContent ?? null,
        checks: [...root.querySelectorAll('.lesson-checks li')].map((item) => ({
          sentence: item.querySelector('.check-sentence').textContent, badges: [...item.querySelectorAll('.badge')].map((badge) => badge.textContent),
        })),
        unavailable: root.querySelector('.lesson-unavailable')?.textContent ?? '',
        error: root.querySelector('.lesson-error')?.textContent ?? null,
        chartHidden: root.querySelector('.lesson-chart').hidden,
        chart: chart && {
          arms: chart.$arms,
          data: chart.data.datasets[0]?.data,
          ranges: chart.data.datasets[0]?.ranges.map((range) => [range.min, range.max]),
          bars: chart.getDatasetMeta(0).data.map((bar) => ({ x: bar.x, height: bar.height })),
          colours: chart.data.datasets[0]?.borderColor,
        },
      };
    }, { selector: card, chartId: `chart-lesson-${lesson.id}` });
    same(shown.experiment, view.id, `${what}: the experiment`);
    same(shown.state, view.state === 'Failed' ? 'error' : 'done', `${what}: the card's state for a ${view.state} experiment`);
    const badgesOf = (claim) => (claim.measuredRatio === null ? ['not judged']
      : [claim.agrees ? 'agrees' : 'does not agree', claim.beyondNoise ? 'beyond noise' : 'within noise']);
    same(shown.verdict, view.verdict.sentence, `${what}: the verdict sentence`);
    if (view.verdict.measuredRatio !== null) {
      same(shown.badges, badgesOf(view.verdict), `${what}: the verdict's badges`);
      check(shown.ratio?.includes(`measured ${view.verdict.measuredRatio}×`), `${what}: the page gives the ratio as "${shown.ratio}", the API measured ${view.verdict.measuredRatio}`);
      if (view.verdict.range) {
        check(shown.ratio?.includes(`${view.verdict.range.min}–${view.verdict.range.max}×`), `${what}: the page gives the range as "${shown.ratio}", the API's is ${JSON.stringify(view.verdict.range)}`);
      }
      check(shown.ratio?.includes(view.verdict.expectedDirection === 'near-1' ? 'expects near 1' : 'expects above 1'), `${what}: the expected direction is not "${view.verdict.expectedDirection}": ${shown.ratio}`);
    } else {
      same(shown.badges, [], `${what}: badges for an unjudged verdict`);
    }
    same(shown.checks, view.checks.slice(1).map((claim) => ({ sentence: claim.sentence, badges: badgesOf(claim) })), `${what}: the other checks`);
    for (const [arm, reason] of Object.entries(view.unavailable ?? {})) {
      check(shown.unavailable.includes(reason), `${what}: the arm ${arm} could not run (${reason}), and the card does not say so`);
    }
    if (view.state !== 'Completed') check(shown.error?.includes(view.error ?? 'no reason given'), `${what}: the card does not show the error "${view.error}": ${shown.error}`);
    if (view.state === 'Completed') check(shown.status.startsWith('Completed'), `${what}: the status line is "${shown.status}"`);

    const arms = view.arms.filter((arm) => arm.figures[lesson.chartFigure]);
    same(shown.chartHidden, arms.length === 0, `${what}: the chart is hidden`);
    if (arms.length === 0) return;
    same(shown.chart?.arms, arms.map((arm) => arm.arm), `${what}: the chart's arms`);
    same(shown.chart?.data, arms.map((arm) => arm.figures[lesson.chartFigure].median), `${what}: the chart's bars (medians of ${lesson.chartFigure})`);
    same(shown.chart?.ranges, arms.map((arm) => [arm.figures[lesson.chartFigure].min, arm.figures[lesson.chartFigure].max]), `${what}: the chart's whiskers`);
    check(shown.chart?.bars.length === arms.length && shown.chart.bars.every((bar) => Number.isFinite(bar.x) && bar.height >= 0),
      `${what}: the chart drew ${JSON.stringify(shown.chart?.bars)}, not one bar per arm`);
    check(new Set(shown.chart?.colours).size === arms.length, `${what}: two arms share a colour: ${JSON.stringify(shown.chart?.colours)}`);
  };

  const views = {};
  for (const lesson of lessons) {
    views[lesson.id] = await getJson(`/api/lessons/${lesson.id}/experiments/${experiments[lesson.id].id}`);
    await checkCard(lesson, views[lesson.id], 'after its run');
  }
  const shootLessons = async (name) => {
    const path = join(outDir, name);
    await page.locator('#lessons').screenshot({ path });
    screenshots.push(path);
  };
  await shootLessons('lessons-1400x1000.png');

  // A reload shows every lesson's latest experiment again, from the API.
  await page.reload();
  await cardsShown();
  await page.waitForFunction(() => [...document.querySelectorAll('#lesson-cards .lesson')].every((card) => ['done', 'error'].includes(card.dataset.state)), null, { timeout: 15000 });
  for (const lesson of lessons) await checkCard(lesson, views[lesson.id], 'after a reload');

  // A projector: large type at 1024×768. The cards stack; nothing needs the page to scroll sideways.
  await page.check('#large-type');
  await page.setViewportSize({ width: 1024, height: 768 });
  const fits = () => document.documentElement.scrollWidth <= document.documentElement.clientWidth;
  if (!(await page.waitForFunction(fits, null, { timeout: 5000 }).then(() => true, () => false))) {
    failures.push(`in large type the page is ${await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)} px wider than a 1024×768 window`);
  }
  const outside = await page.evaluate(() => [...document.querySelectorAll('#lessons .lesson, #lessons canvas, #lessons .lesson-verdict, #lessons button')]
    .filter((node) => { const box = node.getBoundingClientRect(); return box.left < 0 || box.right > document.documentElement.clientWidth + 0.5; })
    .map((node) => node.id || node.className));
  check(outside.length === 0, `at 1024×768 in large type these stick out of the window: ${outside.join(', ')}`);
  const columns = await page.evaluate(() => new Set([...document.querySelectorAll('#lesson-cards .lesson')].map((card) => Math.round(card.getBoundingClientRect().left))).size);
  same(columns, 1, 'columns of lesson cards at 1024×768 in large type');
  await shootLessons('lessons-1024x768-large.png');
  await page.uncheck('#large-type');

  check(consoleErrors.length === 0, `the console showed errors: ${consoleErrors.join(' | ')}`);
  check(foreignRequests.length === 0, `requests left the gateway's origin: ${foreignRequests.join(', ')}`);
} catch (error) {
  failures.push(`the browser test stopped: ${error.stack ?? error}`);
} finally {
  await browser.close();
}

finish(result);
