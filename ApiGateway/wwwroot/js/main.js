// Wires the page: the run form, the live stream, and reloading every chart from the API when a run ends.

import { api, clearErrors, showError } from './api.js';
import { addLivePoint, addRunPoint, assignColours, createCharts, resetLive, setLargeType, showHistory, showLatest } from './charts.js';
import { createProtocolCharts } from './protocol-charts.js';
import { initProtocols } from './protocols.js';
import { comparePicked, loadHistory, showRunsOverTime } from './history.js';
import { doneFraction, progressText } from './live.js';
import { workPanel } from './panel.js';
import { el, ms, time } from './format.js';

const $ = (id) => document.getElementById(id);
const largeTypeKey = 'grpcbp.largeType';
let strategies = [];
const panel = workPanel({ root: document.body, status: 'status', start: 'start', cancel: 'cancel' });
const say = panel.say;

async function init() {
  createCharts();
  createProtocolCharts();
  initLargeType();
  // The Protocols part stands on its own API (workloads, comparisons), so it loads beside the strategies, not after them.
  initProtocols().catch(showError);
  resetLive();
  $('run-form').addEventListener('submit', (event) => {
    event.preventDefault();
    start().catch(panel.fail);
  });
  $('cancel').addEventListener('click', () => panel.cancel().catch(showError));
  $('compare').addEventListener('click', () => comparePicked().catch(showError));
  $('history-strategy').addEventListener('change', () => loadStrategyHistory().catch(showError));
  $('load').addEventListener('change', showLoadFields);
  showLoadFields();

  try {
    strategies = (await api('/api/strategies')).map((strategy) => strategy.name);
  } catch (failure) {
    panel.fail(failure);
    return;
  }
  assignColours(strategies);
  $('strategy').append(...strategies.map((name) => el('option', { text: name, attrs: { value: name } })));
  $('history-strategy').append(...strategies.map((name) => el('option', { text: name, attrs: { value: name } })));
  await refresh().catch(showError);
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

/** Rate and stages matter only to the loads that start calls on a schedule. */
function showLoadFields() {
  const load = $('load').value;
  document.querySelectorAll('[data-for-load]').forEach((label) => {
    label.hidden = !label.dataset.forLoad.split(' ').includes(load);
  });
}

/** Reads the form; the browser's own constraint messages explain a bad value next to its field, the API the rest. */
function readPlan() {
  const form = $('run-form');
  if (!form.reportValidity()) return null;
  const number = (id) => ($(id).value === '' ? undefined : Number($(id).value));
  const load = $('load').value || undefined;
  const scheduled = load === 'open' || load === 'ramping';
  const thresholds = $('thresholds').value.split(';').map((text) => text.trim()).filter(Boolean);
  return {
    load,
    count: number('count'),
    duration: number('duration'),
    concurrency: number('concurrency'),
    rate: scheduled ? number('rate') : undefined,
    stages: load === 'ramping' && $('stages').value.trim() ? $('stages').value.trim() : undefined,
    delayMs: number('delay') ?? 0,
    payloadBytes: number('payload') ?? 100,
    thresholds: thresholds.length ? thresholds : undefined,
  };
}

async function start() {
  const plan = readPlan();
  if (!plan) return;
  clearErrors();
  const strategy = $('strategy').value;
  const kind = strategy === 'all' ? 'suites' : 'runs';
  panel.setBusy(true);
  panel.setState('running');
  say('Starting…');
  $('progress').value = 0;
  $('report-link').hidden = true;
  resetLive();

  let view;
  try {
    view = await api(`/api/${kind}`, { method: 'POST', body: kind === 'suites' ? plan : { ...plan, strategy } });
  } catch (failure) {
    panel.setBusy(false);
    throw failure;
  }
  const startedAt = performance.now();
  const seconds = () => (performance.now() - startedAt) / 1000;
  say(`Connecting to the live stream of ${kind === 'suites' ? `${view.strategies.length} strategies` : strategy}…`);
  panel.follow(kind, view.id, 'run', {
    progress: (data) => onProgress(kind === 'suites' ? data : { strategy, index: 1, of: 1, progress: data }, seconds()),
    run: (run) => {
      addRunPoint(run, seconds());
      say(`${run.plan.strategy} ${run.state.toLowerCase()}: ${ms(run.stats?.wallTimeMs)} ms wall time${run.error ? ` — ${run.error}` : ''}.`);
    },
    final: (final) => {
      if (kind === 'runs') addRunPoint(final, seconds());
      finish(kind, final).catch(panel.fail);
    },
  });
}

function onProgress({ strategy, index, of, progress }, seconds) {
  $('progress').value = doneFraction(index, of, progress);
  const where = of > 1 ? `Strategy ${index} of ${of}: ${strategy}` : strategy;
  panel.progress(`${where} — ${progressText(progress)}`);
  if (progress.phase !== 'Starting') addLivePoint(strategy, seconds, progress);
}

async function finish(kind, final) {
  panel.ended();
  $('progress').value = final.state === 'Completed' ? 1 : $('progress').value;
  const what = kind === 'suites' ? `All ${final.strategies.length} strategies` : final.plan.strategy;
  await refresh();
  // The time series of what just ran, read back from the history (the same a reload shows).
  await showRunsOverTime(kind === 'suites' ? final.runs.map((run) => run.id) : [final.id]);
  const verdict = verdictText(kind === 'suites' ? final.runs : [final]);
  const report = $('report-link');
  report.href = `/api/${kind}/${final.id}/report`;
  report.textContent = `Download the ${kind === 'suites' ? 'suite' : 'run'}'s report (one HTML file, opens offline)`;
  report.hidden = false;
  if (final.state === 'Completed') {
    const fastest = kind === 'suites' ? final.comparison.find((row) => row.wallTimeVsFastest === 1) : null;
    say(`${what} completed at ${time(final.finishedAt ?? new Date().toISOString())}` +
      (fastest ? `; fastest: ${fastest.strategy} (${ms(fastest.wallTimeMs)} ms).` : `: ${ms(final.stats?.wallTimeMs)} ms wall time.`) + verdict);
    panel.setState('done');
  } else if (final.state === 'Cancelled') {
    say(`${what}: cancelled — ${final.error ?? 'on request'}.`);
    panel.setState('done');
  } else {
    say(`${what}: failed — ${final.error ?? 'no reason given'}.`);
    showError(new Error(`The ${kind === 'suites' ? 'suite' : 'run'} failed: ${final.error ?? 'no reason given'}`));
    panel.setState('error');
  }
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

/** Charts 1–4 and the table, all from the API: the latest completed run of each strategy and the history. */
async function refresh() {
  const latest = await latestRuns();
  showLatest(latest);
  await Promise.all([loadStrategyHistory(), loadHistory()]);
}

async function latestRuns() {
  const pages = await Promise.all(strategies.map((name) => api(`/api/runs?strategy=${encodeURIComponent(name)}&limit=20`)));
  return pages.map((page) => page.runs.find((run) => run.state === 'Completed' && run.stats)).filter(Boolean);
}

async function loadStrategyHistory() {
  const strategy = $('history-strategy').value;
  if (!strategy) return;
  const page = await api(`/api/runs?strategy=${encodeURIComponent(strategy)}&limit=50`);
  const runs = page.runs.filter((run) => run.state === 'Completed' && run.stats).reverse();
  showHistory(strategy, runs, time);
}

init();
