// The Protocols part: a workload of the published benchmarks, the contenders to run it, the repetitions; Start runs a
// comparison (POST /api/comparisons), follows it live and draws its summary. A reload shows the latest one again.

import { api, clearErrors, showError } from './api.js';
import { withoutStop } from './statuses.js';
import { doneFraction, progressText } from './live.js';
import { el, ms, time, whole } from './format.js';
import { workPanel } from './panel.js';
import { apiKey, colourOfApi, partsOf, showComparison } from './protocol-charts.js';

const $ = (id) => document.getElementById(id);
// The grid's columns: each HTTP version with each security, as a run request names them.
const transports = [['1.1', 'cleartext', 'HTTP/1.1 · cleartext'], ['1.1', 'tls', 'HTTP/1.1 · TLS'], ['2', 'cleartext', 'HTTP/2 · cleartext (h2c)'], ['2', 'tls', 'HTTP/2 · TLS']];
// The table's figures, in the charts' order.
const columns = [
  ['meanMs', 'mean ms', ms], ['p50Ms', 'p50 ms', ms], ['p99Ms', 'p99 ms', ms], ['throughputPerSecond', 'calls/s', whole],
  ['bytesSentPerCall', 'sent B/call', whole], ['bytesReceivedPerCall', 'received B/call', whole],
  ['clientAllocatedBytesPerCall', 'gateway alloc. B/call', whole], ['serviceAllocatedBytesPerCall', 'service alloc. B/call', whole],
];
let catalog = null;
const panel = workPanel({ root: $('protocols'), status: 'protocol-status', start: 'protocol-start', cancel: 'protocol-cancel' });
const say = panel.say;

export async function initProtocols() {
  $('protocol-form').addEventListener('submit', (event) => {
    event.preventDefault();
    start().catch(panel.fail);
  });
  $('protocol-cancel').addEventListener('click', () => panel.cancel().catch(showError));
  $('workload').addEventListener('change', showWorkload);
  $('contenders-all').addEventListener('click', () => tickAll(true));
  $('contenders-none').addEventListener('click', () => tickAll(false));
  showKey();

  catalog = await api('/api/workloads');
  $('workload').append(...catalog.workloads.map((workload) => el('option', { text: `${workload.id}: ${workload.title}`, attrs: { value: workload.id } })));
  buildContenderGrid();
  showWorkload();
  await showLatest();
}

const selectedWorkload = () => catalog.workloads.find((workload) => workload.id === $('workload').value);

const boxes = () => [...document.querySelectorAll('#contender-grid input[type=checkbox]')];

/** One row per API (protocol and serializer), one column per transport and security; gRPC has no HTTP/1.1 cell. */
function buildContenderGrid() {
  const apis = new Map();
  for (const contender of catalog.contenders) {
    const api = partsOf(contender.name).api;
    apis.set(api, [...(apis.get(api) ?? []), contender]);
  }
  $('contender-grid').querySelector('tbody').replaceChildren(...[...apis].map(([apiName, contenders]) => {
    const swatch = el('span', { className: 'swatch', attrs: { 'aria-hidden': 'true' } });
    swatch.style.backgroundColor = colourOfApi(apiName);
    const cells = transports.map(([version, security]) => {
      const contender = contenders.find((candidate) => candidate.httpVersion === version && candidate.security === security);
      if (!contender) return el('td', { text: '—', className: 'none', attrs: { title: 'No such contender: gRPC needs HTTP/2.' } });
      const box = el('input', { attrs: { type: 'checkbox', value: contender.name, 'data-protocol': contender.protocol, 'data-available': String(contender.available) } });
      const label = el('label', { className: 'contender', attrs: { title: contender.available ? contender.label : contender.unavailable } },
        [box, contender.available ? contender.name : `${contender.name} (not configured here)`]);
      box.setAttribute('aria-label', contender.label);
      return el('td', {}, [label]);
    });
    return el('tr', {}, [el('th', { attrs: { scope: 'row' } }, [swatch, contenders[0].label.split(' · ').slice(0, 2).join(' · ')]), ...cells]);
  }));
}

/** Ticks (or clears) every contender that can run the workload with the chosen settings on this gateway: the default is all. */
function tickAll(checked) {
  for (const box of boxes()) box.checked = checked && !box.disabled;
  applyValidity();
}

/**
 * A contender the gateway has no listener for cannot be picked; nor REST when bulk-read is read as one server stream,
 * which only gRPC has (the variant setting's own description says so).
 */
function applyValidity() {
  const streamOnly = document.querySelector('#workload-parameters [name=variant]')?.value === 'stream';
  for (const box of boxes()) {
    box.disabled = box.dataset.available !== 'true' || (streamOnly && box.dataset.protocol === 'rest');
    if (box.disabled) box.checked = false;
  }
}

function showWorkload() {
  const workload = selectedWorkload();
  $('workload-about').replaceChildren(
    el('strong', { text: workload.title }), `: ${workload.what} `,
    el('span', { className: 'hint', text: `From the ${workload.source} study. Default ${workload.defaultCount.toLocaleString('en-US')} calls per run.` }));
  $('protocol-count').value = workload.defaultCount;
  $('workload-parameters').replaceChildren(...workload.parameters.map(parameterField));
  $('workload-parameters').hidden = workload.parameters.length === 0;
  // What each setting does, once, under the form (the fields carry only their names).
  $('parameter-help').replaceChildren(...workload.parameters.map((parameter) => el('li', {}, [el('strong', { text: parameter.name }), `: ${parameter.what} Allowed: ${parameter.allowed}.`])));
  tickAll(true);
}

/** A workload's own setting: a number field within its range, or a choice of its values; the default is filled in. */
function parameterField(parameter) {
  const id = `parameter-${parameter.name}`;
  let field;
  if (/^\d+$/.test(parameter.default)) {
    const [, min, max] = /^(\d+) to (\d+)/.exec(parameter.allowed) ?? [];
    const attrs = { id, name: parameter.name, type: 'number', inputmode: 'numeric', step: /multiple of (\d+)/.exec(parameter.allowed)?.[1] ?? '1' };
    if (min) Object.assign(attrs, { min, max });
    field = el('input', { attrs });
    field.value = parameter.default;
  } else {
    field = el('select', { attrs: { id, name: parameter.name } },
      parameter.allowed.split(/, | or /).map((value) => el('option', { text: value, attrs: { value } })));
    field.value = parameter.default;
    // A choice may change which contenders can run (bulk-read's stream): back to every one that can.
    field.addEventListener('change', () => tickAll(true));
  }
  field.setAttribute('aria-describedby', 'parameter-help');
  return el('label', {}, [`${parameter.name} `, el('span', { className: 'hint', text: `default ${parameter.default}` }), field]);
}

/** The request body from the form; the browser's own messages explain a bad number next to its field, the API the rest. */
function readComparison() {
  if (!$('protocol-form').reportValidity()) return null;
  const number = (id) => ($(id).value === '' ? undefined : Number($(id).value));
  const body = {
    workload: $('workload').value,
    contenders: boxes().filter((box) => box.checked).map((box) => box.value),
    repetitions: number('repetitions'),
    count: number('protocol-count'),
    warmup: number('protocol-warmup'),
  };
  for (const field of document.querySelectorAll('#workload-parameters [name]')) {
    if (field.value !== '') body[field.name] = field.type === 'number' ? Number(field.value) : field.value;
  }
  return body;
}

async function start() {
  const body = readComparison();
  if (!body) return;
  clearErrors();
  panel.setBusy(true);
  panel.setState('running');
  say('Starting…');
  $('protocol-progress').value = 0;
  let view;
  try {
    view = await api('/api/comparisons', { method: 'POST', body });
  } catch (failure) {
    panel.setBusy(false);
    throw failure;
  }
  followComparison(view);
}

function followComparison(view) {
  panel.setBusy(true);
  panel.setState('running');
  say(`Comparing ${view.contenders.length} contenders on ${view.workload}: ${view.repetitions} repetitions, ${view.schedule.length} runs one after another…`);
  panel.follow('comparisons', view.id, 'comparison', {
    progress: ({ strategy, index, of, progress }) => {
      $('protocol-progress').value = doneFraction(index, of, progress);
      const repetition = Math.floor((index - 1) / view.contenders.length) + 1;
      panel.progress(`Run ${index} of ${of} (repetition ${repetition} of ${view.repetitions}): ${strategy} — ${progressText(progress)}`);
    },
    run: (run) => say(`${run.plan.strategy} ${run.state.toLowerCase()}: ${ms(run.stats?.latency?.meanMs)} ms mean per call${run.error ? ` — ${withoutStop(run.error)}` : ''}.`),
    final: (final) => finish(final),
  });
}

function finish(final) {
  panel.ended();
  render(final);
  if (final.state === 'Failed') {
    say(`The comparison failed — ${withoutStop(final.error ?? 'no reason given')}.`);
    showError(new Error(`The comparison failed: ${final.error ?? 'no reason given'}`));
    panel.setState('error');
    return;
  }
  $('protocol-progress').value = final.state === 'Completed' ? 1 : $('protocol-progress').value;
  say(final.state === 'Completed'
    ? `Completed at ${time(final.finishedAt ?? new Date().toISOString())}: ${final.schedule.length} runs, each in the history.`
    : `Cancelled — ${final.error ?? 'on request'}.`);
  panel.setState('done');
}

/** The sentence, the charts and the table of one comparison. */
function render(view) {
  $('protocol-result').hidden = false;
  $('protocol-sentence').textContent = view.sentence;
  const bound = view.plan.count ? `${view.plan.count.toLocaleString('en-US')} calls` : `${view.plan.duration} s`;
  $('protocol-about').textContent = `${view.workload}, ${bound} per run after ${view.plan.warmup} warm-up calls, ${view.plan.load}; ` +
    `${view.contenders.length} contenders × ${view.repetitions} repetitions, interleaved; started ${time(view.startedAt)}, ${view.state.toLowerCase()}. ` +
    'Bars are the median of the repetitions; whiskers and the ranges in the table run from the smallest to the largest.';
  showComparison(view.summary);
  showTable(view);
}

function showTable(view) {
  const rank = (name) => view.ranking?.order.indexOf(name) ?? -1;
  $('protocol-table').querySelector('tbody').replaceChildren(...view.summary.map((contender) => {
    const swatch = el('span', { className: `swatch${partsOf(contender.contender).tls ? ' tls' : ''}`, attrs: { 'aria-hidden': 'true' } });
    swatch.style.backgroundColor = colourOfApi(partsOf(contender.contender).api);
    const place = contender.failed ? `failed: ${contender.failure}` : rank(contender.contender) >= 0 ? `rank ${rank(contender.contender) + 1}` : 'not ranked';
    const saw = contender.serverSaw.map((seen) => `${seen.httpVersion}, ${seen.tls === 'none' ? 'no TLS' : seen.tls}`).join('; ') || '—';
    return el('tr', { className: contender.failed ? 'failed' : '' }, [
      el('th', { attrs: { scope: 'row' } }, [swatch, contender.label,
        el('span', { className: `range${contender.failed ? ' state-Failed' : ''}`, text: `${contender.completedRuns} of ${contender.runIds.length} runs completed · ${place}` })]),
      ...columns.map(([figure, , format]) => {
        const range = contender.figures[figure];
        return el('td', { className: 'num' }, range ? [format(range.median), el('span', { className: 'range', text: `${format(range.min)}–${format(range.max)}` })] : ['—']);
      }),
      el('td', { text: saw }),
    ]);
  }));
}

/** What the bars' colours and stripes stand for, once, above the charts. */
function showKey() {
  const swatch = (colour, tls) => {
    const mark = el('span', { className: `swatch${tls ? ' tls' : ''}`, attrs: { 'aria-hidden': 'true' } });
    mark.style.backgroundColor = colour;
    return mark;
  };
  $('protocol-key').replaceChildren(
    ...apiKey.map(({ name, colour }) => el('li', {}, [swatch(colour, false), name])),
    el('li', {}, [swatch('#4a5560', true), 'striped: TLS']));
}

/** After a reload: the latest comparison from the API, followed live if it is still running, its settings in the form. */
async function showLatest() {
  const [latest] = (await api('/api/comparisons?limit=1')).comparisons;
  if (!latest) {
    panel.setState('idle');
    return;
  }
  if (catalog.workloads.some((workload) => workload.id === latest.workload)) {
    $('workload').value = latest.workload;
    showWorkload();
    for (const box of boxes()) box.checked = !box.disabled && latest.contenders.includes(box.value);
    $('repetitions').value = latest.repetitions;
    if (latest.plan.count) $('protocol-count').value = latest.plan.count;
  }
  if (latest.state === 'Running') {
    followComparison(latest);
    return;
  }
  render(latest);
  $('protocol-progress').value = latest.state === 'Completed' ? 1 : 0;
  say(`The latest comparison, started ${time(latest.startedAt)} (${latest.state.toLowerCase()}).`);
  panel.setState('done');
}
