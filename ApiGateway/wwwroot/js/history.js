// The history table, compare-two and export links (each downloads with the key, never one in its URL).

import { api, downloadsWithKey, showError } from './api.js';
import { colourOf, showSeries } from './charts.js';
import { dateTime, el, ms, whole } from './format.js';
import { planDifferences, planWords } from './plans.js';

const picked = new Map();
// Whether a run ran under its strategy's own load (plans.js planContext), from the runs the page last grouped.
let ownLoad = () => false;

export function usePlans(context) {
  ownLoad = context;
}

export async function loadHistory() {
  const page = await api('/api/runs?limit=50');
  const body = document.querySelector('#history-table tbody');
  const stillThere = new Set(page.runs.map((run) => run.id));
  for (const id of picked.keys()) if (!stillThere.has(id)) picked.delete(id);
  body.replaceChildren(...page.runs.map(row));
  if (page.runs.length === 0) {
    body.append(el('tr', {}, [el('td', { text: 'No runs yet: start one above.', attrs: { colspan: '15' } })]));
  }
  updateCompareButton();
  return page.runs;
}

function row(run) {
  const stats = run.stats;
  const pick = el('input', { attrs: { type: 'checkbox', 'aria-label': `Pick the ${run.plan.strategy} run started ${dateTime(run.startedAt)} for comparison` } });
  pick.checked = picked.has(run.id);
  pick.disabled = !stats;
  const tr = el('tr', { className: pick.checked ? 'picked' : '' });
  pick.addEventListener('change', () => {
    if (pick.checked) picked.set(run.id, run);
    else picked.delete(run.id);
    tr.classList.toggle('picked', pick.checked);
    updateCompareButton();
  });

  const swatch = el('span', { className: 'swatch', attrs: { 'aria-hidden': 'true' } });
  swatch.style.background = colourOf(run.plan.strategy);
  const exports = ['csv', 'json'].map((format) => downloadsWithKey(el('a', {
    text: format.toUpperCase(),
    attrs: { href: `/api/runs/${run.id}/export?format=${format}`, download: '', 'aria-label': `Export the ${run.plan.strategy} run as ${format.toUpperCase()}` },
  })));
  exports.push(downloadsWithKey(el('a', {
    text: 'Report',
    attrs: { href: `/api/runs/${run.id}/report`, download: '', 'aria-label': `Download the ${run.plan.strategy} run as an HTML report that opens offline` },
  })));
  // The key columns first, so a narrow window (a projector in large type) shows them before the box scrolls.
  tr.append(
    el('td', {}, [pick]),
    el('th', { attrs: { scope: 'row' } }, [swatch, run.plan.strategy]),
    stateCell(run),
    el('td', { text: ms(stats?.wallTimeMs), className: 'num' }),
    el('td', { text: whole(stats?.throughputPerSecond), className: 'num' }),
    el('td', { text: ms(stats?.latency?.p50Ms), className: 'num' }),
    el('td', { text: ms(stats?.latency?.p99Ms), className: 'num' }),
    el('td', { text: whole(run.plan.count), className: 'num' }),
    el('td', { text: planWords(run, ownLoad), className: 'plan' }),
    el('td', { text: whole(stats?.failed), className: 'num minor' }),
    el('td', { text: stats?.connectionsCounted === false ? 'not measured' : whole(stats?.connectionsUsed), className: 'num minor' }),
    verdictCell(run),
    el('td', { text: dateTime(run.startedAt), className: 'minor' }),
    el('td', {}, [overTime(run)]),
    el('td', {}, exports),
  );
  return tr;
}

/** The run's state, its error or note in the title; a Partial run's cell says it is not the whole plan, its sentence in the title and the accessible name. */
function stateCell(run) {
  const why = run.error ?? run.note;
  const cell = el('td', { text: run.state, className: `state-${run.state}`, attrs: why ? { title: why } : {} });
  if (run.state === 'Partial') {
    cell.append(el('span', { className: 'visually-hidden', text: `: ${run.error ?? 'some agent\'s share is missing'}` }));
    cell.dataset.error = run.error ?? '';
  }
  return cell;
}

/** Whether the run's thresholds held; the cell's title lists each with its measured value. */
function verdictCell(run) {
  if (!run.verdict) return el('td', { text: '—' });
  const passed = run.verdict.passed;
  const detail = run.verdict.thresholds.map((result) =>
    `${result.passed ? 'held' : 'failed'}: ${result.threshold} (${result.measured === null ? result.reason ?? 'not measured' : `${ms(result.measured)} ${result.unit}`})`).join('\n');
  return el('td', { text: passed ? 'passed' : 'failed', className: passed ? 'verdict-passed' : 'verdict-failed', attrs: { title: detail } });
}

function overTime(run) {
  const button = el('button', { text: 'Show', attrs: { type: 'button', 'aria-label': `Show the ${run.plan.strategy} run started ${dateTime(run.startedAt)} over time` } });
  button.disabled = !run.stats;
  button.addEventListener('click', () => showRunsOverTime([run.id]).catch(showError));
  return button;
}

/** Reads each run with its time series (lists leave series out) and draws them on the over-time chart. */
export async function showRunsOverTime(ids) {
  const runs = await Promise.all(ids.map((id) => api(`/api/runs/${id}`)));
  showSeries(runs, runs.length ? planWords(runs[0], ownLoad) : '');
  return runs;
}

function updateCompareButton() {
  const button = document.getElementById('compare');
  button.disabled = picked.size !== 2;
  button.textContent = picked.size === 2 ? 'Compare the two picked runs' : `Compare (pick two runs; ${picked.size} picked)`;
}

/**
 * The older run is the baseline, so a ratio reads "how the newer run did against the older". Two runs of different
 * plans get a warning that names each difference, and their ratios say neither better nor worse.
 */
export async function comparePicked() {
  const [baseline, candidate] = [...picked.values()].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  const result = await api(`/api/runs/compare?baseline=${baseline.id}&candidate=${candidate.id}`);
  const region = document.getElementById('comparison');
  const name = (run) => `${run.plan.strategy} (${dateTime(run.startedAt)})`;
  const differences = planDifferences(result.baseline, result.candidate, ownLoad);
  const plans = differences.length
    ? el('p', { className: 'plan-warning', attrs: { role: 'note' } }, [
      el('strong', { text: 'Different plans — not a fair comparison: ' }),
      `${differences.join('; ')}. The ratios below only describe; neither run is called better or worse.`,
    ])
    : el('p', { className: 'hint', text: `Same plan: ${planWords(result.baseline, ownLoad)}.` });
  // A Partial run's figures lack a share of its plan: the comparison names that before any ratio.
  const partial = [result.baseline, result.candidate].filter((run) => run.state === 'Partial').map((run) =>
    el('p', { className: 'plan-warning partial-warning', attrs: { role: 'note' } }, [
      el('strong', { text: `The ${name(run)} run is Partial, not the whole plan: ` }), run.error ?? 'some agent\'s share is missing.']));
  region.replaceChildren(
    el('h3', { text: `${name(result.candidate)} against ${name(result.baseline)}` }),
    plans,
    ...partial,
    el('div', { className: 'table-box' }, [
      el('table', { className: 'comparison-table' }, [
        el('thead', {}, [el('tr', {}, ['Figure', 'Ratio', 'Baseline (older)', 'Candidate (newer)'].map((text) => el('th', { text, attrs: { scope: 'col' } })))]),
        el('tbody', {}, result.metrics.map((metric) => metricRow(metric, differences.length === 0))),
      ]),
    ]),
  );
  region.dataset.differences = differences.join('; ');
  region.focus();
}

/** Ratio second, after its figure: the key column stays in sight in a narrow window. */
function metricRow(metric, comparable) {
  const verdict = !comparable || metric.ratio === null || metric.better === 'neither' || metric.ratio === 1 ? ''
    : (metric.better === 'lower') === (metric.ratio < 1) ? 'better' : 'worse';
  const ratio = metric.ratio === null ? '—' : `${metric.ratio.toFixed(metric.ratio < 10 ? 2 : 1)}×${verdict ? ` (${verdict})` : ''}`;
  return el('tr', {}, [
    el('th', { text: `${metric.metric} (${metric.unit})`, attrs: { scope: 'row' } }),
    el('td', { text: ratio, className: `num ratio${verdict ? ` ratio-${verdict}` : ''}` }),
    el('td', { text: ms(metric.baseline), className: 'num' }),
    el('td', { text: ms(metric.candidate), className: 'num' }),
  ]);
}
