// The picker's reach in headless Chromium: the target and method picked in the run panel survive a reload (the request
// does not: it may hold a token), the lessons run where it points (the streaming lesson on the second target's unary
// method, its stream arm on the bidirectional one), a lesson that cannot run there says why and posts nothing, a suite on
// a unary method names the strategy it left out and why and ranks its strategies by named figures (never "fastest"), a
// refused request's sentence shows once, and a run whose every call failed plots 0 calls/s. Then a screenshot of the
// picker and a lesson card on the target at 1024×768 in large type.
// Usage: node picker.mjs <gateway URL> <screenshot folder> <second target's name> [timeout seconds=180]
// Prints one JSON line; exits 1 on any failure.
import { apiOf, finish, session } from './harness.mjs';

const [gateway, outDir, second, timeoutArg = '180'] = process.argv.slice(2);
if (!gateway || !outDir || !second) {
  console.error('usage: node picker.mjs <gateway URL> <screenshot folder> <second target> [timeout seconds]');
  process.exit(2);
}
const origin = new URL(gateway).origin;
const timeout = Number(timeoutArg) * 1000;
const getJson = apiOf(origin);
const { result, check, same, browser, page, shoot } = await session(origin, outDir, {}, { viewport: { width: 1440, height: 900 } });
const posts = [];
const text = (selector) => page.textContent(selector);

const loaded = () => page.waitForFunction(() => document.querySelectorAll('#target option').length > 0 &&
  document.querySelectorAll('#strategy option').length > 1 && document.querySelectorAll('.lesson').length > 0, null, { timeout: 60000 });
const ended = (root) => page.waitForFunction((selector) => ['done', 'error'].includes(document.querySelector(selector).dataset.state), root, { timeout, polling: 100 });

try {
  page.on('request', (request) => { if (request.method() === 'POST') posts.push({ path: new URL(request.url()).pathname, body: request.postData() }); });
  await page.goto(origin + '/');
  await loaded();
  const target = (await getJson('/api/targets')).find((candidate) => candidate.name === second);
  const unary = target.methods.find((method) => method.kind === 'unary');
  const bidi = target.methods.find((method) => method.kind === 'bidi-streaming');
  check(/built-in service/.test(await text('#lesson-where')), `before a pick the lessons do not say they run on the built-in service: ${await text('#lesson-where')}`);

  // The pick survives a reload; the request's text is not kept.
  await page.selectOption('#target', second);
  await page.selectOption('#call', unary.call);
  await page.fill('#data', '{"clientName": "secret-token-in-data"}');
  await page.reload();
  await loaded();
  same([await page.inputValue('#target'), await page.inputValue('#call')], [second, unary.call], 'the pick after a reload');
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }));
  check(!stored.includes('secret-token-in-data'), `the request's text is kept in the browser: ${stored}`);

  // The lessons say where they run; one that cannot run there says why, and pressing it posts nothing.
  result.where = await text('#lesson-where');
  check(result.where.includes(`${second}'s ${unary.call}`), `the lessons do not say they run on ${second}'s ${unary.call}: ${result.where}`);
  const binary = '#lesson-binary-payloads';
  check(await page.isVisible(`${binary} .lesson-not-here`), 'the binary-payloads card does not say it cannot run on the target');
  await page.click('#lesson-run-binary-payloads');
  await page.waitForFunction((root) => document.querySelector(root).dataset.state === 'error', binary, { timeout: 5000 });
  result.binaryRefusal = await text('#lesson-status-binary-payloads');
  check(/^Not started: Not on /.test(result.binaryRefusal), `pressing binary-payloads on a target says: ${result.binaryRefusal}`);
  check(!posts.some((post) => post.path.includes('/binary-payloads/')), 'binary-payloads was started although it cannot run on the target');

  // The streaming lesson on the target's unary method: the experiment the gateway ran names the target and the method.
  await page.fill('#data', '{"clientName": "lesson-on-target"}');
  // One repetition (the API allows 1 to 10; the page posts the lesson's default), so the card's words must read "once".
  await page.route('**/api/lessons/streaming/experiments', (route) => route.request().method() === 'POST'
    ? route.continue({ postData: JSON.stringify({ ...JSON.parse(route.request().postData() ?? '{}'), repetitions: 1 }) })
    : route.continue());
  await page.click('#lesson-run-streaming');
  await ended('#lesson-streaming');
  check(await page.getAttribute('#lesson-streaming', 'data-state') === 'done', `the streaming lesson on ${second} ended: ${await text('#lesson-status-streaming')}`);
  result.lessonStatus = await text('#lesson-status-streaming');
  check(/every arm once\./.test(result.lessonStatus) && !/\b1 times\b|\.\./.test(result.lessonStatus), `the streaming lesson's status: ${result.lessonStatus}`);
  await page.unroute('**/api/lessons/streaming/experiments');
  const posted = posts.find((post) => post.path === '/api/lessons/streaming/experiments');
  same(JSON.parse(posted?.body ?? '{}').target, second, 'the target the streaming lesson was posted with');
  const experiment = (await getJson('/api/lessons/streaming/experiments?limit=1')).experiments?.[0] ?? (await getJson('/api/lessons/streaming')).latest;
  same([experiment?.target, experiment?.call, experiment?.streamCall], [second, unary.call, bidi.call], 'the streaming experiment\'s target, call and stream call');
  check((await text('#lesson-streaming .lesson-result')).includes(`On ${second}'s ${unary.call}`), 'the streaming card does not say which method it ran on');
  result.lessonVerdict = await text('#lesson-streaming .lesson-verdict').catch(() => '');

  // A projector: the picker and the lesson card on the target, 1024×768 in large type, nothing wider than the window.
  await page.setViewportSize({ width: 1024, height: 768 });
  await page.check('#large-type');
  check(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), 'the page in large type is wider than a 1024×768 window');
  await page.$eval('#lesson-streaming', (card) => card.scrollIntoView());
  await page.screenshot({ path: `${outDir}/picker-lesson-on-target.png` });
  result.screenshots.push(`${outDir}/picker-lesson-on-target.png`);
  await page.$eval('#run-panel', (panel) => panel.scrollIntoView());
  await page.screenshot({ path: `${outDir}/picker-run-panel-1024.png` });
  result.screenshots.push(`${outDir}/picker-run-panel-1024.png`);
  await page.uncheck('#large-type');
  await page.setViewportSize({ width: 1440, height: 900 });

  // A suite refused for its data: the sentence once, next to the request, without the strategy it was checked for.
  await page.selectOption('#strategy', 'all');
  await page.fill('#count', '20');
  await page.fill('#data', '{"delayMs": "soon"}');
  await page.click('#start');
  await page.waitForSelector('#data-problem:not([hidden])', { timeout: 10000 });
  result.dataProblem = await text('#data-problem');
  check(!/^For /.test(result.dataProblem), `the data problem names a strategy: ${result.dataProblem}`);
  const shown = await page.evaluate((sentence) => document.body.innerText.split(sentence).length - 1, result.dataProblem.trim());
  same(shown, 1, 'how many times the data problem\'s sentence shows');

  // A suite on the unary method: streaming-call left out with its reason; the headline names what it ranks by.
  await page.fill('#data', '{"clientName": "suite"}');
  await page.click('#start');
  await ended('body');
  check(await page.getAttribute('body', 'data-state') === 'done', `the suite ended: ${await text('#status')}`);
  result.headline = await text('#status');
  check(!/fastest/i.test(result.headline), `the suite's headline says "fastest": ${result.headline}`);
  check(/calls per second/.test(result.headline) && /median time per call/.test(result.headline), `the headline does not say what it ranks by: ${result.headline}`);
  result.missing = await text('#plan-missing');
  check(result.missing.includes(`streaming-call needs a bidirectional method; ${unary.call} is unary`), `the suite does not say why streaming-call was left out: ${result.missing}`);
  check(!/No run under this plan: streaming-call/.test(result.missing), `streaming-call is named as missing: ${result.missing}`);

  // Every call refused (grpc-js answers InvalidArgument for a negative delay): the run's throughput is 0, and so is every plotted point.
  await page.selectOption('#strategy', 'client-wrapper');
  await page.fill('#count', '200');
  await page.fill('#data', '{"clientName": "refused", "delayMs": -1}');
  await page.click('#start');
  await ended('body');
  const refused = (await getJson('/api/runs?limit=1')).runs[0];
  check(refused.stats?.failed > 0 && refused.stats?.succeeded === 0, `the refused run: ${JSON.stringify(refused.stats && { failed: refused.stats.failed, succeeded: refused.stats.succeeded })}`);
  await page.waitForFunction(() => (Chart.getChart('chart-live-0')?.data.datasets[0].data.length ?? 0) > 0, null, { timeout: 10000 })
    .catch(() => result.failures.push('the refused run\'s live panel shows no stored point'));
  result.refusedPoints = await page.evaluate(() => Chart.getChart('chart-live-0').data.datasets[0].data.map((point) => point.y));
  check(result.refusedPoints.every((y) => y === 0), `a run whose every call failed plots calls/s of ${JSON.stringify(result.refusedPoints)}`);
  await shoot('picker-refused-run.png');
} catch (failure) {
  result.failures.push(`the script failed: ${failure.message}`);
} finally {
  await browser.close();
}
finish(result);
