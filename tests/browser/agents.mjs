// A run shared among load agents, started from the page: the panel says it waits for its agents and shows the command
// that starts each (Copy puts it on the clipboard); the test then starts agents from those very commands (the handoff
// file), and the page follows the run to its end: Completed with each agent's calls adding up to the count, or Partial
// with the sentence that names the missing share, in the status, the live panel, the agents panel and the history; or
// Failed, with the sentence, when no agent comes at all.
// Usage: node agents.mjs <gateway URL> <handoff file> <expected end: Completed|Partial|Failed> <screenshot folder> [count=200] [timeout seconds=120]
// Prints one JSON line; exits 1 on any failure.
import { writeFileSync } from 'node:fs';
import { apiOf, finish, session } from './harness.mjs';

const [gateway, handoff, expected, outDir, countArg = '200', timeoutArg = '120'] = process.argv.slice(2);
if (!gateway || !handoff || !['Completed', 'Partial', 'Failed'].includes(expected) || !outDir) {
  console.error('usage: node agents.mjs <gateway URL> <handoff file> <Completed|Partial|Failed> <screenshot folder> [count] [timeout seconds]');
  process.exit(2);
}
const origin = new URL(gateway).origin;
const count = Number(countArg);
const timeout = Number(timeoutArg) * 1000;
const getJson = apiOf(origin);
const { result, failures, check, same, browser, context, page, shoot } = await session(origin, outDir, { expected, count }, { viewport: { width: 1440, height: 900 } });
try {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  await page.goto(origin + '/');
  await page.waitForFunction(() => document.querySelectorAll('#strategy option').length > 1, null, { timeout: 15000 });
  check(await page.isVisible('#agents-panel') === false, 'the agents panel shows before any run shared among agents');

  // Agents need one strategy: with "all" the form explains itself and nothing starts.
  await page.selectOption('#strategy', 'all');
  await page.fill('#agents', '2');
  await page.click('#start');
  check(await page.$eval('#agents', (input) => !input.validity.valid && input.validationMessage.includes('one strategy')), 'Agents with "all" was not refused next to the field');

  await page.selectOption('#strategy', 'factory-client');
  await page.fill('#count', String(count));
  await page.click('#start');
  await page.waitForFunction(() => document.querySelectorAll('#agent-commands li code').length === 2, null, { timeout: 15000 });
  const sentence = await page.textContent('#agents-sentence');
  check(sentence.startsWith('Waiting for 2 agents: start them with these commands'), `the waiting sentence reads "${sentence}"`);
  const commands = await page.$$eval('#agent-commands li code', (codes) => codes.map((code) => code.textContent));
  const runId = await page.getAttribute('#agents-panel', 'data-run-id');
  result.runId = runId;
  const started = await getJson(`/api/runs/${runId}`);
  same(started.plan.agents, 2, 'the run\'s agents');
  same(commands, started.agentReports.map((report) => report.command), 'the commands');
  // A run whose agents never come stops waiting within seconds: the rest of the waiting view is the other cases' to check.
  if (expected !== 'Failed') {
    same(await page.$$eval('#agents-table tbody tr td:nth-child(2)', (cells) => cells.map((cell) => cell.textContent)), ['Waiting', 'Waiting'], 'the shards\' states while waiting');
    await page.click('#agent-commands li:first-child button');
    same(await page.evaluate(() => navigator.clipboard.readText()), commands[0], 'what Copy put on the clipboard');
    await shoot(`agents-waiting-${expected}.png`);
  }

  // The commands go to the test, which starts the agents from them.
  writeFileSync(handoff, JSON.stringify({ runId, commands }));

  await page.waitForFunction(() => ['done', 'error', 'partial'].includes(document.body.dataset.state)
    && document.getElementById('agents-panel').dataset.state !== 'Running', null, { timeout, polling: 100 });
  const run = await getJson(`/api/runs/${runId}`);
  result.state = run.state;
  result.status = await page.textContent('#status');
  same(run.state, expected, 'the run\'s end');
  same(await page.getAttribute('#agents-panel', 'data-state'), run.state, 'the agents panel\'s state');
  const rows = await page.$$eval('#agents-table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent)));
  same(rows.map((row) => row[1]), run.agentReports.map((report) => report.state), 'each shard\'s state');
  const calls = rows.map((row) => Number(row[2].replaceAll(',', '')));
  same(calls, run.agentReports.map((report) => report.stats?.calls ?? report.callsSoFar), 'each shard\'s calls');
  const history = await page.$eval('#history-table tbody tr:first-child td:nth-child(3)', (cell) => ({ text: cell.textContent, className: cell.className, title: cell.title }));

  if (expected === 'Completed') {
    check(await page.getAttribute('body', 'data-state') === 'done', `the page ended in state ${await page.getAttribute('body', 'data-state')}: ${result.status}`);
    same(calls.reduce((sum, value) => sum + value, 0), count, 'the agents\' calls added up');
    check(rows.every((row) => row[4] !== '—' && row[5] !== '—'), 'a finished agent\'s own p50 and p99 are missing');
    same(history.text, 'Completed', 'the history\'s state');
    check((await page.textContent('#agents-sentence')).startsWith(`Completed: 2 agents made ${count.toLocaleString('en-US')} calls`), 'the agents\' sentence does not say Completed');
    const groups = await page.$$eval('#plan-group option', (options) => options.map((option) => option.textContent));
    check(groups.length === 1 && groups[0].includes('2 agents'), `the plan groups do not name the agents: ${JSON.stringify(groups)}`);
    // Beside a run this gateway made alone, the agents are a difference of plan, named as the others are.
    const differences = await page.evaluate(async (shared) => (await import('/js/plans.js'))
      .planDifferences(shared, { ...shared, planFacts: shared.planFacts.map((fact) => (fact.name === 'agents' ? { ...fact, value: '—', words: null } : fact)) }, () => false), run);
    same(differences, ['agents 2 vs —'], 'the plan differences of a 2-agent run and a 1-process run');
  } else if (expected === 'Failed') {
    check(await page.getAttribute('body', 'data-state') === 'error', `the page ended in state ${await page.getAttribute('body', 'data-state')}, not error`);
    check(run.error.startsWith('No agent reported figures.'), `the run's error reads "${run.error}"`);
    check(result.status.includes(run.error), `the status line lacks the run's sentence: ${result.status}`);
    check((await page.textContent('#agents-sentence')).includes(run.error), 'the agents panel lacks the run\'s sentence');
    same(rows.map((row) => row[1]), ['Missing', 'Missing'], 'the shards\' states');
    same(history.text, 'Failed', 'the history\'s state');
  } else {
    check(await page.getAttribute('body', 'data-state') === 'partial', `the page ended in state ${await page.getAttribute('body', 'data-state')}, not partial`);
    check(run.error.startsWith('Partial: shard 1/2\'s share of'), `the run's error reads "${run.error}"`);
    check(result.status.includes(run.error), `the status line lacks the run's sentence: ${result.status}`);
    check((await page.textContent('#agents-sentence')).startsWith(run.error), 'the agents panel lacks the run\'s sentence');
    check((await page.textContent('.live-panel .live-info')).includes(run.error), 'the live panel lacks the run\'s sentence');
    check(history.text.startsWith('Partial') && history.className === 'state-Partial' && history.title === run.error, `the history's state cell: ${JSON.stringify(history)}`);
    check(await page.$$eval('#plan-group option', (options) => options.length) === 0, 'a Partial run stands among the comparable runs of the charts');
  }
  await shoot(`agents-${expected}.png`);

  // A projector: 1024×768 in large type; the page itself never scrolls sideways, the tables scroll in their boxes.
  await page.setViewportSize({ width: 1024, height: 768 });
  await page.check('#large-type');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  same(overflow, 0, 'horizontal overflow at 1024×768 in large type (px)');
  await shoot(`agents-${expected}-1024-large.png`);
} catch (failure) {
  failures.push(`the script stopped: ${failure.message}`);
} finally {
  await browser.close();
}
finish(result);
