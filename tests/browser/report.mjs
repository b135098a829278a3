// Opens an HTML report from its file in headless Chromium with the network cut off, and checks that it draws every
// chart from its own inlined data, logs no error, breaks no policy, runs nothing the data smuggled in, asks for nothing
// outside the file, lays out for print, and reads without JavaScript.
// Usage: node report.mjs <report file> <screenshot folder>
// Prints one JSON line; exits 1 on any failure.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { finish, launch } from './harness.mjs';

const [file, outDir] = process.argv.slice(2);
if (!file || !outDir) {
  console.error('usage: node report.mjs <report file> <screenshot folder>');
  process.exit(2);
}
const url = pathToFileURL(resolve(file)).href;
const failures = [];
const consoleErrors = [];
const foreignRequests = [];
const dialogs = [];
const screenshots = [];
const result = { ok: false, url, failures, consoleErrors, foreignRequests, dialogs, screenshots };
const check = (condition, message) => { if (!condition) failures.push(message); };

mkdirSync(outDir, { recursive: true });
const browser = await launch();

/** A context with no network: offline, every routed request refused, and every request but the file itself noted. */
async function offlineContext(options = {}) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, offline: true, ...options });
  await context.route('**/*', (route) => (route.request().url() === url ? route.continue() : route.abort('internetdisconnected')));
  context.on('request', (request) => { if (request.url() !== url) foreignRequests.push(request.url()); });
  const page = await context.newPage();
  page.on('console', (message) => { if (message.type() === 'error') consoleErrors.push(message.text()); });
  page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.message}`));
  page.on('dialog', (dialog) => { dialogs.push(dialog.message()); dialog.dismiss().catch(() => {}); });
  // Init scripts run outside the page's policy, so this listener sees every violation the policy reports.
  await page.addInitScript(() => {
    window.violations = [];
    document.addEventListener('securitypolicyviolation', (event) => window.violations.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  return { context, page };
}

const shoot = async (page, name) => {
  const path = join(outDir, name);
  await page.screenshot({ path, fullPage: true });
  screenshots.push(path);
};

try {
  const { page } = await offlineContext();
  await page.goto(url, { waitUntil: 'load' });
  check(await page.evaluate(() => document.documentElement.classList.contains('js')), 'the report script did not start (no "js" class on <html>)');

  // Every canvas holds a Chart.js chart with data, and paint on it.
  result.charts = await page.$$eval('canvas[data-chart]', (canvases) => canvases.map((canvas) => {
    const chart = Chart.getChart(canvas);
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let painted = 0;
    for (let alpha = 3; alpha < data.length; alpha += 4) if (data[alpha] !== 0) painted += 1;
    return {
      chart: canvas.dataset.chart,
      run: canvas.dataset.run === undefined ? null : Number(canvas.dataset.run),
      drawn: Boolean(chart),
      points: chart ? chart.data.datasets.reduce((sum, dataset) => sum + dataset.data.length, 0) : 0,
      paintedShare: painted / (canvas.width * canvas.height),
    };
  }));
  check(result.charts.length > 0, 'the report has no chart');
  for (const chart of result.charts) {
    const name = `${chart.chart}${chart.run === null ? '' : ` of run ${chart.run + 1}`}`;
    check(chart.drawn, `${name}: no Chart.js chart on its canvas`);
    check(chart.points > 0, `${name}: the chart has no data`);
    check(chart.paintedShare > 0.01, `${name}: the canvas is blank (${(chart.paintedShare * 100).toFixed(2)} % painted)`);
  }
  check(await page.evaluate(() => Object.keys(Chart.instances).length) === result.charts.length, 'there are more or fewer Chart instances than canvases');

  // The charts show the inlined data: histogram counts, rates per second (not per bucket), the suite's figures, one colour per strategy.
  result.dataChecks = await page.evaluate(() => {
    const data = JSON.parse(document.getElementById('report-data').textContent);
    const wrong = [];
    const same = (actual, expected, what) => { if (JSON.stringify(actual) !== JSON.stringify(expected)) wrong.push(`${what}: chart ${JSON.stringify(actual)}, data ${JSON.stringify(expected)}`); };
    const chartOf = (name, run) => Chart.getChart(document.querySelector(`canvas[data-chart="${name}"]${run === undefined ? '' : `[data-run="${run}"]`}`));
    const toRgb = (hex) => `rgb(${[1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16)).join(', ')})`;
    data.runs.forEach((run, index) => {
      const colour = data.colours[run.plan.strategy];
      const swatch = document.querySelector(`#run-${index + 1} h2 .swatch`);
      same(getComputedStyle(swatch).backgroundColor, toRgb(colour), `run ${index + 1} swatch colour`);
      if (!run.stats) return;
      const histogram = chartOf('histogram', index).data.datasets[0];
      same(histogram.data.map((point) => point.y), run.stats.histogram.map((bin) => bin.count), `run ${index + 1} histogram counts`);
      same(histogram.borderColor, colour, `run ${index + 1} histogram colour`);
      if (!run.series?.points.length) return;
      const [calls, errors] = chartOf('rate', index).data.datasets;
      const seconds = run.series.intervalMs / 1000;
      same(calls.data.map((point) => point.y), run.series.points.map((point) => point.calls / seconds), `run ${index + 1} calls/s`);
      same(errors.data.map((point) => point.y), run.series.points.map((point) => point.errors / seconds), `run ${index + 1} errors/s`);
      same(calls.data.map((point) => point.x), run.series.points.map((point) => point.atMs / 1000), `run ${index + 1} bucket times`);
      same(chartOf('latency', index).data.datasets.map((dataset) => dataset.data.map((point) => point.y)),
        ['p50Ms', 'p90Ms', 'p99Ms', 'maxMs'].map((key) => run.series.points.map((point) => point[key])), `run ${index + 1} latency over time`);
    });
    if (data.suite) {
      const measured = data.runs.filter((run) => run.stats);
      for (const [name, pick] of [['suite-wall', (s) => s.wallTimeMs], ['suite-throughput', (s) => s.throughputPerSecond], ['suite-p50', (s) => s.latency?.p50Ms ?? null], ['suite-p99', (s) => s.latency?.p99Ms ?? null]]) {
        const chart = chartOf(name);
        same(chart.data.labels, measured.map((run) => run.plan.strategy), `${name} strategies`);
        same(chart.data.datasets[0].data, measured.map((run) => pick(run.stats)), `${name} figures`);
        same(chart.data.datasets[0].backgroundColor, measured.map((run) => data.colours[run.plan.strategy]), `${name} colours`);
      }
      same(chartOf('suite-distribution').data.datasets.map((dataset) => dataset.label), measured.map((run) => run.plan.strategy), 'suite-distribution strategies');
    }
    return wrong;
  });
  result.dataChecks.forEach((message) => failures.push(message));

  // Text from the data stays text: nothing it held became an element, and errors read as they were written.
  result.errorTexts = await page.$$eval('.error', (errors) => errors.map((error) => error.textContent));
  check(await page.$$eval('img, svg, iframe, object, embed', (found) => found.length) === 0, 'the data became elements');
  result.violations = await page.evaluate(() => window.violations);
  check(result.violations.length === 0, `the policy was violated: ${result.violations.join(' | ')}`);
  await shoot(page, 'report.png');

  // Large type scales the page and the charts' own text.
  await page.check('#large-type');
  check(await page.evaluate(() => document.documentElement.classList.contains('large') && Chart.defaults.font.size > 14), 'large type did not scale the page and charts');
  await page.uncheck('#large-type');

  // Print: the moment print media applies, every chart has been redrawn at its printed box's size. This listener is
  // added after the report's, so it sees what the printout gets; Chart.js's own resize observer would come too late.
  await page.evaluate(() => window.matchMedia('print').addEventListener('change', (event) => {
    if (!event.matches) return;
    window.printMisfits = [...document.querySelectorAll('canvas[data-chart]')]
      .map((canvas) => ({ chart: Chart.getChart(canvas), box: canvas.parentElement.getBoundingClientRect() }))
      .filter(({ chart, box }) => Math.abs(chart.width - box.width) > 2 || Math.abs(chart.height - box.height) > 2)
      .map(({ chart, box }) => `${chart.canvas.dataset.chart} ${chart.width}x${chart.height} in ${box.width}x${box.height}`);
  }));
  await page.pdf({ path: join(outDir, 'report.pdf'), format: 'A4', printBackground: true });
  const misfits = await page.evaluate(() => window.printMisfits);
  check(Array.isArray(misfits), 'printing never switched the page to print media');
  check(misfits?.length === 0, `charts do not fit their printed boxes: ${misfits?.join(', ')}`);
  await page.emulateMedia({ media: 'print' });
  await shoot(page, 'report-print.png');
  await page.emulateMedia({ media: 'screen' });

  // Without JavaScript: the verdict, figures and tables are there, and no empty chart box is.
  const { page: plain } = await offlineContext({ javaScriptEnabled: false });
  await plain.goto(url, { waitUntil: 'load' });
  result.withoutScript = await plain.evaluate(() => ({
    verdict: document.querySelector('.summary h2')?.textContent,
    figures: document.querySelectorAll('.figures dd').length,
    tables: document.querySelectorAll('table').length,
    visibleCanvases: [...document.querySelectorAll('.canvas-box')].filter((box) => box.getClientRects().length > 0).length,
    visibleDetails: [...document.querySelectorAll('details')].filter((details) => details.getClientRects().length > 0).length,
  }));
  check(Boolean(result.withoutScript.verdict), 'without JavaScript there is no verdict');
  check(result.withoutScript.figures > 0 && result.withoutScript.tables > 0, 'without JavaScript there are no figures or tables');
  check(result.withoutScript.visibleCanvases === 0, 'without JavaScript empty chart boxes show');
  check(result.withoutScript.visibleDetails === result.charts.length, 'without JavaScript the charts\' data tables do not show');
  await shoot(plain, 'report-without-javascript.png');

  check(consoleErrors.length === 0, `the console showed errors: ${consoleErrors.join(' | ')}`);
  check(foreignRequests.length === 0, `requests left the file: ${foreignRequests.join(', ')}`);
  check(dialogs.length === 0, `the data ran script (dialogs: ${dialogs.join(' | ')})`);
} catch (error) {
  failures.push(`the browser test stopped: ${error.stack ?? error}`);
} finally {
  await browser.close();
}

finish(result);
