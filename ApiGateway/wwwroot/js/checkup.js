// The "Check my client" panel: a checkup (POST /api/checkups) of the method picked in the run panel's Target and Method,
// within a time budget, followed over its event stream while it runs (what it measures now, and each item's card as soon
// as it is judged), then the prescription: one card per item in the record's order, with the advice, what was measured,
// the saving and the C# to paste, and the capacity sweep as a chart. A reload shows the latest checkup, or follows it.
// Everything the server says goes in as text.

import { api, clearErrors } from './api.js';
import { axis, create, palette } from './charts.js';
import { workPanel } from './panel.js';
import { el, ms, time, whole } from './format.js';
import { withoutStop } from './statuses.js';
import { pickedForLessons, readTarget } from './targets.js';

const $ = (id) => document.getElementById(id);
const outcomes = {
  advice: 'advice',
  'no-saving': 'no measurable saving',
  'not-applicable': 'does not apply',
  'not-measured': 'not measured',
};
// An item's card is made again only when the item changed: a Copy pressed while the checkup runs keeps its word.
const made = new Map();
let panel;
let sweepChart = null;

export async function initCheckup() {
  panel = workPanel({ root: $('checkup'), status: 'checkup-status', start: 'checkup-run', cancel: 'checkup-cancel' });
  $('checkup-form').addEventListener('submit', (event) => {
    event.preventDefault();
    run().catch(panel.fail);
  });
  $('checkup-cancel').addEventListener('click', () => panel.cancel().catch(panel.fail));
  showWhere();
  document.addEventListener('target-picked', showWhere);
  $('checkup-run').disabled = false;
  const [latest] = (await api('/api/checkups?limit=1')).checkups;
  if (latest?.checkup.state === 'Running') follow(latest.checkup);
  else if (latest) finish(latest.checkup);
}

function showWhere() {
  const pick = pickedForLessons();
  $('checkup-where').textContent = pick
    ? `The checkup runs on ${pick.where} (${pick.kind}), with the request in the run panel's Request box.`
    : 'Pick a method in the run panel\'s Target and Method (the built-in service\'s or your own target\'s): the checkup measures one method, with its request.';
}

/** The checkup's body from the picker and the panel's fields, or a sentence saying why it cannot start. */
function checkupBody() {
  const pick = pickedForLessons();
  if (!pick) return { refusal: 'no method is picked: pick one in the run panel\'s Target and Method.' };
  const target = readTarget();
  if (!target) return { refusal: 'the request in the run panel is not JSON: its sentence is under it.' };
  const budgetSeconds = $('checkup-budget').valueAsNumber;
  const inFlight = $('checkup-in-flight').valueAsNumber;
  return {
    body: {
      ...target,
      ...(Number.isFinite(budgetSeconds) ? { budgetSeconds } : {}),
      ...(Number.isFinite(inFlight) ? { inFlight } : {}),
    },
  };
}

async function run() {
  clearErrors();
  // Refused (a field out of range, another checkup running, the target unreachable): its own sentence, here.
  const answer = await panel.post('/api/checkups', checkupBody());
  if (answer) follow(answer.checkup);
}

function follow(record) {
  let last = record;
  panel.setBusy(true);
  panel.setState('running');
  show(record);
  panel.progress(runningWords(record));
  panel.follow('checkups', record.id, 'checkup', {
    checkup: ({ checkup }) => {
      if (checkup.state !== 'Running') return;
      last = checkup;
      show(checkup);
      panel.progress(runningWords(checkup));
    },
    // The record changes only when a measurement ends, so a quiet stream is the rule: the clock goes on, and only a
    // dropped stream, or one quiet past the budget, is news.
    silent: (quiet, why, noNews) => {
      if (/dropped/.test(why) || quiet > last.budgetSeconds) noNews(quiet, why);
      else panel.progress(runningWords(last));
    },
    final: ({ checkup }) => finish(checkup),
  });
}

/** "2 of 7: the capacity sweep, 8 in flight — 41 of 120 s", and the bar by the budget spent. */
function runningWords(record) {
  const spent = (Date.now() - new Date(record.startedAt)) / 1000;
  $('checkup-progress').value = Math.min(1, Math.max(0, spent / record.budgetSeconds));
  return `${record.step ?? 'Starting'} — ${whole(Math.max(0, spent))} of ${whole(record.budgetSeconds)} s.`;
}

function finish(record) {
  panel.ended();
  show(record);
  const took = record.finishedAt ? ` in ${((new Date(record.finishedAt) - new Date(record.startedAt)) / 1000).toFixed(1)} s` : '';
  if (record.state === 'Completed') $('checkup-progress').value = 1;
  const advice = record.items.filter((item) => item.outcome === 'advice').length;
  panel.say({
    Completed: `Completed at ${time(record.finishedAt ?? record.startedAt)}${took}: ${record.items.length} items, ${advice} with advice.`,
    Cancelled: `Cancelled${took} — ${withoutStop(record.error ?? 'on request')}.`,
  }[record.state] ?? `Failed${took} — ${withoutStop(record.error ?? 'no reason given')}.`);
  panel.setState(record.state === 'Failed' ? 'error' : 'done');
}

/** The record so far: where it ran, its caveats, the sweep and one card per item judged. */
function show(record) {
  $('checkup').dataset.checkup = record.id;
  $('checkup-result').hidden = false;
  $('checkup-on').textContent = `${record.call} on ${record.target ?? record.address}${record.streamCall ? ` (the stream measured on ${record.streamCall})` : ''}, ` +
    `started ${time(record.startedAt)}, budget ${whole(record.budgetSeconds)} s, ${record.inFlight} in flight.`;
  $('checkup-caveats').replaceChildren(...record.caveats.map((caveat) => el('li', { text: caveat })));
  $('checkup-error').textContent = record.error && record.state !== 'Running' ? `The checkup ${record.state === 'Cancelled' ? 'was cancelled' : 'stopped'}: ${withoutStop(record.error)}.` : '';
  $('checkup-error').hidden = !$('checkup-error').textContent;
  $('checkup-items').replaceChildren(...record.items.map(cardOf));
  drawSweep(record.sweep);
}

function cardOf(item) {
  const key = JSON.stringify(item);
  const known = made.get(item.id);
  if (known?.key === key) return known.card;
  const card = makeCard(item);
  made.set(item.id, { key, card });
  return card;
}

function makeCard(item) {
  const title = `checkup-item-${item.id}`;
  const parts = [
    el('h3', { attrs: { id: title } }, [el('span', { className: 'lesson-number', text: `${item.number}.` }), ` ${item.title} `,
      el('span', { className: `badge outcome ${item.outcome}`, text: outcomes[item.outcome] ?? item.outcome })]),
    el('p', { className: 'checkup-advice', text: item.advice }),
  ];
  if (item.measured) parts.push(...measured(item.measured));
  if (item.saving) parts.push(el('p', { className: 'checkup-saving' }, [el('strong', { text: 'Saving: ' }), item.saving.sentence]));
  if (item.code) parts.push(codeBlock(item));
  if (item.runs.length) {
    parts.push(el('p', { className: 'checkup-runs hint' }, ['From the runs ', ...item.runs.flatMap((id, index) => [
      index ? ', ' : '', el('a', { text: id.slice(0, 8), attrs: { href: `/api/runs/${id}`, title: `GET /api/runs/${id}` } }),
    ]), '.']));
  }
  return el('article', { className: 'checkup-item', attrs: { id: `checkup-${item.id}`, 'data-item': item.id, 'data-outcome': item.outcome, 'aria-labelledby': title } }, parts);
}

/** The sentence, then the arms and, when two arms were compared, the ratio, its range and the noise badge in words. */
function measured(measure) {
  const arms = `${measure.other} against ${measure.baseline}, ${measure.figure}`;
  if (measure.ratio === null) {
    return [el('p', { className: 'checkup-measured', text: measure.sentence }), el('p', { className: 'checkup-ratio hint', text: `${arms}.` })];
  }
  const range = measure.range ? ` (${measure.range.min}–${measure.range.max}× over ${measure.ratios.length} repetitions)` : '';
  return [
    el('p', { className: 'checkup-measured', text: measure.sentence }),
    el('p', { className: 'checkup-ratio hint' }, [
      `${arms}: ${measure.ratio}×${range} `,
      el('span', { className: `badge ${measure.beyondNoise ? 'beyond' : 'within'}`, text: measure.beyondNoise ? 'beyond noise' : 'within noise' }),
    ]),
  ];
}

function codeBlock(item) {
  const code = el('code', { text: item.code });
  const copy = el('button', { className: 'copy', text: 'Copy', attrs: { type: 'button', 'aria-label': `Copy the code: ${item.title}` } });
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(item.code);
      copy.textContent = 'Copied';
    } catch {
      // No clipboard here (an insecure origin, a denied permission): the code is selected for Ctrl+C instead.
      getSelection().selectAllChildren(code);
      copy.textContent = 'Selected: press Ctrl+C';
    }
  });
  return el('div', { className: 'checkup-code' }, [el('pre', {}, [code]), copy]);
}

/** Calls per second (solid) and p99 (dashed, right) against calls in flight, the knee a diamond; the p99 bound in words. */
function drawSweep(sweep) {
  const figure = $('checkup-sweep');
  figure.hidden = !sweep?.steps?.length;
  if (figure.hidden) return;
  const chart = sweepChart ?? (sweepChart = createSweepChart());
  const steps = sweep.steps;
  const knee = sweep.knee?.inFlight;
  chart.data.labels = steps.map((step) => step.inFlight);
  chart.data.datasets = [
    { label: 'calls/s', data: steps.map((step) => step.callsPerSecond), borderColor: palette[0], backgroundColor: palette[0], yAxisID: 'y', valueLabels: false },
    { label: 'p99 ms', data: steps.map((step) => step.p99Ms), borderColor: palette[1], backgroundColor: palette[1], borderDash: [8, 4], pointStyle: 'rect', yAxisID: 'y1', valueLabels: false },
    ...(knee === undefined ? [] : [{
      label: `knee: ${knee} in flight, ${whole(sweep.knee.callsPerSecond)} calls/s`,
      data: steps.map((step) => (step.inFlight === knee ? step.callsPerSecond : null)),
      borderColor: palette[6], backgroundColor: palette[4], pointStyle: 'rectRot', pointRadius: 10, pointBorderWidth: 2, showLine: false, yAxisID: 'y', valueLabels: false,
    }]),
  ];
  chart.update();
  const kneeWords = sweep.knee
    ? `the knee at ${sweep.knee.inFlight} in flight: ${whole(sweep.knee.callsPerSecond)} calls/s, p99 ${ms(sweep.knee.p99Ms)} ms` +
      `${sweep.streamsPerConnection ? `, about ${ms(sweep.streamsPerConnection)} streams per connection` : ''}`
    : 'no knee found';
  figure.querySelector('figcaption').textContent = `The capacity sweep on one connection: ${kneeWords}; it stopped because ${withoutStop(sweep.stoppedBecause)} (p99 bound ${ms(sweep.p99BoundMs)} ms).`;
  $('chart-checkup-sweep').setAttribute('aria-label', `Calls per second and p99 by calls in flight: ${steps.map((step) =>
    `${step.inFlight} in flight ${whole(step.callsPerSecond)} calls/s, p99 ${ms(step.p99Ms)} ms`).join('; ')}; ${kneeWords}.`);
}

function createSweepChart() {
  return create('chart-checkup-sweep', {
    type: 'line',
    data: { labels: [], datasets: [] },
    options: {
      interaction: { mode: 'index', intersect: false },
      scales: {
        x: axis('calls in flight'),
        y: axis('calls per second', { beginAtZero: true, position: 'left' }),
        y1: axis('p99 (ms)', { beginAtZero: true, position: 'right', grid: { drawOnChartArea: false } }),
      },
    },
  });
}
