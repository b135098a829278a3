// Drives the chart page in headless Chromium: runs "all" and a small protocol comparison through the page itself and
// checks every chart against the API's own figures (one plan at a time), the live panels and a reload, compare-two (and
// its warning for two plans), exports, large type, API errors, the layout at 1024×768 (also in large type), the console and
// the network.
// Usage: node dashboard.mjs <gateway URL> <screenshot folder> [count=30] [timeout seconds=120]
// Prints one JSON line; exits 1 on any failure.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { apiOf, checks, finish, launch, watch } from './harness.mjs';

const [gateway, outDir, countArg = '30', timeoutArg = '120'] = process.argv.slice(2);
if (!gateway || !outDir) {
  console.error('usage: node dashboard.mjs <gateway URL> <screenshot folder> [count] [timeout seconds]');
  process.exit(2);
}
const origin = new URL(gateway).origin;
const count = Number(countArg);
const timeout = Number(timeoutArg) * 1000;
const failures = [];
const consoleErrors = [];
const foreignRequests = [];
const screenshots = [];
const failedResponses = [];
const result = { ok: false, count, failures, consoleErrors, foreignRequests, failedResponses, screenshots };

const { check, same } = checks(failures);
const getJson = apiOf(origin);

mkdirSync(outDir, { recursive: true });
const browser = await launch();
try {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  watch(context, page, origin, { consoleErrors, foreignRequests });
  page.on('response', (response) => { if (response.status() >= 400) failedResponses.push(`${response.status()} ${response.url()}`); });

  const shoot = async (name) => {
    const path = join(outDir, name);
    await page.screenshot({ path, fullPage: true });
    screenshots.push(path);
  };

  await page.goto(origin + '/');
  await page.waitForFunction(() => document.querySelectorAll('#strategy option').length > 1, null, { timeout: 15000 });
  const strategies = (await getJson('/api/strategies')).map((strategy) => strategy.name);
  same(await page.$$eval('#strategy option', (options) => options.map((option) => option.value)), ['all', ...strategies], 'strategy choices');

  // The run, through the page: click Start and wait until the page says every chart is reloaded.
  await page.selectOption('#strategy', 'all');
  await page.fill('#count', String(count));
  await page.fill('#concurrency', '');
  await page.fill('#delay', '0');
  await page.fill('#payload', '100');
  const clicked = performance.now();
  await page.click('#start');
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, { timeout, polling: 50 });
  result.clickToDoneMs = Math.round(performance.now() - clicked);
  result.status = await page.textContent('#status');
  check(await page.getAttribute('body', 'data-state') === 'done', `the page ended in state ${await page.getAttribute('body', 'data-state')}: ${result.status}`);
  check(await page.$eval('#progress', (bar) => bar.value) === 1, 'the progress bar is not full after the suite');

  // The API's own figures: the latest completed run of each strategy, which must be this suite's.
  const latest = [];
  for (const name of strategies) {
    const run = (await getJson(`/api/runs?strategy=${name}&limit=20`)).runs.find((candidate) => candidate.state === 'Completed' && candidate.stats);
    check(run?.plan.count === count, `${name}: no completed run of count ${count} in the history`);
    if (run) latest.push(run);
  }
  const suiteIds = new Set(latest.map((run) => run.suiteId));
  check(suiteIds.size === 1 && !suiteIds.has(null), `the latest runs come from ${suiteIds.size} suites, not the one the page started`);
  result.suiteId = [...suiteIds][0];

  const chartData = (id) => page.evaluate((canvas) => {
    const { data } = Chart.getChart(canvas);
    return { labels: data.labels, datasets: data.datasets.map((dataset) => ({ label: dataset.label, data: dataset.data })) };
  }, id);

  // The charts show one plan's runs, and say which: here the suite's, the only plan there is yet.
  const latestChart = await chartData('chart-latest');
  same(latestChart.labels, latest.map((run) => run.plan.strategy), 'chart-latest strategies');
  same(latestChart.datasets.map((dataset) => dataset.data), [
    latest.map((run) => run.stats.wallTimeMs), latest.map((run) => run.stats.latency.p50Ms), latest.map((run) => run.stats.latency.p99Ms),
  ], 'chart-latest wall/p50/p99');
  const planWords = () => page.$$eval('.plan-words', (spans) => [...new Set(spans.map((span) => span.textContent))]);
  const suiteWords = await planWords();
  check(suiteWords.length === 1 && suiteWords[0].startsWith(`${count} calls, each strategy's own load`) && suiteWords[0].includes('delay 0 ms, payload 100 B'),
    `the charts' captions do not name the suite's plan: ${JSON.stringify(suiteWords)}`);
  check((await page.textContent('#plan-missing')).startsWith('Every strategy has a run'), `the plan line names strategies as missing: ${await page.textContent('#plan-missing')}`);

  const connections = await chartData('chart-connections');
  same(connections.labels, latest.map((run) => run.plan.strategy), 'chart-connections strategies');
  same(connections.datasets[0]?.data, latest.map((run) => run.stats.connectionsUsed), 'chart-connections connectionsUsed');

  const distribution = await chartData('chart-distribution');
  for (const run of latest) {
    const dataset = distribution.datasets.find((candidate) => candidate.label === run.plan.strategy);
    same(dataset?.data.map((point) => point.y), run.stats.histogram.map((bin) => bin.count), `chart-distribution ${run.plan.strategy} histogram counts`);
    check(dataset?.data.every((point, index) => point.x > run.stats.histogram[index].fromMs && point.x < run.stats.histogram[index].toMs),
      `chart-distribution ${run.plan.strategy}: a point lies outside its bin`);
  }

  // The live view: one panel per strategy, each its own chart (so its own scale), showing the run's stored series once
  // the run has ended; a reload rebuilds the same from the history.
  const livePanels = () => page.evaluate(() => [...document.querySelectorAll('.live-panel')].map((figure) => {
    const chart = Chart.getChart(figure.querySelector('canvas'));
    return {
      strategy: figure.dataset.strategy,
      x: chart?.data.datasets[0].data.map((point) => point.x),
      y: chart?.data.datasets[0].data.map((point) => point.y),
      p99: chart?.data.datasets[2].data.map((point) => point.y),
      yMax: chart?.scales.y.max,
      latencyAxis: chart?.scales.y1?.position,
    };
  }));
  const checkLivePanels = async (when) => {
    const panels = await livePanels();
    same(panels.map((panel) => panel.strategy), strategies, `live panels ${when}`);
    for (const run of latest) {
      const stored = await getJson(`/api/runs/${run.id}`);
      const panel = panels.find((candidate) => candidate.strategy === run.plan.strategy);
      const calls = stored.series?.points.map((point) => point.calls / (stored.series.intervalMs / 1000)) ?? [];
      same(panel?.y, calls, `live panel ${run.plan.strategy} calls/s ${when}`);
      same(panel?.x, stored.series?.points.map((point) => point.atMs / 1000), `live panel ${run.plan.strategy} times ${when}`);
      same(panel?.p99, stored.series?.points.filter((point) => point.p99Ms !== null).map((point) => point.p99Ms), `live panel ${run.plan.strategy} p99 ${when}`);
      const top = Math.max(...calls);
      // Its own scale: fitted to its own throughput, not to the fastest strategy's.
      check(panel?.yMax >= top && panel.yMax <= top * 2.5 + 1, `live panel ${run.plan.strategy}: scale up to ${panel?.yMax} for at most ${top} calls/s`);
      check(panel?.latencyAxis === 'right', `live panel ${run.plan.strategy} has no latency axis of its own`);
    }
  };
  await page.waitForFunction((names) => names.every((name) => document.querySelector(`.live-panel[data-strategy="${name}"] .live-info`)?.textContent.startsWith('completed')),
    strategies, { timeout: 15000 });
  await checkLivePanels('after the suite');

  // Over time: each run of the suite, from its stored time series (calls per bucket as calls/s, and its p99).
  const series = await chartData('chart-series');
  for (const run of latest) {
    const stored = await getJson(`/api/runs/${run.id}`);
    const throughput = series.datasets.find((dataset) => dataset.label === `${run.plan.strategy} calls/s`);
    check(stored.series?.points.length > 0, `${run.plan.strategy}: the stored run has no time series`);
    same(throughput?.data.map((point) => point.y), stored.series?.points.map((point) => point.calls / (stored.series.intervalMs / 1000)), `chart-series ${run.plan.strategy} calls/s`);
    same(throughput?.data.map((point) => point.x), stored.series?.points.map((point) => point.atMs / 1000), `chart-series ${run.plan.strategy} times`);
  }

  // The history chart, for the strategy shown first and after picking another.
  for (const name of [await page.$eval('#history-strategy', (select) => select.value), strategies.at(-1)]) {
    await page.selectOption('#history-strategy', name);
    await page.waitForFunction((label) => Chart.getChart('chart-history').data.datasets[0]?.label.startsWith(label), name, { timeout: 10000 });
    const runs = (await getJson(`/api/runs?strategy=${name}&limit=50`)).runs.filter((run) => run.state === 'Completed' && run.stats && run.plan.count === count).reverse();
    const history = await chartData('chart-history');
    same(history.datasets.map((dataset) => dataset.data), [
      runs.map((run) => run.stats.wallTimeMs), runs.map((run) => run.stats.latency.p50Ms), runs.map((run) => run.stats.latency.p99Ms),
    ], `chart-history ${name} wall/p50/p99`);
  }

  // The suite's report: one HTML file, linked once the suite ended, that holds every strategy.
  const reportHref = await page.$eval('#report-link', (link) => (link.hidden ? null : link.getAttribute('href')));
  same(reportHref, `/api/suites/${result.suiteId}/report`, 'the report link after the suite');
  const report = await page.evaluate(async (url) => {
    const response = await fetch(url);
    return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
  }, reportHref);
  check(report.status === 200 && report.type?.startsWith('text/html'), `the suite report answered ${report.status} ${report.type}`);
  check(strategies.every((name) => report.body.includes(name)) && !/<script[^>]+src=/i.test(report.body), 'the suite report does not hold every strategy inline');

  // A reload rebuilds the live panels from the stored series.
  await page.reload();
  await page.waitForFunction((names) => names.every((name) => document.querySelector(`.live-panel[data-strategy="${name}"] .live-info`)?.textContent.startsWith('completed')),
    strategies, { timeout: 15000 });
  await checkLivePanels('after a reload');

  // A run of another count, started through the API: the charts now show its plan alone and name the strategies that
  // have no run under it; the suite's plan is one pick away.
  const otherCount = count + 10;
  const started = await (await fetch(`${origin}/api/runs`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ strategy: strategies[0], count: otherCount }),
  })).json();
  let other = started;
  const deadline = Date.now() + timeout;
  while (other.state === 'Running' && Date.now() < deadline) {
    await new Promise((resolve) => { setTimeout(resolve, 100); });
    other = await getJson(`/api/runs/${started.id}`);
  }
  check(other.state === 'Completed', `the run of count ${otherCount} ended ${other.state}`);
  await page.reload();
  await page.waitForFunction((name) => JSON.stringify(Chart.getChart('chart-latest')?.data.labels) === JSON.stringify([name]), strategies[0], { timeout: 15000 })
    .catch(() => failures.push(`chart-latest does not show the ${otherCount}-call run alone`));
  const otherChart = await chartData('chart-latest');
  same(otherChart.labels, [strategies[0]], `chart-latest strategies under ${otherCount} calls`);
  same(otherChart.datasets.map((dataset) => dataset.data), [[other.stats.wallTimeMs], [other.stats.latency.p50Ms], [other.stats.latency.p99Ms]], `chart-latest under ${otherCount} calls`);
  const otherWords = await planWords();
  check(otherWords.length === 1 && otherWords[0].startsWith(`${otherCount} calls,`), `the captions do not name the ${otherCount}-call plan: ${JSON.stringify(otherWords)}`);
  const missingLine = await page.textContent('#plan-missing');
  check(strategies.slice(1).every((name) => missingLine.includes(name)) && !missingLine.includes(`${strategies[0]},`), `the plan line does not name the missing strategies: ${missingLine}`);
  const groupOptions = await page.$$eval('#plan-group option', (options) => options.map((option) => option.textContent));
  check(groupOptions.length === 2 && groupOptions[0].startsWith(`${otherCount} calls`) && groupOptions[1].startsWith(`${count} calls`), `the plan choices: ${JSON.stringify(groupOptions)}`);
  await page.selectOption('#plan-group', { index: 1 });
  await page.waitForFunction((n) => Chart.getChart('chart-latest').data.labels.length === n, strategies.length, { timeout: 10000 });
  same((await chartData('chart-latest')).datasets[0].data, latest.map((run) => run.stats.wallTimeMs), `chart-latest after picking the ${count}-call plan again`);
  same(await planWords(), suiteWords, `the captions after picking the ${count}-call plan again`);

  const rows = await page.$$('#history-table tbody tr');
  check(rows.length >= strategies.length, `the history table has ${rows.length} rows`);
  await shoot('dashboard-after-run.png');

  // Compare two: the two newest runs, by keyboard (Space ticks a checkbox, Enter presses the button).
  const boxes = await page.$$('#history-table tbody input[type=checkbox]');
  for (const box of boxes.slice(0, 2)) {
    await box.focus();
    await page.keyboard.press('Space');
  }
  await page.focus('#compare');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#comparison table', { timeout: 10000 });
  const [newer, older] = (await getJson('/api/runs?limit=2')).runs;
  const expected = await getJson(`/api/runs/compare?baseline=${older.id}&candidate=${newer.id}`);
  const shownRatios = await page.$$eval('#comparison tbody td.ratio', (cells) => cells.map((cell) => cell.textContent));
  same(shownRatios.length, expected.metrics.length, 'comparison rows');
  expected.metrics.forEach((metric, index) => check(
    metric.ratio === null ? shownRatios[index] === '—' : shownRatios[index]?.startsWith(metric.ratio.toFixed(metric.ratio < 10 ? 2 : 1)),
    `comparison ${metric.metric}: the page shows ${shownRatios[index]}, the API's ratio is ${metric.ratio}`));
  // The two newest runs are of different counts: the comparison says so, names the difference, and calls neither better.
  const warning = await page.textContent('#comparison .plan-warning').catch(() => '');
  check(warning.includes(`count ${count} vs ${otherCount}`), `the comparison of two plans does not name the difference: ${warning}`);
  check(shownRatios.every((text) => !/better|worse/.test(text)), `the comparison of two plans calls one better: ${shownRatios.join(', ')}`);
  await page.$eval('#comparison', (region) => region.scrollIntoView());
  await shoot('dashboard-comparison.png');
  // Two runs of the suite: the same plan, no warning, and better or worse again.
  for (const box of await page.$$('#history-table tbody input[type=checkbox]:checked')) await box.uncheck();
  await page.check('#history-table tbody tr:nth-child(2) input[type=checkbox]');
  await page.check('#history-table tbody tr:nth-child(3) input[type=checkbox]');
  await page.click('#compare');
  await page.waitForFunction(() => document.querySelector('#comparison')?.dataset.differences === '' && !document.querySelector('#comparison .plan-warning'), null, { timeout: 10000 })
    .catch(() => failures.push('two runs of one plan are compared with a warning'));
  check(/better|worse/.test(await page.textContent('#comparison tbody')), 'two runs of one plan are compared without better or worse');

  // Export: both links answer the right type and a file name, and a click downloads.
  const links = await page.$$eval('#history-table tbody tr:first-child a', (anchors) => anchors.map((anchor) => anchor.getAttribute('href')));
  for (const [href, type] of [[links[0], 'text/csv'], [links[1], 'application/json']]) {
    const answer = await page.evaluate(async (url) => {
      const response = await fetch(url);
      return { status: response.status, type: response.headers.get('content-type'), disposition: response.headers.get('content-disposition'), body: await response.text() };
    }, href);
    check(answer.status === 200 && answer.type?.startsWith(type), `export ${href} answered ${answer.status} ${answer.type}`);
    check(answer.disposition?.startsWith('attachment;') && answer.disposition.includes(newer.id), `export ${href} has no attachment file name: ${answer.disposition}`);
    check(type === 'text/csv' ? answer.body.startsWith('section,figure,value') : JSON.parse(answer.body).id === newer.id, `export ${href} body is wrong`);
  }
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 10000 }), page.click('#history-table tbody tr:first-child a >> nth=0')]);
  check(download.suggestedFilename() === `run-${newer.plan.strategy}-${newer.id}.csv`, `the CSV link downloads ${download.suggestedFilename()}`);

  // A run's "Show" button draws that one run over time, with its p50 and max too.
  await page.click('#history-table tbody tr:first-child button');
  await page.waitForFunction((label) => Chart.getChart('chart-series').data.datasets.length === 4
    && Chart.getChart('chart-series').data.datasets[0].label === label, `${newer.plan.strategy} calls/s`, { timeout: 10000 });

  // The load settings reach the API: an open load at a rate with a threshold, and the verdict comes back.
  await page.selectOption('#strategy', strategies[0]);
  await page.selectOption('#load', 'open');
  check(await page.isVisible('#rate') && !(await page.isVisible('#stages')), 'the open load does not show rate alone');
  await page.fill('#count', '');
  await page.fill('#duration', '1');
  await page.fill('#rate', '50');
  await page.fill('#thresholds', 'p99 < 10s; errorRate < 1%');
  await page.click('#start');
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, { timeout, polling: 50 });
  const openRun = (await getJson(`/api/runs?strategy=${strategies[0]}&limit=1`)).runs[0];
  check(openRun.plan.load === 'open' && openRun.plan.rate === 50 && openRun.plan.duration === 1, `the page's open load did not reach the API: ${JSON.stringify(openRun.plan)}`);
  check(openRun.verdict?.passed === true && openRun.verdict.thresholds.length === 2, `the open run's verdict: ${JSON.stringify(openRun.verdict)}`);
  check((await page.textContent('#status')).includes('Thresholds: 2 of 2 held'), `the status line does not give the verdict: ${await page.textContent('#status')}`);
  check(await page.textContent('#history-table tbody tr:first-child .verdict-passed') === 'passed', 'the history table does not show the verdict');
  await page.selectOption('#load', '');
  await page.fill('#thresholds', '');
  await page.fill('#duration', '');

  // Large type: scales the page and the charts, and survives a reload.
  await page.check('#large-type');
  check(await page.evaluate(() => document.documentElement.classList.contains('large') && Chart.defaults.font.size > 13), 'large type did not scale the page and charts');
  await page.reload();
  await page.waitForFunction(() => Chart.getChart('chart-latest')?.data.datasets.length > 0, null, { timeout: 15000 });
  check(await page.isChecked('#large-type'), 'large type did not persist across a reload');
  await shoot('dashboard-large-type.png');

  // A projector: 1024×768 in large type. The page does not scroll sideways; the tables scroll in their own boxes with
  // their key columns in sight.
  await page.setViewportSize({ width: 1024, height: 768 });
  const fitsPage = () => document.documentElement.scrollWidth <= document.documentElement.clientWidth;
  if (!(await page.waitForFunction(fitsPage, null, { timeout: 5000 }).then(() => true, () => false))) {
    failures.push(`in large type the page is ${await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)} px wider than a 1024×768 window`);
  }
  for (const box of await page.$$('#history-table tbody input[type=checkbox]:checked')) await box.uncheck();
  await page.check('#history-table tbody tr:nth-child(1) input[type=checkbox]');
  await page.check('#history-table tbody tr:nth-child(2) input[type=checkbox]');
  await page.click('#compare');
  await page.waitForSelector('#comparison table', { timeout: 10000 });
  const outside = await page.evaluate(() => {
    const columns = [['#history-table', ['Pick', 'Strategy', 'State', 'Wall ms']], ['#comparison table', ['Figure', 'Ratio', 'Baseline (older)', 'Candidate (newer)']]];
    return columns.flatMap(([table, names]) => names.filter((name) => {
      const cell = [...document.querySelectorAll(`${table} thead th`)].find((th) => th.textContent.trim() === name);
      const box = cell?.getBoundingClientRect();
      return !box || box.width === 0 || box.left < 0 || box.right > document.documentElement.clientWidth;
    }).map((name) => `${table} ${name}`));
  });
  check(outside.length === 0, `at 1024×768 in large type these key columns are cut off: ${outside.join(', ')}`);
  check(await page.evaluate(fitsPage), 'the comparison in large type makes the page wider than a 1024×768 window');
  await shoot('dashboard-1024-large.png');
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.uncheck('#large-type');

  // The Protocols part: a small comparison started from the page, its charts and sentence held against the API's.
  const contenders = ['grpc-h2-cleartext', 'rest-stj-h2-cleartext', 'rest-newtonsoft-h1-tls'];
  await page.selectOption('#workload', 'small-ints');
  same(await page.$$eval('#contender-grid input:checked', (boxes) => boxes.length), 12, 'contenders ticked by default for small-ints');
  await page.click('#contenders-none');
  for (const name of contenders) await page.check(`#contender-grid input[value="${name}"]`);
  await page.fill('#protocol-count', String(count));
  await page.fill('#repetitions', '2');
  await page.click('#protocol-start');
  await page.waitForFunction(() => ['done', 'error'].includes(document.getElementById('protocols').dataset.state), null, { timeout, polling: 50 });
  const comparison = (await getJson('/api/comparisons?limit=1')).comparisons[0];
  result.comparisonId = comparison?.id;
  check(comparison?.state === 'Completed', `the comparison ended ${comparison?.state}: ${await page.textContent('#protocol-status')}`);
  same(comparison?.contenders, contenders, 'the comparison\'s contenders');
  same(comparison?.plan.count, count, 'the comparison\'s count');
  same(comparison?.repetitions, 2, 'the comparison\'s repetitions');
  same(await page.textContent('#protocol-sentence'), comparison?.sentence, 'the comparison\'s sentence');
  const protocolCharts = ['chart-protocol-time', 'chart-protocol-throughput', 'chart-protocol-bytes', 'chart-protocol-allocations'];
  for (const id of protocolCharts) {
    const drawn = await page.evaluate((canvas) => {
      const chart = Chart.getChart(canvas);
      return {
        contenders: chart.$contenders?.map((contender) => contender.name),
        datasets: chart.data.datasets.map((dataset, index) => ({
          figure: dataset.figure,
          data: dataset.data,
          ranges: dataset.ranges.map((range) => [range.min, range.max]),
          bars: chart.getDatasetMeta(index).data.map((bar) => ({ x: bar.x, height: bar.height })),
        })),
      };
    }, id);
    same(drawn.contenders, contenders, `${id} contenders`);
    check(drawn.datasets.length > 0, `${id} drew no figure`);
    for (const dataset of drawn.datasets) {
      check(dataset.bars.length === contenders.length && dataset.bars.every((bar) => Number.isFinite(bar.x) && bar.height > 0),
        `${id} ${dataset.figure}: ${JSON.stringify(dataset.bars)} is not one drawn bar per contender`);
      same(dataset.data, comparison?.summary.map((summary) => summary.figures[dataset.figure].median), `${id} ${dataset.figure} medians`);
      same(dataset.ranges, comparison?.summary.map((summary) => [summary.figures[dataset.figure].min, summary.figures[dataset.figure].max]), `${id} ${dataset.figure} whiskers`);
    }
  }
  same(await page.$$eval('#protocol-table tbody tr', (rows) => rows.length), contenders.length, 'rows of the comparison table');
  // Chart.js resizes its canvases when it sees the window change, so the page may take a frame or two to fit.
  await page.setViewportSize({ width: 1024, height: 768 });
  const fits = () => document.documentElement.scrollWidth <= document.documentElement.clientWidth;
  if (!(await page.waitForFunction(fits, null, { timeout: 5000 }).then(() => true, () => false))) {
    failures.push(`the page is ${await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)} px wider than a 1024×768 window`);
  }
  await page.setViewportSize({ width: 1400, height: 1000 });
  const protocolsShot = join(outDir, 'dashboard-protocols.png');
  await page.locator('#protocols').screenshot({ path: protocolsShot });
  screenshots.push(protocolsShot);
  await page.setViewportSize({ width: 1440, height: 900 });
  // After a reload the part shows the latest comparison again, from the API.
  await page.reload();
  await page.waitForFunction(() => document.getElementById('protocols').dataset.state === 'done'
    && Chart.getChart('chart-protocol-time')?.data.datasets.length > 0, null, { timeout: 15000 });
  same(await page.textContent('#protocol-sentence'), comparison?.sentence, 'the comparison\'s sentence after a reload');
  same(await page.$eval('#workload', (select) => select.value), 'small-ints', 'the workload after a reload');

  // An API error is shown as its sentence, in the alert region. The browser logs the 400 itself; that one is expected.
  const errorsBefore = consoleErrors.length;
  await page.fill('#count', '999999999');
  await page.click('#start');
  await page.waitForSelector('#errors:not([hidden])', { timeout: 10000 });
  const alert = await page.textContent('#errors');
  check(/count/i.test(alert) && alert.includes('400'), `the API error was not shown readably: ${alert}`);
  check(await page.getAttribute('body', 'data-state') === 'error', 'the page state is not error after a refused run');
  consoleErrors.splice(errorsBefore, consoleErrors.length - errorsBefore,
    ...consoleErrors.slice(errorsBefore).filter((text) => !text.includes('status of 400')));

  // Swagger UI still works under the policy, and links to the page.
  await page.goto(origin + '/swagger/index.html');
  await page.waitForSelector('.swagger-ui .info', { timeout: 15000 });
  check(await page.$('.swagger-ui .info a[href="/"]') !== null, 'Swagger does not link to the chart page');

  check(consoleErrors.length === 0, `the console showed errors: ${consoleErrors.join(' | ')}`);
  check(foreignRequests.length === 0, `requests left the gateway's origin: ${foreignRequests.join(', ')}`);
} catch (error) {
  failures.push(`the browser test stopped: ${error.stack ?? error}`);
} finally {
  await browser.close();
}

finish(result);
