// The five charts. Each strategy keeps one colour on every chart (Okabe–Ito, readable by colour-blind eyes).

const palette = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#7F7F7F'];
const colours = new Map();
const charts = {};
// Dashed lines get hollow legend boxes and points, so the dash pattern stays readable.
const hollow = '#ffffff';

export function assignColours(strategyNames) {
  strategyNames.forEach((name, index) => colours.set(name, palette[index % palette.length]));
}

export const colourOf = (strategy) => colours.get(strategy) ?? '#555555';

export const axis = (text, extra = {}) => ({ title: { display: true, text, font: { weight: 'bold' } }, ...extra });

/** Every chart of the page is made here, so large type reaches each. */
export function create(id, config) {
  charts[id] = new Chart(document.getElementById(id), {
    ...config,
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      plugins: { legend: { position: 'bottom' } },
      ...config.options,
    },
  });
  return charts[id];
}

/** Throughput on the left axis and latency on the right, against seconds: the live view and a run's stored series. */
function throughputAndLatencyOverTime(timeTitle, latencyTitle) {
  return {
    type: 'line',
    data: { datasets: [] },
    options: {
      parsing: false,
      interaction: { mode: 'nearest', intersect: false },
      scales: {
        x: axis(timeTitle, { type: 'linear', min: 0 }),
        y: axis('throughput (calls/s)', { type: 'linear', beginAtZero: true, position: 'left' }),
        y1: axis(latencyTitle, { type: 'linear', beginAtZero: true, position: 'right', grid: { drawOnChartArea: false } }),
      },
    },
  };
}

export function createCharts() {
  create('chart-live', throughputAndLatencyOverTime('elapsed since Start (s)', 'rolling latency (ms)'));
  create('chart-latest', {
    type: 'bar',
    data: { labels: ['wall time', 'p50 latency', 'p99 latency'], datasets: [] },
    options: {
      scales: {
        x: axis('figure of the latest completed run'),
        y: axis('milliseconds (log scale)', { type: 'logarithmic' }),
      },
    },
  });
  create('chart-distribution', {
    type: 'line',
    data: { datasets: [] },
    options: {
      parsing: false,
      scales: {
        x: axis('latency per call (ms, log scale)', { type: 'logarithmic' }),
        y: axis('calls in the bin', { beginAtZero: true }),
      },
    },
  });
  create('chart-history', {
    type: 'line',
    data: { labels: [], datasets: [] },
    options: {
      scales: {
        x: axis('run started (local time)'),
        y: axis('milliseconds (log scale)', { type: 'logarithmic' }),
      },
    },
  });
  create('chart-series', throughputAndLatencyOverTime('time into the measured phase (s)', 'latency (ms)'));
  create('chart-connections', {
    type: 'bar',
    data: { labels: [], datasets: [] },
    options: {
      plugins: { legend: { display: false } },
      scales: {
        x: axis('strategy'),
        // A floor below 1 keeps a one-connection bar visible on the log scale.
        y: axis('connections used (log scale)', { type: 'logarithmic', min: 0.5 }),
      },
    },
  });
}

/** Bigger type for a projector: Chart.js draws its text itself, so CSS alone cannot scale it. */
export function setLargeType(large) {
  const size = large ? 22 : 13;
  Chart.defaults.font.size = size;
  Object.values(charts).forEach((chart) => {
    const { options } = chart;
    options.plugins.legend.labels = { ...options.plugins.legend.labels, font: { size } };
    options.plugins.tooltip = { ...options.plugins.tooltip, titleFont: { size }, bodyFont: { size } };
    Object.values(options.scales).forEach((scale) => {
      scale.ticks = { ...scale.ticks, font: { size } };
      scale.title = { ...scale.title, font: { size, weight: 'bold' } };
    });
    chart.update();
  });
}

function describe(id, text) {
  document.getElementById(id).setAttribute('aria-label', text);
}

/** latest: one completed run per strategy, in the strategies' order. */
export function showLatest(latest) {
  const chart = charts['chart-latest'];
  chart.data.datasets = latest.map((run) => ({
    label: run.plan.strategy,
    data: [run.stats.wallTimeMs, run.stats.latency?.p50Ms ?? null, run.stats.latency?.p99Ms ?? null],
    backgroundColor: colourOf(run.plan.strategy),
  }));
  chart.update();
  describe('chart-latest', 'Latest run of each strategy: ' + latest.map((run) =>
    `${run.plan.strategy} wall ${run.stats.wallTimeMs} ms, p50 ${run.stats.latency?.p50Ms} ms, p99 ${run.stats.latency?.p99Ms} ms`).join('; '));

  const distribution = charts['chart-distribution'];
  distribution.data.datasets = latest.map((run) => ({
    label: run.plan.strategy,
    data: run.stats.histogram.map((bin) => ({ x: Math.sqrt(bin.fromMs * bin.toMs), y: bin.count })),
    borderColor: colourOf(run.plan.strategy),
    backgroundColor: colourOf(run.plan.strategy),
    pointRadius: 2,
    borderWidth: 3,
  }));
  distribution.update();

  const connections = charts['chart-connections'];
  connections.data.labels = latest.map((run) => run.plan.strategy);
  connections.data.datasets = [{
    label: 'connections used',
    data: latest.map((run) => run.stats.connectionsUsed),
    backgroundColor: latest.map((run) => colourOf(run.plan.strategy)),
  }];
  connections.update();
  describe('chart-connections', 'Connections used: ' + latest.map((run) => `${run.plan.strategy} ${run.stats.connectionsUsed}`).join(', '));
}

/** runs: one strategy's completed runs, oldest first. */
export function showHistory(strategy, runs, label) {
  const chart = charts['chart-history'];
  const colour = colourOf(strategy);
  chart.data.labels = runs.map((run) => label(run.startedAt));
  chart.data.datasets = [
    { label: `${strategy} wall time (ms)`, data: runs.map((run) => run.stats.wallTimeMs), borderColor: colour, backgroundColor: colour, borderWidth: 4, pointRadius: 4 },
    { label: 'p50 (ms)', data: runs.map((run) => run.stats.latency?.p50Ms ?? null), borderColor: colour, backgroundColor: hollow, borderDash: [2, 4], borderWidth: 2, pointRadius: 3 },
    { label: 'p99 (ms)', data: runs.map((run) => run.stats.latency?.p99Ms ?? null), borderColor: colour, backgroundColor: hollow, borderDash: [10, 6], borderWidth: 2, pointRadius: 3 },
  ];
  chart.update();
  describe('chart-history', `${strategy}: ${runs.length} runs over time; wall times ${runs.map((run) => run.stats.wallTimeMs).join(', ')} ms`);
}

/**
 * runs: stored runs with their time series. Each run's throughput per bucket is a solid line in its strategy's colour;
 * one run also shows p50, p99 and max, several show only their p99 (dashed), so a suite stays readable.
 */
export function showSeries(runs) {
  const chart = charts['chart-series'];
  const perSecond = (series, point) => point.calls / (series.intervalMs / 1000);
  const at = (point) => point.atMs / 1000;
  const single = runs.length === 1;
  chart.data.datasets = runs.filter((run) => run.series?.points.length).flatMap((run) => {
    const { series } = run;
    const colour = colourOf(run.plan.strategy);
    const line = (label, data, extra) => ({ label, data, borderColor: colour, backgroundColor: hollow, pointRadius: 0, borderWidth: 2, ...extra });
    const latency = (field) => series.points.filter((point) => point[field] !== null).map((point) => ({ x: at(point), y: point[field] }));
    const lines = [line(`${run.plan.strategy} calls/s`, series.points.map((point) => ({ x: at(point), y: perSecond(series, point) })), { yAxisID: 'y', borderWidth: 3, backgroundColor: colour })];
    lines.push(line(`${run.plan.strategy} p99 (ms)`, latency('p99Ms'), { yAxisID: 'y1', borderDash: [10, 6] }));
    if (single) {
      lines.push(line(`${run.plan.strategy} p50 (ms)`, latency('p50Ms'), { yAxisID: 'y1', borderDash: [2, 4] }));
      lines.push(line(`${run.plan.strategy} max (ms)`, latency('maxMs'), { yAxisID: 'y1', borderDash: [1, 2], borderWidth: 1 }));
    }
    return lines;
  });
  chart.update();
  const title = single ? `${runs[0].plan.strategy} (${runs[0].series ? `${runs[0].series.intervalMs} ms buckets` : 'no series'})` : `${runs.length} runs`;
  document.getElementById('series-title').textContent = `calls per second and latency of ${title}`;
  describe('chart-series', `Over time: ${runs.map((run) => `${run.plan.strategy}, ${run.series?.points.length ?? 0} points of ${run.series?.intervalMs ?? '—'} ms`).join('; ')}`);
}

// The live chart: one throughput line per strategy (its colour), and the rolling p50/p99 of whatever is running.
const maxLivePoints = 3000;

export function resetLive() {
  const chart = charts['chart-live'];
  chart.data.datasets = [
    { label: 'rolling p50 (ms)', yAxisID: 'y1', data: [], borderColor: '#333333', backgroundColor: hollow, borderDash: [2, 4], pointRadius: 0, borderWidth: 2 },
    { label: 'rolling p99 (ms)', yAxisID: 'y1', data: [], borderColor: '#333333', backgroundColor: hollow, borderDash: [10, 6], pointRadius: 0, borderWidth: 2 },
  ];
  chart.update();
}

const liveThroughput = (strategy) => charts['chart-live'].data.datasets.find((dataset) => dataset.label === `${strategy} calls/s`);

export function addLivePoint(strategy, seconds, snapshot) {
  const chart = charts['chart-live'];
  let throughput = liveThroughput(strategy);
  if (!throughput) {
    throughput = { label: `${strategy} calls/s`, yAxisID: 'y', data: [], borderColor: colourOf(strategy), backgroundColor: colourOf(strategy), pointRadius: 2, borderWidth: 3 };
    chart.data.datasets.push(throughput);
  }
  push(throughput.data, { x: seconds, y: snapshot.currentThroughputPerSecond });
  const [p50, p99] = chart.data.datasets;
  if (snapshot.rollingP50Ms !== null) push(p50.data, { x: seconds, y: snapshot.rollingP50Ms });
  if (snapshot.rollingP99Ms !== null) push(p99.data, { x: seconds, y: snapshot.rollingP99Ms });
  chart.update('none');
}

/** A run faster than the event ticks may end before a progress event shows it; plot its whole-run figures instead. */
export function addRunPoint(run, seconds) {
  if (!run.stats || liveThroughput(run.plan.strategy)?.data.length) return;
  addLivePoint(run.plan.strategy, seconds, {
    currentThroughputPerSecond: run.stats.throughputPerSecond,
    rollingP50Ms: run.stats.latency?.p50Ms ?? null,
    rollingP99Ms: run.stats.latency?.p99Ms ?? null,
  });
}

function push(points, point) {
  points.push(point);
  if (points.length > maxLivePoints) points.splice(0, points.length - maxLivePoints);
}
