// Drives the "Check my client" panel in headless Chromium: picks a target's unary method in the run panel, runs a checkup
// with a small budget from the page, follows it (the step it measures, the button off and Cancel on while it runs), and
// checks every card against the API's record: in its order, an outcome badge and the advice in words, the measured
// sentence, ratio, range and noise, the saving, the C# in a code block with a Copy button for each advice item, the runs'
// links; the sweep's chart; the latest checkup again after a reload; nothing wider than the window at 1280×720, 1920×1080
// and 400 px, and at 1280×720 in large type; the console and the network. It checks that the page says what the API
// measured, never what the checkup should find.
// Usage: node checkup.mjs <gateway URL> <screenshot folder> <target> [budget seconds=20] [timeout seconds=240]
// Prints one JSON line; exits 1 on any failure.
import { join } from 'node:path';
import { apiOf, finish, session } from './harness.mjs';

const [gateway, outDir, targetName, budgetArg = '20', timeoutArg = '240'] = process.argv.slice(2);
if (!gateway || !outDir || !targetName) {
  console.error('usage: node checkup.mjs <gateway URL> <screenshot folder> <target> [budget seconds] [timeout seconds]');
  process.exit(2);
}
const origin = new URL(gateway).origin;
const budget = Number(budgetArg);
const timeout = Number(timeoutArg) * 1000;
const getJson = apiOf(origin);
const { result, failures, check, same, browser, page } = await session(origin, outDir, { budget },
  { viewport: { width: 1280, height: 720 }, permissions: ['clipboard-read', 'clipboard-write'] });
const outcomeWords = { advice: 'advice', 'no-saving': 'no measurable saving', 'not-applicable': 'does not apply', 'not-measured': 'not measured' };

const shootPanel = async (name) => {
  const path = join(outDir, name);
  await page.locator('#checkup').screenshot({ path });
  result.screenshots.push(path);
};

/** What the panel shows: each card's parts, the status, the sweep chart's data. */
const shown = () => page.evaluate(() => {
  const root = document.getElementById('checkup');
  const text = (node, query) => node.querySelector(query)?.textContent ?? null;
  const chart = Chart.getChart('chart-checkup-sweep');
  return {
    checkup: root.dataset.checkup,
    state: root.dataset.state,
    status: document.getElementById('checkup-status').textContent,
    caveats: [...document.querySelectorAll('#checkup-caveats li')].map((item) => item.textContent),
    cards: [...document.querySelectorAll('#checkup-items .checkup-item')].map((card) => ({
      id: card.dataset.item,
      title: card.querySelector('h3').textContent,
      badge: text(card, 'h3 .badge'),
      advice: text(card, '.checkup-advice'),
      measured: text(card, '.checkup-measured'),
      ratio: text(card, '.checkup-ratio'),
      saving: text(card, '.checkup-saving'),
      code: text(card, 'pre > code'),
      copy: card.querySelectorAll('.checkup-code button').length,
      runs: [...card.querySelectorAll('.checkup-runs a')].map((link) => link.getAttribute('href')),
      // Markup the server's text could have made: the card's own elements are these and no others.
      foreign: [...card.querySelectorAll('*')].map((node) => node.tagName.toLowerCase())
        .filter((tag) => !['h3', 'span', 'p', 'strong', 'div', 'pre', 'code', 'button', 'a'].includes(tag)),
    })),
    sweepHidden: document.getElementById('checkup-sweep').hidden,
    sweep: chart && { labels: chart.data.labels, datasets: chart.data.datasets.map((dataset) => ({ label: dataset.label, data: dataset.data })) },
  };
});

/** Every card against the API's record. */
const checkCards = (view, record, when) => {
  same(view.checkup, record.id, `${when}: the checkup the panel shows`);
  same(view.cards.map((card) => card.id), record.items.map((item) => item.id), `${when}: the items, in the record's order`);
  same(view.caveats, record.caveats, `${when}: the caveats`);
  for (const [index, item] of record.items.entries()) {
    const card = view.cards[index];
    if (!card) continue;
    const what = `${when}, item ${item.id}`;
    check(card.title.includes(item.title), `${what}: the title is "${card.title}", the API's "${item.title}"`);
    same(card.badge, outcomeWords[item.outcome], `${what}: the outcome badge`);
    check(Boolean(card.advice?.trim()), `${what}: no advice sentence`);
    same(card.advice, item.advice, `${what}: the advice`);
    same(card.foreign, [], `${what}: elements the page did not make`);
    if (item.measured) {
      same(card.measured, item.measured.sentence, `${what}: the measured sentence`);
      check(card.ratio?.includes(`${item.measured.other} against ${item.measured.baseline}`), `${what}: the arms read "${card.ratio}"`);
      if (item.measured.ratio !== null) {
        check(card.ratio?.includes(`${item.measured.ratio}×`), `${what}: the ratio reads "${card.ratio}", the API's is ${item.measured.ratio}`);
        if (item.measured.range) check(card.ratio?.includes(`${item.measured.range.min}–${item.measured.range.max}×`), `${what}: the range reads "${card.ratio}"`);
        check(card.ratio?.endsWith(item.measured.beyondNoise ? 'beyond noise' : 'within noise'), `${what}: the noise reads "${card.ratio}", beyondNoise is ${item.measured.beyondNoise}`);
      }
    }
    if (item.saving) check(card.saving?.includes(item.saving.sentence), `${what}: the saving reads "${card.saving}"`);
    if (item.outcome === 'advice') {
      check(Boolean(item.code), `${what}: the API gives advice without code`);
      same(card.code, item.code, `${what}: the code block`);
      same(card.copy, 1, `${what}: Copy buttons`);
    }
    same(card.runs, item.runs.map((id) => `/api/runs/${id}`), `${what}: the runs' links`);
  }
  const steps = record.sweep?.steps ?? [];
  same(view.sweepHidden, steps.length === 0, `${when}: the sweep's chart is hidden`);
  if (steps.length) {
    same(view.sweep?.labels, steps.map((step) => step.inFlight), `${when}: the sweep's calls in flight`);
    same(view.sweep?.datasets[0].data, steps.map((step) => step.callsPerSecond), `${when}: the sweep's calls/s`);
    same(view.sweep?.datasets[1].data, steps.map((step) => step.p99Ms), `${when}: the sweep's p99`);
    if (record.sweep.knee) check(view.sweep?.datasets.some((dataset) => dataset.label.startsWith(`knee: ${record.sweep.knee.inFlight} in flight`)), `${when}: the knee is not marked on the sweep`);
  }
};

/** Nothing sticks out of a window of this size: the page, the cards, the code blocks, the chart, the buttons. */
const fitsAt = async (width, height) => {
  await page.setViewportSize({ width, height });
  const fits = () => document.documentElement.scrollWidth <= document.documentElement.clientWidth;
  if (!(await page.waitForFunction(fits, null, { timeout: 5000 }).then(() => true, () => false))) {
    failures.push(`at ${width}×${height} the page is ${await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)} px wider than the window`);
  }
  const outside = await page.evaluate(() => [...document.querySelectorAll('#checkup .checkup-item, #checkup pre, #checkup canvas, #checkup button, #checkup input, #checkup-where, #checkup-status')]
    .filter((node) => { const box = node.getBoundingClientRect(); return box.width > 0 && (box.left < 0 || box.right > document.documentElement.clientWidth + 0.5); })
    .map((node) => node.id || node.className || node.tagName));
  check(outside.length === 0, `at ${width}×${height} these stick out of the window: ${outside.join(', ')}`);
};

try {
  const posts = [];
  page.on('request', (request) => { if (request.method() === 'POST') posts.push({ path: new URL(request.url()).pathname, body: request.postData() }); });
  await page.goto(origin + '/');
  await page.waitForFunction(() => document.querySelectorAll('#target option').length > 0 && !document.getElementById('checkup-run').disabled, null, { timeout: 60000 });
  same(await page.inputValue('#checkup-budget'), '120', 'the budget field\'s default');
  same(await page.inputValue('#checkup-in-flight'), '1', 'the in-flight field\'s default');

  // The method, picked in the run panel; the panel says where it will run.
  const target = (await getJson('/api/targets')).find((candidate) => candidate.name === targetName);
  check(target?.reachable, `${targetName} is not reachable: ${target?.problem}`);
  const unary = target.methods.find((method) => method.kind === 'unary');
  await page.selectOption('#target', targetName);
  await page.selectOption('#call', unary.call);
  result.where = await page.textContent('#checkup-where');
  check(result.where.includes(`on ${targetName}'s ${unary.call}`), `the panel does not say it checks ${targetName}'s ${unary.call}: ${result.where}`);

  // A budget the gateway refuses: its sentence in the panel, nothing started.
  await page.fill('#checkup-budget', '0');
  await page.click('#checkup-run');
  await page.waitForFunction(() => /^Not started: /.test(document.getElementById('checkup-status').textContent), null, { timeout: 10000 });
  result.refusal = await page.textContent('#checkup-status');
  check(!/answered 400/.test(result.refusal), `the refusal is not the problem's sentence alone: ${result.refusal}`);
  same(await page.getAttribute('#checkup', 'data-state'), 'error', 'the panel\'s state after a refusal');

  // The checkup, from the page: Run off and Cancel on while it runs, the step it measures in the status line.
  await page.fill('#checkup-budget', String(budget));
  await page.fill('#checkup-in-flight', '1');
  const clicked = Date.now();
  await page.click('#checkup-run');
  await page.waitForFunction(() => !/^Not started/.test(document.getElementById('checkup-status').textContent), null, { timeout: 15000 });
  const body = JSON.parse(posts.filter((post) => post.path === '/api/checkups').at(-1)?.body ?? '{}');
  same([body.target, body.call, body.budgetSeconds, body.inFlight], [targetName, unary.call, budget, 1], 'the posted target, call, budget and in flight');
  check(typeof body.data === 'string' && body.data.length > 0, `the request's data was not posted: ${JSON.stringify(body)}`);
  const during = await page.evaluate(() => ({
    state: document.getElementById('checkup').dataset.state,
    run: document.getElementById('checkup-run').disabled,
    cancel: document.getElementById('checkup-cancel').disabled,
  }));
  if (during.state === 'running') same([during.run, during.cancel], [true, false], 'Run disabled and Cancel enabled while it runs');
  // Cards appear while it runs, as items are judged: the most seen before it ended.
  result.step = await page.waitForFunction(() => {
    const status = document.getElementById('checkup-status').textContent;
    return /\d+ of \d+ s\.$/.test(status) && !status.startsWith('Starting') ? status : null;
  }, null, { timeout: 30000, polling: 100 }).then((handle) => handle.jsonValue(), () => null);
  check(result.step !== null, 'the status line never said what the checkup measured while it ran');
  result.cardsWhileRunning = 0;
  await page.waitForFunction(() => {
    const root = document.getElementById('checkup');
    if (root.dataset.state === 'running') window.cardsWhileRunning = Math.max(window.cardsWhileRunning ?? 0, root.querySelectorAll('.checkup-item').length);
    return ['done', 'error'].includes(root.dataset.state);
  }, null, { timeout, polling: 100 });
  result.cardsWhileRunning = await page.evaluate(() => window.cardsWhileRunning ?? 0);
  result.ms = Date.now() - clicked;

  const id = await page.getAttribute('#checkup', 'data-checkup');
  const record = (await getJson(`/api/checkups/${id}`)).checkup;
  result.checkup = { id, state: record.state, items: record.items.map((item) => `${item.id}: ${item.outcome}`), knee: record.sweep?.knee?.inFlight ?? null };
  check(record.state === 'Completed', `the checkup ended ${record.state}: ${record.error}`);
  check((await page.textContent('#checkup-status')).startsWith('Completed'), `the status line says "${await page.textContent('#checkup-status')}"`);
  check(record.items.length > 0, 'the checkup judged no item');
  const after = await shown();
  checkCards(after, record, 'after the run');

  // Copy puts the code on the clipboard.
  const advised = record.items.find((item) => item.outcome === 'advice');
  if (advised) {
    await page.click(`#checkup-${advised.id} .checkup-code button`);
    same(await page.evaluate(() => navigator.clipboard.readText()), advised.code, `the clipboard after Copy on ${advised.id}`);
  }

  await fitsAt(1280, 720);
  await shootPanel('checkup-1280x720.png');
  await fitsAt(1920, 1080);
  await shootPanel('checkup-1920x1080.png');
  await fitsAt(400, 800);
  await shootPanel('checkup-400.png');
  // A projector in large type.
  await page.check('#large-type');
  await fitsAt(1280, 720);
  await shootPanel('checkup-1280x720-large.png');
  await page.uncheck('#large-type');
  await page.setViewportSize({ width: 1280, height: 720 });

  // A reload shows the latest checkup again, from GET /api/checkups?limit=1.
  await page.reload();
  await page.waitForFunction((checkup) => document.getElementById('checkup').dataset.checkup === checkup && ['done', 'error'].includes(document.getElementById('checkup').dataset.state), id, { timeout: 30000 });
  checkCards(await shown(), record, 'after a reload');

  check(result.consoleErrors.every((error) => /status of 400/.test(error)), `the console showed errors: ${result.consoleErrors.join(' | ')}`);
  check(result.foreignRequests.length === 0, `requests left the gateway's origin: ${result.foreignRequests.join(', ')}`);
} catch (error) {
  failures.push(`the browser test stopped: ${error.stack ?? error}`);
} finally {
  await browser.close();
}

finish(result);
