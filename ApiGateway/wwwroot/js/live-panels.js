// The live view: one small panel per strategy of the current run or suite, each with its own throughput scale, its own
// rolling p50/p99 and its elapsed and expected time. A strategy that has ended shows its stored time series, so a
// reload draws the same; the one still running keeps its live points in the tab's session storage meanwhile.

import { axis, create, perSecond, atSeconds, remove, styleOf } from './charts.js';
import { el, ms, whole } from './format.js';
import { errorsSentence } from './statuses.js';

const maxPoints = 3000;
const storageKey = (runId) => `grpcbp.live.${runId}`;
const panels = new Map();
let saved = 0;

const seconds = (valueMs) => (valueMs === null || valueMs === undefined ? '—' : `${(valueMs / 1000).toFixed(valueMs < 10000 ? 1 : 0)} s`);

/** Replaces the panels by one per strategy, in the order they run; plan says what they run, in words. */
export function showLivePanels(strategies, planWords) {
  for (const panel of panels.values()) remove(panel.canvasId);
  panels.clear();
  const box = document.getElementById('live-panels');
  box.replaceChildren(...strategies.map((strategy, index) => panelFor(strategy, index)));
  document.getElementById('live-plan').textContent = planWords ? `Live, ${planWords}:` : 'Live:';
}

function panelFor(strategy, index) {
  const style = styleOf(strategy);
  const canvasId = `chart-live-${index}`;
  const swatch = el('span', { className: 'swatch', attrs: { 'aria-hidden': 'true' } });
  swatch.style.background = style.colour;
  const info = el('p', { className: 'live-info', text: 'waiting for its turn', attrs: { 'aria-live': 'off' } });
  const canvas = el('canvas', { attrs: { id: canvasId, role: 'img', 'aria-label': `${strategy}: calls per second and rolling p50 and p99 latency, live` } });
  const figure = el('figure', { className: 'chart live-panel', attrs: { 'data-strategy': strategy } }, [
    el('figcaption', {}, [el('span', {}, [swatch, strategy])]),
    info,
    el('div', { className: 'canvas-box' }, [canvas]),
  ]);
  figure.style.borderTopColor = style.colour;
  // The canvas must be in the page before Chart.js measures it.
  queueMicrotask(() => {
    const line = (label, yAxisID, extra) => ({ label, yAxisID, data: [], borderColor: style.colour, backgroundColor: '#ffffff', pointStyle: style.pointStyle, pointRadius: 0, borderWidth: 2, ...extra });
    const chart = create(canvasId, {
      type: 'line',
      data: {
        datasets: [
          line('calls/s', 'y', { borderWidth: 3, backgroundColor: style.colour, pointRadius: 2 }),
          // Their latest values are in the line above the chart; a label at each line's end would crowd a small panel.
          line('p50 (ms)', 'y1', { borderDash: [2, 4], valueLabels: false }),
          line('p99 (ms)', 'y1', { borderDash: [10, 6], valueLabels: false }),
        ],
      },
      options: {
        parsing: false,
        interaction: { mode: 'nearest', intersect: false },
        plugins: { values: { format: (value) => `${whole(value)}/s` } },
        scales: {
          x: axis('s into the measured calls', { type: 'linear', min: 0 }),
          y: axis('calls/s', { type: 'linear', beginAtZero: true, position: 'left' }),
          y1: axis('ms', { type: 'linear', beginAtZero: true, position: 'right', grid: { drawOnChartArea: false } }),
        },
      },
    });
    const panel = panels.get(strategy);
    panel.chart = chart;
    if (panel.pending) draw(panel);
  });
  panels.set(strategy, { canvasId, info, chart: null, runId: null, points: [], pending: false, last: null });
  return figure;
}

function draw(panel) {
  if (!panel.chart) {
    panel.pending = true;
    return;
  }
  panel.pending = false;
  const [throughput, p50, p99] = panel.chart.data.datasets;
  throughput.data = panel.points.map(([x, y]) => ({ x, y }));
  p50.data = panel.points.filter((point) => point[2] !== null).map(([x, , y]) => ({ x, y }));
  p99.data = panel.points.filter((point) => point[3] !== null).map(([x, , , y]) => ({ x, y }));
  panel.chart.update('none');
}

/** A progress event of run runId (strategy). Warm-up is only reported: the points are the measured phase's, as stored. */
export function addLivePoint(strategy, runId, progress, plan) {
  const panel = panels.get(strategy);
  if (!panel) return;
  if (panel.runId !== runId) {
    panel.runId = runId;
    panel.points = readSaved(runId);
    panel.last = null;
  }
  const rate = succeededPerSecond(panel, progress);
  if (progress.phase === 'Measured' || progress.phase === 'Finished') {
    panel.points.push([progress.elapsedMs / 1000, rate, progress.rollingP50Ms, progress.rollingP99Ms]);
    if (panel.points.length > maxPoints) panel.points.splice(0, panel.points.length - maxPoints);
    save(panel);
    draw(panel);
  }
  panel.info.textContent = progress.phase === 'Warmup' ? `warm-up, ${whole(progress.completed)} calls`
    : `${seconds(progress.elapsedMs)} of ~${seconds(expectedMs(progress, plan))} · ${whole(rate)} calls/s` +
      ` · p50 ${ms(progress.rollingP50Ms)} ms · p99 ${ms(progress.rollingP99Ms)} ms${progress.failed ? ` · ${whole(progress.failed)} failed` : ''}`;
}

/**
 * The tick's successful calls per second: the engine's rate counts every call that ended, failures too, and a run's
 * throughput counts successes only, so the tick's share of successes scales it (a tick of refusals is 0 calls/s).
 */
function succeededPerSecond(panel, progress) {
  // Each phase counts from zero.
  const last = panel.last?.phase === progress.phase ? panel.last : { completed: 0, succeeded: 0 };
  panel.last = { phase: progress.phase, completed: progress.completed, succeeded: progress.succeeded };
  const ended = progress.completed - last.completed;
  if (ended <= 0) return progress.currentThroughputPerSecond;
  return progress.currentThroughputPerSecond * Math.max(0, progress.succeeded - last.succeeded) / ended;
}

/** The time the measured phase will take: its duration, or the calls left at the current rate. */
function expectedMs(progress, plan) {
  const byDuration = progress.durationMs ?? (plan?.duration ? plan.duration * 1000 : null);
  const rate = progress.currentThroughputPerSecond;
  const byCount = progress.total > 0 && rate > 0 ? progress.elapsedMs + ((progress.total - progress.completed) / rate) * 1000 : null;
  if (byDuration !== null && byCount !== null) return Math.min(byDuration, byCount);
  return byDuration ?? byCount;
}

/** run: a stored run with its series (GET /api/runs/{id}); its panel then shows what the history holds. */
export function showStoredRun(run) {
  const panel = panels.get(run.plan.strategy);
  if (!panel) return;
  panel.runId = run.id;
  const series = run.series;
  panel.points = series?.points.map((point) => [atSeconds(point), perSecond(series, point), point.p50Ms, point.p99Ms]) ?? [];
  sessionStorage.removeItem(storageKey(run.id));
  draw(panel);
  const stats = run.stats;
  // A Partial run has figures, but not the whole plan's: its sentence says whose share is missing. A completed run's
  // note says what its figures alone do not (calls that failed to connect while the service kept answering).
  const partial = run.state === 'Partial' ? ` — ${run.error}` : run.note ? ` — ${run.note}` : '';
  panel.info.className = `live-info state-${run.state}`;
  panel.info.textContent = !stats ? `${run.state.toLowerCase()}${run.error ? `: ${run.error}` : ''}`
    : `${run.state.toLowerCase()} in ${seconds(stats.wallTimeMs)} · ${whole(stats.throughputPerSecond)} calls/s · p50 ${ms(stats.latency?.p50Ms)} ms · p99 ${ms(stats.latency?.p99Ms)} ms${partial}${errorsSentence(stats)}`;
}

/** A run shared among agents draws no live points (the gateway sees only their summed calls): its panel says where they are. */
export function setLiveInfo(strategy, text) {
  const panel = panels.get(strategy);
  if (panel) panel.info.textContent = text;
}

/** A reload during a run: the points this tab drew before it, until the run ends and its stored series replaces them. */
export function resumeRun(strategy, runId) {
  const panel = panels.get(strategy);
  if (!panel) return;
  panel.runId = runId;
  panel.points = readSaved(runId);
  panel.info.textContent = 'running';
  draw(panel);
}

function readSaved(runId) {
  try {
    return JSON.parse(sessionStorage.getItem(storageKey(runId)) ?? '[]');
  } catch {
    return [];
  }
}

/** At most once a second: the points are only a stand-in until the run's stored series exists. */
function save(panel) {
  const now = performance.now();
  if (now - saved < 1000) return;
  saved = now;
  try {
    sessionStorage.setItem(storageKey(panel.runId), JSON.stringify(panel.points));
  } catch {
    // A full session storage only costs the stand-in after a reload.
  }
}
