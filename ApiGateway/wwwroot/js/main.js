// Wires the page: the lessons, the run form, the live panels, and reloading every chart from the API when a run ends.

import { api, clearErrors, downloadsWithKey, showError } from './api.js';
import { assignColours, createCharts, setLargeType, showHistory, showLatest } from './charts.js';
import { createProtocolCharts } from './protocol-charts.js';
import { initProtocols } from './protocols.js';
import { initLessons } from './lessons.js';
import { initCheckup } from './checkup.js';
import { comparePicked, loadHistory, showRunsOverTime, usePlans } from './history.js';
import { doneFraction, progressText } from './live.js';
import { addLivePoint, resumeRun, setLiveInfo, showLivePanels, showStoredRun } from './live-panels.js';
import { followAgents, hideAgents, showAgents, stopFollowingAgents } from './agents.js';
import { groupByPlan, learnDefaultLoads, planContext, planWords } from './plans.js';
import { facts, loadFact } from './facts.js';
import { workPanel } from './panel.js';
import { callsMethod, initTargets, kindOf, readTarget, showRefusal } from './targets.js';
import { el, ms, time, whole } from './format.js';
import { errorsSentence, withoutStop } from './statuses.js';

const $ = (id) => document.getElementById(id);
const largeTypeKey = 'grpcbp.largeType';
// The history the plan groups are made from: enough for a workshop's day of runs.
const groupedRuns = 500;
let strategies = [];
// What kinds of a target's method each strategy can call (GET /api/strategies).
let methodKinds = new Map();
let groups = [];
const panel = workPanel({ root: document.body, status: 'status', start: 'start', cancel: 'cancel' });
const say = panel.say;

async function init() {
  createCharts();
  createProtocolCharts();
  initLargeType();
  // The Protocols part stands on its own API (workloads, comparisons), so it loads beside the strategies, not after them.
  initProtocols().catch(showError);
  $('run-form').addEventListener('submit', (event) => {
    event.preventDefault();
    start().catch(panel.fail);
  });
  $('cancel').addEventListener('click', () => panel.cancel().catch(showError));
  $('compare').addEventListener('click', () => comparePicked().catch(showError));
  $('history-strategy').addEventListener('change', () => showGroup(currentGroup()));
  $('plan-group').addEventListener('change', () => showGroup(currentGroup()));
  initPlanFields();
  // The report link downloads with the key (once typed), never one in its URL.
  downloadsWithKey($('report-link'));

  try {
    const list = await api('/api/strategies');
    strategies = list.map((strategy) => strategy.name);
    methodKinds = new Map(list.map((strategy) => [strategy.name, strategy.methodKinds ?? []]));
    learnDefaultLoads(list);
  } catch (failure) {
    panel.fail(failure);
    return;
  }
  assignColours(strategies);
  // The lessons' arms keep the strategies' colours, so they load once those are known, beside the charts below.
  const lessonsShown = initLessons(strategies).catch(showError);
  $('strategy').append(...strategies.map((name) => el('option', { text: name, attrs: { value: name } })));
  // Off until now: beyond loopback the page waits here for its key, and a click before would submit the form as a page.
  $('start').disabled = false;
  $('history-strategy').append(...strategies.map((name) => el('option', { text: name, attrs: { value: name } })));
  // Describing a target may take seconds (its protoc, its reflection): the charts do not wait for it.
  const targetsShown = initTargets().catch(showError);
  // The checkup follows the same pick; its latest record loads beside the charts.
  initCheckup().catch(showError);
  const runs = await refresh().catch(showError);
  await targetsShown;
  // The methods' kinds are known now: a strategy a suite left out says why.
  if (groups.length) showGroup(currentGroup());
  await lessonsShown;
  // A lesson experiment's runs are its card's to show: the live panels resume a run or suite of the run panel.
  await resume(runs?.find((run) => !run.experimentId)).catch(showError);
}

function initLargeType() {
  const toggle = $('large-type');
  const apply = () => {
    document.documentElement.classList.toggle('large', toggle.checked);
    setLargeType(toggle.checked);
  };
  toggle.checked = localStorage.getItem(largeTypeKey) === 'true';
  apply();
  toggle.addEventListener('change', () => {
    localStorage.setItem(largeTypeKey, String(toggle.checked));
    apply();
  });
}

/** The fields of the whole-number settings the form has, by their plan names (delayMs, payloadBytes, …). */
const settingFields = () => facts.settings.map((setting) => [setting, $('run-form').elements[setting.name]]).filter(([, input]) => input);

/** The loads to pick from, and each whole-number setting's range and default on its field, as the engine states them. */
function initPlanFields() {
  $('load').append(...facts.loads.map((load) => el('option', { text: load.words, attrs: { value: load.name } })));
  $('load').addEventListener('change', showLoadFields);
  showLoadFields();
  for (const [setting, input] of settingFields()) {
    Object.assign(input, { min: setting.min, max: setting.max });
    if (setting.default !== null) input.value = setting.default;
  }
}

/** Rate and stages show only under the loads that read them (the loads that start calls on a schedule). */
function showLoadFields() {
  const settings = loadFact($('load').value)?.settings ?? [];
  document.querySelectorAll('[data-setting]').forEach((label) => {
    label.hidden = !settings.includes(label.dataset.setting);
  });
}

/** Reads the form; the browser's own constraint messages explain a bad value next to its field, the API the rest. */
function readPlan() {
  const form = $('run-form');
  $('agents').setCustomValidity($('agents').value !== '' && $('strategy').value === 'all'
    ? 'Agents share one strategy\'s run: pick a strategy, or leave Agents empty to run them all here.' : '');
  if (!form.reportValidity()) return null;
  const target = readTarget();
  if (!target) return null;
  // A target's method takes its request from the JSON; the delay and payload are the built-in service's.
  const builtIn = callsMethod() ? new Set(['delayMs', 'payloadBytes']) : new Set();
  const number = (id) => ($(id).value === '' ? undefined : Number($(id).value));
  const load = $('load').value || undefined;
  const settings = loadFact(load)?.settings ?? [];
  const thresholds = $('thresholds').value.split(';').map((text) => text.trim()).filter(Boolean);
  return {
    load,
    count: number('count'),
    duration: number('duration'),
    concurrency: number('concurrency'),
    rate: settings.includes('rate') ? number('rate') : undefined,
    stages: settings.includes('stages') && $('stages').value.trim() ? $('stages').value.trim() : undefined,
    ...Object.fromEntries(settingFields().filter(([setting]) => !builtIn.has(setting.name)).map(([setting, input]) => [setting.name, number(input.id)])),
    agents: number('agents'),
    ...target,
    thresholds: thresholds.length ? thresholds : undefined,
  };
}

async function start() {
  const plan = readPlan();
  if (!plan) return;
  clearErrors();
  const strategy = $('strategy').value;
  const kind = strategy === 'all' ? 'suites' : 'runs';
  hideAgents();
  panel.setBusy(true);
  panel.setState('running');
  say('Starting…');
  $('progress').value = 0;
  $('report-link').hidden = true;

  let view;
  try {
    view = await api(`/api/${kind}`, { method: 'POST', body: kind === 'suites' ? plan : { ...plan, strategy } });
  } catch (failure) {
    panel.setBusy(false);
    if (!showRefusal(failure)) throw failure;
    // Its sentence stands once, next to the target or the request it is about.
    panel.setState('error');
    say(`Not started: ${failure.status === 503 ? 'the target is unavailable' : 'the gateway refused the request'} (the reason is under the picker).`);
    return;
  }
  showLivePanels(kind === 'suites' ? view.strategies : [strategy], liveWords(kind, view, !plan.load && plan.concurrency === undefined));
  if (view.plan.agents) followShards(view);
  say(`Connecting to the live stream of ${kind === 'suites' ? `${view.strategies.length} strategies` : strategy}…`);
  followWork(kind, view);
}

/** The live panel's title: a suite that left Load and Concurrency empty ran each strategy under its own load. */
function liveWords(kind, view, ownLoad) {
  return planWords(view, () => kind === 'suites' && ownLoad);
}

/** A run shared among agents: its shards from the store, once a second, beside the run's own event stream. */
function followShards(view) {
  showAgents(view);
  followAgents(view.id).catch(showError);
}

/** Follows a run or suite (just started, or found running after a reload) until it ends. */
function followWork(kind, view) {
  const plan = view.plan;
  panel.follow(kind, view.id, 'run', {
    progress: (data) => (plan.agents ? onAgentsProgress(data, plan)
      : onProgress(kind === 'suites' ? data : { runId: view.id, strategy: plan.strategy, index: 1, of: 1, progress: data }, plan)),
    run: (run) => {
      showStored(run).catch(showError);
      say(`${run.plan.strategy} ${run.state.toLowerCase()}: ${ms(run.stats?.wallTimeMs)} ms wall time${run.error ? ` — ${withoutStop(run.error)}` : ''}.${noteText(run)}${run.state === 'Completed' ? errorsSentence(run.stats) : ''}`);
    },
    final: (final) => {
      const shown = kind === 'runs' ? showStored(final).then(() => showEndedShards(final)) : Promise.resolve();
      shown.then(() => finish(kind, final)).catch(panel.fail);
    },
  });
}

/** An ended run shared among agents: its breakdown, read once more now that the run is merged. */
async function showEndedShards(run) {
  if (!run.plan.agents) return;
  stopFollowingAgents();
  showAgents(run.agentReports ? run : await api(`/api/runs/${run.id}`));
}

/** An ended run's panel shows its stored series: the same a reload shows. Events and lists may leave the series out. */
async function showStored(run) {
  showStoredRun(run.series || run.state === 'Running' ? run : await api(`/api/runs/${run.id}`));
}

/**
 * After a reload: the live panels of the newest strategy run or suite, from the history, and following it if it still
 * runs. newest: the newest strategy run that is not a lesson experiment's.
 */
async function resume(newest) {
  if (!newest) return;
  const suite = newest.suiteId ? await api(`/api/suites/${newest.suiteId}`) : null;
  const kind = suite ? 'suites' : 'runs';
  const view = suite ?? await api(`/api/runs/${newest.id}`);
  const runs = suite ? suite.runs : [view];
  showLivePanels(suite ? suite.strategies : [view.plan.strategy],
    liveWords(kind, view, suite !== null && planContext(runs)({ ...newest, suiteId: suite.id })));
  await Promise.all(runs.map((run) => (run.state === 'Running' ? resumeRun(run.plan.strategy, run.id) : showStored(run))));
  if (view.plan.agents) showAgents(view);
  if (view.state !== 'Running') return;
  if (view.plan.agents) followShards(view);
  panel.setBusy(true);
  panel.setState('running');
  say(`Following the ${suite ? 'suite' : 'run'} that was running before the page reloaded…`);
  followWork(kind, view);
}
/** The gateway sees only the agents' summed calls, so the status says how far they are together and draws no live points. */
function onAgentsProgress(progress, plan) {
  $('progress').value = progress.total > 0 ? Math.min(1, progress.completed / progress.total) : 0;
  const text = `${plan.strategy} — ${plan.agents} agent${plan.agents === 1 ? '' : 's'}: ${progress.completed.toLocaleString('en-US')}` +
    `${progress.total > 0 ? ` of ${progress.total.toLocaleString('en-US')}` : ''} calls${progress.failed ? `, ${progress.failed} failed` : ''}`;
  panel.progress(`${text}${progress.completed === 0 ? ' (waiting for the agents: see their commands below)' : ''}`);
  setLiveInfo(plan.strategy, `${text} so far`);
}

function onProgress({ runId, strategy, index, of, progress }, plan) {
  $('progress').value = doneFraction(index, of, progress);
  const where = of > 1 ? `Strategy ${index} of ${of}: ${strategy}` : strategy;
  panel.progress(`${where} — ${progressText(progress)}`);
  if (progress.phase !== 'Starting') addLivePoint(strategy, runId, progress, plan);
}

async function finish(kind, final) {
  panel.ended();
  $('progress').value = final.state === 'Completed' ? 1 : $('progress').value;
  const what = kind === 'suites' ? `All ${final.strategies.length} strategies` : final.plan.strategy;
  await refresh({ keep: false });
  // The time series of what just ran, read back from the history (the same a reload shows).
  await showRunsOverTime(kind === 'suites' ? final.runs.map((run) => run.id) : [final.id]);
  const verdict = verdictText(kind === 'suites' ? final.runs : [final]);
  const report = $('report-link');
  report.href = `/api/${kind}/${final.id}/report`;
  report.textContent = `Download the ${kind === 'suites' ? 'suite' : 'run'}'s report (one HTML file, opens offline)`;
  report.hidden = false;
  if (final.state === 'Completed') {
    say(`${what} completed at ${time(final.finishedAt ?? new Date().toISOString())}` +
      (kind === 'suites' ? `. ${leaders(final.comparison)}` : `: ${ms(final.stats?.wallTimeMs)} ms wall time.`) +
      (kind === 'suites' ? final.runs.map(noteText).join('') : noteText(final) + errorsSentence(final.stats)) + verdict);
    panel.setState('done');
  } else if (final.state === 'Partial') {
    // Figures, but not the whole plan's: never shown as completed.
    say(`${what}: ${final.error ?? 'Partial: some agent\'s share is missing.'}`);
    panel.setState('partial');
  } else if (final.state === 'Cancelled') {
    say(`${what}: cancelled — ${withoutStop(final.error ?? 'on request')}.`);
    panel.setState('done');
  } else {
    say(`${what}: failed — ${withoutStop(final.error ?? 'no reason given')}.`);
    showError(new Error(`The ${kind === 'suites' ? 'suite' : 'run'} failed: ${final.error ?? 'no reason given'}`));
    panel.setState('error');
  }
}

/**
 * A suite's leaders, each named with the figure it leads by: the most calls per second and the lowest median time per
 * call. Under each strategy's own load the two differ (all calls at once finish soonest, each waiting its turn), so
 * neither is called "fastest".
 */
function leaders(rows) {
  const completed = rows.filter((row) => row.state === 'Completed' && row.throughputPerSecond > 0);
  if (completed.length === 0) return 'No strategy completed a call.';
  const most = completed.reduce((best, row) => (row.throughputPerSecond > best.throughputPerSecond ? row : best));
  const timed = completed.filter((row) => row.p50Ms !== null && row.p50Ms !== undefined);
  const lowest = timed.length ? timed.reduce((best, row) => (row.p50Ms < best.p50Ms ? row : best)) : null;
  const throughput = `${whole(most.throughputPerSecond)} calls/s, ${ms(most.wallTimeMs)} ms wall time`;
  if (!lowest) return `Most calls per second: ${most.strategy} (${throughput}).`;
  if (lowest.strategy === most.strategy) {
    return `${most.strategy} had both the most calls per second (${throughput}) and the lowest median time per call (p50 ${ms(lowest.p50Ms)} ms).`;
  }
  return `Most calls per second: ${most.strategy} (${throughput}, p50 ${ms(most.p50Ms)} ms); lowest median time per call: ` +
    `${lowest.strategy} (p50 ${ms(lowest.p50Ms)} ms, ${whole(lowest.throughputPerSecond)} calls/s).`;
}

/** " 1,593 of 100,000 calls failed to connect … while the service kept answering: …" for a completed run with a note, else nothing. */
function noteText(run) {
  return run.note ? ` ${run.note}` : '';
}

/** " Thresholds: 2 of 3 held; failed: p99 < 5ms (7.2 ms)." for runs that had thresholds, else nothing. */
function verdictText(runs) {
  const results = runs.flatMap((run) => run.verdict?.thresholds.map((result) => ({ ...result, strategy: run.plan.strategy })) ?? []);
  if (results.length === 0) return '';
  const failed = results.filter((result) => !result.passed);
  const several = runs.length > 1;
  return ` Thresholds: ${results.length - failed.length} of ${results.length} held` +
    (failed.length ? `; failed: ${failed.map((result) => `${several ? `${result.strategy} ` : ''}${result.threshold} (${result.measured === null ? 'not measured' : `${ms(result.measured)} ${result.unit}`})`).join(', ')}.` : '.');
}

/**
 * Charts 1–4 and the table, all from the API. The charts show one plan's runs: the group of the newest completed run
 * unless one was picked and still has runs (keep: keep the pick). Returns the strategy runs, newest first.
 */
async function refresh({ keep = true } = {}) {
  const [page] = await Promise.all([api(`/api/runs?limit=${groupedRuns}`), loadHistory()]);
  // Workload runs (the Protocols part) have charts of their own.
  const runs = page.runs.filter((run) => strategies.includes(run.plan.strategy) && !run.plan.workload);
  const ownLoad = planContext(runs);
  usePlans(ownLoad);
  groups = groupByPlan(runs.filter((run) => run.state === 'Completed' && run.stats), ownLoad);
  const select = $('plan-group');
  const picked = keep ? select.value : '';
  select.replaceChildren(...groups.map((group) => el('option', {
    text: `${group.words} (${group.runs.length} run${group.runs.length === 1 ? '' : 's'})`,
    attrs: { value: group.key },
  })));
  if (groups.some((group) => group.key === picked)) select.value = picked;
  showGroup(currentGroup());
  return runs;
}

/** Why a strategy cannot call the plan's method ("streaming-call needs a bidirectional method; inventory.Stock/Get is unary"), or null. */
function cannotCall(strategy, plan) {
  if (!plan?.call) return null;
  const kind = kindOf(plan.target ?? 'performance', plan.call);
  const kinds = methodKinds.get(strategy) ?? [];
  if (!kind || kinds.length === 0 || kinds.includes(kind)) return null;
  return `${strategy} needs a ${kinds.map((name) => name === 'bidi-streaming' ? 'bidirectional' : name).join(' or ')} method; ${plan.call} is ${kind}`;
}

const currentGroup = () => groups.find((group) => group.key === $('plan-group').value) ?? groups[0];

/** Charts 1–4 for one plan group: each strategy's newest run under it, the missing named, the picked strategy over time. */
function showGroup(group) {
  const runs = group?.runs ?? [];
  const latest = strategies.map((name) => runs.find((run) => run.plan.strategy === name)).filter(Boolean);
  const absent = strategies.filter((name) => !latest.some((run) => run.plan.strategy === name));
  const cannot = new Map(absent.map((name) => [name, cannotCall(name, runs[0]?.plan)]).filter(([, why]) => why));
  const missing = absent.filter((name) => !cannot.has(name));
  const words = group?.words ?? 'no completed run yet';
  document.querySelectorAll('.plan-words').forEach((span) => { span.textContent = words; });
  const left = [...cannot.values()].map((why) => ` Left out: ${why}.`).join('');
  $('plan-missing').textContent = !group ? 'No completed run yet: start one above.'
    : missing.length ? `No run under this plan: ${missing.join(', ')}. Run ${missing.length === 1 ? 'it' : 'them'} with these settings to see ${missing.length === 1 ? 'it' : 'them'} here; runs of other plans are not mixed in.${left}`
      : `${cannot.size ? 'Every strategy that can call this method' : 'Every strategy'} has a run under this plan.${left}`;
  showLatest(group, latest, missing);
  const strategy = $('history-strategy').value;
  if (strategy) showHistory(strategy, runs.filter((run) => run.plan.strategy === strategy).reverse(), time);
}

init();
