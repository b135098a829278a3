// The page's charts. Each strategy keeps one colour (Okabe–Ito, readable by colour-blind eyes), one point shape and one
// dash on every chart, and every figure that matters is written on the chart as well as drawn.

import { facts } from './facts.js';
import { ms, whole } from './format.js';

export const palette = facts.palette;
const pointStyles = ['circle', 'rect', 'triangle', 'rectRot', 'star', 'crossRot', 'rectRounded', 'cross'];
const dashes = [[], [12, 4], [4, 4], [12, 4, 2, 4], [2, 3], [18, 6]];
const styles = new Map();
const charts = {};
// Dashed lines get hollow legend boxes and points, so the dash pattern stays readable.
const hollow = '#ffffff';

export function assignColours(strategyNames) {
  strategyNames.forEach((name, index) => styles.set(name, {
    colour: palette[index % palette.length],
    pointStyle: pointStyles[index % pointStyles.length],
    dash: dashes[index % dashes.length],
  }));
}

export const colourOf = (strategy) => styles.get(strategy)?.colour ?? facts.unknownColour;

/** The strategy's colour, point shape and dash, so a line or marker reads without colour too. */
export const styleOf = (strategy) => styles.get(strategy) ?? { colour: facts.unknownColour, pointStyle: 'circle', dash: [] };

export const axis = (text, extra = {}) => ({ title: { display: true, text, font: { weight: 'bold' } }, ...extra });

/**
 * Writes each value on the chart: above each bar (turned upright when the bar is too narrow for it), and beside the
 * last point of each line. A dataset opts out with valueLabels: false; options.plugins.values.format formats a value.
 */
const valueLabels = {
  id: 'values',
  afterDatasetsDraw(chart, _args, options) {
    const { ctx } = chart;
    const format = options.format ?? ((value) => ms(value));
    const size = Math.round(Chart.defaults.font.size * 0.85);
    ctx.save();
    ctx.font = `600 ${size}px ${Chart.defaults.font.family}`;
    ctx.fillStyle = '#111418';
    chart.data.datasets.forEach((dataset, index) => {
      const meta = chart.getDatasetMeta(index);
      if (dataset.valueLabels === false || meta.hidden) return;
      const value = (point) => (typeof point === 'object' && point !== null ? point.y : point);
      if (meta.type === 'bar') {
        meta.data.forEach((bar, at) => {
          const raw = value(dataset.data[at]);
          if (raw === null || raw === undefined || Number.isNaN(bar.y)) return;
          const text = format(raw, dataset, at);
          const width = ctx.measureText(text).width;
          // A bar with a whisker (see whiskers) has its label above the whisker's top, not across it.
          const range = dataset.ranges?.[at];
          const top = range ? Math.min(bar.y, chart.scales[meta.yAxisID].getPixelForValue(range.max)) : bar.y;
          if (width + 2 <= bar.width) {
            ctx.textAlign = 'center';
            ctx.textBaseline = 'bottom';
            ctx.fillText(text, bar.x, top - 2);
          } else {
            ctx.save();
            ctx.translate(bar.x, top - 3);
            ctx.rotate(-Math.PI / 2);
            ctx.textAlign = 'left';
            ctx.textBaseline = 'middle';
            ctx.fillText(text, 0, 0);
            ctx.restore();
          }
        });
      } else {
        const last = meta.data.length - 1;
        if (last < 0 || options.lastOnly === false) return;
        const raw = value(dataset.data[last]);
        if (raw === null || raw === undefined) return;
        const point = meta.data[last];
        ctx.textAlign = 'right';
        ctx.textBaseline = 'bottom';
        ctx.fillText(format(raw, dataset, last), Math.min(point.x, chart.chartArea.right), point.y - 4);
      }
    });
    ctx.restore();
  },
};

// Chart.js has no error bars of its own: each dataset's `ranges` ({min, max} per bar) is drawn over its bars.
export const whiskers = {
  id: 'whiskers',
  afterDatasetsDraw(chart) {
    const { ctx } = chart;
    const y = chart.scales.y;
    ctx.save();
    ctx.strokeStyle = '#111418';
    ctx.lineWidth = 1.5;
    chart.data.datasets.forEach((dataset, index) => {
      if (!chart.isDatasetVisible(index)) return;
      chart.getDatasetMeta(index).data.forEach((bar, position) => {
        const range = dataset.ranges?.[position];
        if (!range) return;
        const [top, bottom] = [y.getPixelForValue(range.max), y.getPixelForValue(range.min)];
        const cap = Math.max(2, Math.min(7, bar.width / 3));
        ctx.beginPath();
        ctx.moveTo(bar.x, top);
        ctx.lineTo(bar.x, bottom);
        ctx.moveTo(bar.x - cap, top);
        ctx.lineTo(bar.x + cap, top);
        ctx.moveTo(bar.x - cap, bottom);
        ctx.lineTo(bar.x + cap, bottom);
        ctx.stroke();
      });
    });
    ctx.restore();
  },
};

/** Room above the tallest bar for its upright label: a log axis grows by a factor, a linear one by a share. */
export const roomForLabels = (scale) => {
  if (scale.type === 'logarithmic') scale.max *= 8;
  else scale.max += (scale.max - scale.min) * 0.3;
};

/** Every chart of the page is made here, so large type reaches each. */
export function create(id, { valueLabels: labelled = true, ...config }) {
  charts[id] = new Chart(document.getElementById(id), {
    ...config,
    plugins: [...(labelled ? [valueLabels] : []), ...(config.plugins ?? [])],
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      ...config.options,
      plugins: { legend: { position: 'bottom', labels: { usePointStyle: true } }, ...config.options?.plugins },
    },
  });
  return charts[id];
}

/** A chart the page no longer shows (a live panel of an earlier run). */
export function remove(id) {
  charts[id]?.destroy();
  delete charts[id];
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
  create('chart-latest', {
    type: 'bar',
    data: { labels: [], datasets: [] },
    options: {
      plugins: {
        legend: {
          position: 'bottom',
          // The bars' colours are the strategies' (named under each group); the legend shows how a figure is drawn.
          labels: {
            generateLabels: (chart) => chart.data.datasets.map((dataset, index) => ({
              text: dataset.label, fillStyle: figureFill[dataset.figure], strokeStyle: '#4a5560', lineWidth: 2, datasetIndex: index, hidden: !chart.isDatasetVisible(index),
            })),
          },
        },
      },
      scales: {
        x: axis('strategy', { ticks: { autoSkip: false } }),
        y: axis('milliseconds (log scale)', { type: 'logarithmic', afterDataLimits: roomForLabels }),
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
      plugins: { legend: { display: false }, values: { format: (value) => whole(value) } },
      scales: {
        x: axis('strategy', { ticks: { autoSkip: false } }),
        // A floor below 1 keeps a one-connection bar visible on the log scale.
        y: axis('connections used (log scale)', { type: 'logarithmic', min: 0.5, afterDataLimits: roomForLabels }),
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

const patterns = new Map();

/** Diagonal stripes over a background, made once per pair of colours: a striped bar reads apart without colour. */
export function striped(background, stripe) {
  const key = `${background}/${stripe}`;
  if (!patterns.has(key)) {
    const tile = document.createElement('canvas');
    tile.width = 8;
    tile.height = 8;
    const context = tile.getContext('2d');
    context.fillStyle = background;
    context.fillRect(0, 0, 8, 8);
    context.strokeStyle = stripe;
    context.lineWidth = 2;
    context.beginPath();
    for (const offset of [-8, 0, 8]) {
      context.moveTo(offset, 8);
      context.lineTo(offset + 8, 0);
    }
    context.stroke();
    patterns.set(key, context.createPattern(tile, 'repeat'));
  }
  return patterns.get(key);
}

const figureFill = { wall: '#4a5560', p50: hollow, p99: '#b7bec6' };

/**
 * group: { words, runs } — the runs of one plan; latest: the newest completed run of each strategy under it, in the
 * strategies' order; missing: strategies with no run under it. Wall time is a solid bar, p50 an outlined one and p99 a
 * striped one, each in the strategy's colour, over the strategy's name, with its value above it.
 */
export function showLatest(group, latest, missing) {
  const chart = charts['chart-latest'];
  const strategies = latest.map((run) => run.plan.strategy);
  const colours = strategies.map(colourOf);
  chart.data.labels = strategies;
  chart.data.datasets = [
    { figure: 'wall', label: 'wall time (ms)', data: latest.map((run) => run.stats.wallTimeMs), backgroundColor: colours, borderColor: colours, borderWidth: 2 },
    { figure: 'p50', label: 'p50 latency (ms)', data: latest.map((run) => run.stats.latency?.p50Ms ?? null), backgroundColor: hollow, borderColor: colours, borderWidth: 3 },
    { figure: 'p99', label: 'p99 latency (ms)', data: latest.map((run) => run.stats.latency?.p99Ms ?? null), backgroundColor: colours.map((colour) => striped(hollow, colour)), borderColor: colours, borderWidth: 2 },
  ];
  chart.update();
  describe('chart-latest', `Newest run of each strategy with ${group?.words ?? 'no plan'}: ` + latest.map((run) =>
    `${run.plan.strategy} wall ${run.stats.wallTimeMs} ms, p50 ${run.stats.latency?.p50Ms} ms, p99 ${run.stats.latency?.p99Ms} ms`).join('; ') +
    (missing.length ? `; no run: ${missing.join(', ')}` : ''));

  const distribution = charts['chart-distribution'];
  distribution.data.datasets = latest.map((run) => {
    const style = styleOf(run.plan.strategy);
    return {
      label: run.plan.strategy,
      data: run.stats.histogram.map((bin) => ({ x: Math.sqrt(bin.fromMs * bin.toMs), y: bin.count })),
      borderColor: style.colour,
      backgroundColor: style.colour,
      borderDash: style.dash,
      pointStyle: style.pointStyle,
      pointRadius: 4,
      borderWidth: 3,
      // The line's end is its slowest bin; the figure that locates it is its median.
      valueLabels: false,
    };
  });
  distribution.options.plugins.legend.labels.generateLabels = (chart) => Chart.defaults.plugins.legend.labels.generateLabels(chart).map((item) => {
    const run = latest[item.datasetIndex];
    return run ? { ...item, text: `${item.text}: p50 ${ms(run.stats.latency?.p50Ms)} ms, p99 ${ms(run.stats.latency?.p99Ms)} ms` } : item;
  });
  distribution.update();

  const connections = charts['chart-connections'];
  connections.data.labels = strategies;
  connections.data.datasets = [{
    label: 'connections used',
    // Another service's answers do not name their connection: such a run's count is missing, not 0.
    data: latest.map((run) => (run.stats.connectionsCounted === false ? null : run.stats.connectionsUsed)),
    backgroundColor: colours,
  }];
  connections.update();
  describe('chart-connections', 'Connections used: ' + latest.map((run) => `${run.plan.strategy} ${run.stats.connectionsCounted === false ? 'not measured' : run.stats.connectionsUsed}`).join(', '));
}

/** runs: one strategy's completed runs under one plan, oldest first. */
export function showHistory(strategy, runs, label) {
  const chart = charts['chart-history'];
  const { colour, pointStyle } = styleOf(strategy);
  const line = (extra) => ({ borderColor: colour, pointStyle, pointRadius: 4, ...extra });
  chart.data.labels = runs.map((run) => label(run.startedAt));
  chart.data.datasets = [
    line({ label: `${strategy} wall time (ms)`, data: runs.map((run) => run.stats.wallTimeMs), backgroundColor: colour, borderWidth: 4 }),
    line({ label: 'p50 (ms)', data: runs.map((run) => run.stats.latency?.p50Ms ?? null), backgroundColor: hollow, borderDash: [2, 4], borderWidth: 2 }),
    line({ label: 'p99 (ms)', data: runs.map((run) => run.stats.latency?.p99Ms ?? null), backgroundColor: hollow, borderDash: [10, 6], borderWidth: 2 }),
  ];
  chart.update();
  describe('chart-history', `${strategy}: ${runs.length} runs over time; wall times ${runs.map((run) => run.stats.wallTimeMs).join(', ')} ms`);
}

/**
 * Calls that succeeded per second in one bucket of a stored series (a bucket's calls count its failures too, and the
 * run's throughput counts successes only: 50 refusals in 100 ms are no 500 calls/s), and the bucket's end in seconds.
 */
export const perSecond = (series, point) => (point.calls - (point.errors ?? 0)) / (series.intervalMs / 1000);
const failedPerSecond = (series, point) => (point.errors ?? 0) / (series.intervalMs / 1000);
export const atSeconds = (point) => point.atMs / 1000;

/**
 * runs: stored runs with their time series. Each run's successful calls per second per bucket is a solid line (its
 * failures per second a dashed one when it had any) in its strategy's colour
 * and point shape; one run also shows p50, p99 and max, several show only their p99 (dashed), so a suite stays readable.
 */
export function showSeries(runs, title) {
  const chart = charts['chart-series'];
  const single = runs.length === 1;
  chart.data.datasets = runs.filter((run) => run.series?.points.length).flatMap((run) => {
    const { series } = run;
    const { colour, pointStyle } = styleOf(run.plan.strategy);
    const line = (label, data, extra) => ({ label, data, borderColor: colour, backgroundColor: hollow, pointStyle, pointRadius: 0, borderWidth: 2, ...extra });
    const latency = (field) => series.points.filter((point) => point[field] !== null).map((point) => ({ x: atSeconds(point), y: point[field] }));
    const lines = [line(`${run.plan.strategy} calls/s`, series.points.map((point) => ({ x: atSeconds(point), y: perSecond(series, point) })),
      { yAxisID: 'y', borderWidth: 3, backgroundColor: colour, pointRadius: 3 })];
    if (series.points.some((point) => point.errors > 0)) {
      lines.push(line(`${run.plan.strategy} failed/s`, series.points.map((point) => ({ x: atSeconds(point), y: failedPerSecond(series, point) })),
        { yAxisID: 'y', borderDash: [6, 3], borderWidth: 2, pointStyle: 'crossRot', pointRadius: 3 }));
    }
    lines.push(line(`${run.plan.strategy} p99 (ms)`, latency('p99Ms'), { yAxisID: 'y1', borderDash: [10, 6], valueLabels: single }));
    if (single) {
      lines.push(line(`${run.plan.strategy} p50 (ms)`, latency('p50Ms'), { yAxisID: 'y1', borderDash: [2, 4] }));
      lines.push(line(`${run.plan.strategy} max (ms)`, latency('maxMs'), { yAxisID: 'y1', borderDash: [1, 2], borderWidth: 1, valueLabels: false }));
    }
    return lines;
  });
  chart.options.plugins.values = { format: (value, dataset) => (dataset.yAxisID === 'y' ? `${whole(value)}/s${/failed/.test(dataset.label) ? ' failed' : ''}` : `${ms(value)} ms`) };
  chart.update();
  const named = single ? `${runs[0].plan.strategy} (${runs[0].series ? `${runs[0].series.intervalMs} ms buckets` : 'no series'})` : `${runs.length} runs`;
  document.getElementById('series-title').textContent = `calls per second and latency of ${named}${title ? ` — ${title}` : ''}`;
  describe('chart-series', `Over time: ${runs.map((run) => `${run.plan.strategy}, ${run.series?.points.length ?? 0} points of ${run.series?.intervalMs ?? '—'} ms`).join('; ')}`);
}
