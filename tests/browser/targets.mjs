// Drives the run form's target and method picker in headless Chromium: the targets and methods are the API's, the
// request's JSON template is filled in to edit, JSON that does not parse is refused before anything is sent, the
// gateway's sentence for data that does not fit is shown next to the request, a run on a second target completes, and
// its runs stand apart from the built-in service's in the plan groups and in compare. Then the layout at 1024×768 in
// large type.
// Usage: node targets.mjs <gateway URL> <screenshot folder> <second target's name> [count=30] [timeout seconds=120]
// Prints one JSON line; exits 1 on any failure.
import { apiOf, finish, session } from './harness.mjs';

const [gateway, outDir, second, countArg = '30', timeoutArg = '120'] = process.argv.slice(2);
if (!gateway || !outDir || !second) {
  console.error('usage: node targets.mjs <gateway URL> <screenshot folder> <second target> [count] [timeout seconds]');
  process.exit(2);
}
const origin = new URL(gateway).origin;
const count = Number(countArg);
const timeout = Number(timeoutArg) * 1000;
const getJson = apiOf(origin);
const { result, check, same, browser, page, shoot } = await session(origin, outDir, { count }, { viewport: { width: 1440, height: 900 } });
const posts = [];

const runFromPage = async () => {
  await page.click('#start');
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, { timeout, polling: 50 });
  check(await page.getAttribute('body', 'data-state') === 'done', `the run ended in ${await page.getAttribute('body', 'data-state')}: ${await page.textContent('#status')}`);
};

try {
  page.on('request', (request) => { if (request.method() === 'POST') posts.push(new URL(request.url()).pathname); });
  const opened = performance.now();
  await page.goto(origin + '/');
  // The first GET /api/targets describes every target: protoc and a compile for a .proto target, reflection for the others.
  await page.waitForFunction(() => document.querySelectorAll('#target option').length > 0 && document.querySelectorAll('#strategy option').length > 1, null, { timeout: 60000 });
  result.targetsShownMs = Math.round(performance.now() - opened);
  const targets = await getJson('/api/targets');
  same(await page.$$eval('#target option', (options) => options.map((option) => option.value)), targets.map((target) => target.name), 'target choices');

  // The second target: its methods, the first one's template in the textarea, the built-in service's fields hidden.
  const target = targets.find((candidate) => candidate.name === second);
  check(target?.reachable, `${second} is not reachable: ${target?.problem}`);
  await page.selectOption('#target', second);
  same(await page.$$eval('#call option', (options) => options.map((option) => option.value)), target.methods.map((method) => method.call), `${second}'s methods`);
  const unary = target.methods.find((method) => method.kind === 'unary');
  await page.selectOption('#call', unary.call);
  same(await page.inputValue('#data'), unary.requestTemplate, 'the request template');
  check(await page.isHidden('#delay') && await page.isHidden('#payload'), 'the delay and payload fields show for a target\'s method');

  // JSON that does not parse is refused here: nothing is posted.
  await page.selectOption('#strategy', 'client-wrapper');
  await page.fill('#count', String(count));
  await page.fill('#data', '{"clientName": ');
  await page.click('#start');
  await page.waitForSelector('#data-problem:not([hidden])', { timeout: 5000 });
  check((await page.textContent('#data-problem')).startsWith('The request is not JSON'), `the JSON check says: ${await page.textContent('#data-problem')}`);
  check(!posts.includes('/api/runs'), 'a request that is not JSON was posted');

  // JSON that does not fit the method: the gateway's sentence next to the request.
  await page.fill('#data', '{"delayMs": "soon"}');
  await page.click('#start');
  await page.waitForFunction(() => /delayMs/.test(document.getElementById('data-problem').textContent), null, { timeout: 10000 })
    .catch(() => result.failures.push('the gateway\'s sentence for data that does not fit is not next to the request'));
  result.dataProblem = await page.textContent('#data-problem');
  await shoot('targets-data-problem.png');

  // A run on the second target, then one of the built-in service's chapter call.
  await page.fill('#data', '{"clientName": "picker", "payloadBytes": 5}');
  await runFromPage();
  const onTarget = (await getJson('/api/runs?limit=1')).runs[0];
  same([onTarget.plan.target, onTarget.plan.call, onTarget.state], [second, unary.call, 'Completed'], 'the run on the second target');
  check(Boolean(onTarget.stats?.firstAnswer), 'the run on the second target kept no first answer');

  await page.selectOption('#target', targets[0].name);
  await page.selectOption('#call', '');
  check(await page.isVisible('#delay'), 'the delay field stays hidden for the chapter\'s call');
  await runFromPage();
  const builtIn = (await getJson('/api/runs?limit=1')).runs[0];
  check(!builtIn.plan.target && !builtIn.plan.call, `the chapter's run names a target: ${JSON.stringify(builtIn.plan)}`);

  // The two runs are two plans: the groups hold them apart and the target's group says which target and method.
  const groups = await page.$$eval('#plan-group option', (options) => options.map((option) => option.textContent));
  const targetGroups = groups.filter((words) => words.includes(`on ${second}`) && words.includes(unary.call));
  check(targetGroups.length === 1 && targetGroups[0].endsWith('(1 run)'), `the plan groups do not keep the target's run apart: ${groups.join(' | ')}`);
  check(groups.some((words) => !words.includes(`on ${second}`)), `no plan group of the built-in service's run: ${groups.join(' | ')}`);
  const latestLabels = await page.evaluate(() => Chart.getChart('chart-latest').data.labels);
  same(latestLabels, ['client-wrapper'], 'chart-latest of the newest plan');

  // Compare the two: different plans, named by target and call, neither called better.
  for (const box of await page.$$('#history-table tbody input[type=checkbox]:checked')) await box.uncheck();
  await page.check('#history-table tbody tr:nth-child(1) input[type=checkbox]');
  await page.check('#history-table tbody tr:nth-child(2) input[type=checkbox]');
  await page.click('#compare');
  await page.waitForSelector('#comparison .plan-warning', { timeout: 10000 }).catch(() => result.failures.push('comparing runs of two targets gives no warning'));
  result.warning = await page.textContent('#comparison .plan-warning').catch(() => '');
  check(result.warning.includes('target') && result.warning.includes('call'), `the warning does not name the target and call: ${result.warning}`);

  // A projector: 1024×768 in large type, the picker on its target's method, nothing wider than the window.
  await page.setViewportSize({ width: 1024, height: 768 });
  await page.check('#large-type');
  await page.selectOption('#target', second);
  await page.selectOption('#call', unary.call);
  await page.$eval('#run-panel', (panel) => panel.scrollIntoView());
  check(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
    'the picker in large type makes the page wider than a 1024×768 window');
  await page.screenshot({ path: `${outDir}/targets-1024-large.png` });
  result.screenshots.push(`${outDir}/targets-1024-large.png`);
} catch (failure) {
  result.failures.push(`the script failed: ${failure.message}`);
} finally {
  await browser.close();
}
finish(result);
