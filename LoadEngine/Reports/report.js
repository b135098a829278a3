// Draws the report's charts from the JSON in #report-data. The figures and tables are HTML already; charts are the extra.
(() => {
  'use strict';
  if (typeof Chart !== 'function') return;
  // Only now that charts can be drawn: until then the CSS shows each chart's data table instead of an empty box.
  document.documentElement.classList.add('js');

  const data = JSON.parse(document.getElementById('report-data').textContent);
  const colourOf = (strategy) => data.colours[strategy] ?? '#555555';
  // Dashed lines get hollow points, so the dash pattern stays readable (as on the chart page).
  const hollow = '#ffffff';
  const charts = [];
  const normalType = 14;
  const largeType = 22;
  Chart.defaults.font.size = normalType;
  Chart.defaults.color = '#333333';

  const axis = (text, extra = {}) => ({ title: { display: true, text, font: { weight: 'bold' } }, ...extra });
  const seconds = (point) => point.atMs / 1000;
  const binCentre = (bin) => (bin.fromMs > 0 ? Math.sqrt(bin.fromMs * bin.toMs) : bin.toMs / 2);

  const histogramDataset = (run) => ({
    label: run.plan.strategy,
    data: run.stats.histogram.map((bin) => ({ x: binCentre(bin), y: bin.count })),
    borderColor: colourOf(run.plan.strategy),
    backgroundColor: colourOf(run.plan.strategy),
    pointRadius: 2,
    borderWidth: 3,
  });

  const line = (run, label, data, style = {}) => ({
    label,
    data,
    borderColor: colourOf(run.plan.strategy),
    backgroundColor: style.borderDash ? hollow : colourOf(run.plan.strategy),
    pointRadius: 2,
    borderWidth: 3,
    spanGaps: false,
    ...style,
  });

  const withStats = () => data.runs.filter((run) => run.stats);

  const bars = (title, pick) => () => {
    const runs = withStats();
    return {
      type: 'bar',
      data: {
        labels: runs.map((run) => run.plan.strategy),
        datasets: [{ label: title, data: runs.map((run) => pick(run.stats) ?? null), backgroundColor: runs.map((run) => colourOf(run.plan.strategy)) }],
      },
      options: {
        plugins: { legend: { display: false } },
        // Linear from zero: a bar's length is the figure, so two bars compare as the figures do.
        scales: { x: axis('strategy'), y: axis(title, { beginAtZero: true }) },
      },
    };
  };

  const builders = {
    histogram: (run) => ({
      type: 'line',
      data: { datasets: [histogramDataset(run)] },
      options: {
        parsing: false,
        scales: { x: axis('latency per call (ms, log scale)', { type: 'logarithmic' }), y: axis('calls in the bin', { beginAtZero: true }) },
      },
    }),
    // A bucket holds IntervalMs of calls, so a rate is its count divided by the bucket's length in seconds.
    rate: (run) => {
      const { intervalMs, points } = run.series;
      const perSecond = (count) => count / (intervalMs / 1000);
      return {
        type: 'line',
        data: {
          datasets: [
            line(run, 'calls/s', points.map((point) => ({ x: seconds(point), y: perSecond(point.calls) }))),
            line(run, 'errors/s', points.map((point) => ({ x: seconds(point), y: perSecond(point.errors) })), { borderDash: [10, 6], borderWidth: 2, yAxisID: 'y1' }),
          ],
        },
        options: {
          parsing: false,
          // Errors on their own axis: one failure in a hundred calls would lie flat on the calls' scale.
          scales: {
            x: axis('seconds into the measured phase (bucket end)', { type: 'linear', min: 0 }),
            y: axis('calls per second', { beginAtZero: true, position: 'left' }),
            y1: axis('errors per second', { beginAtZero: true, position: 'right', suggestedMax: 1, grid: { drawOnChartArea: false } }),
          },
        },
      };
    },
    latency: (run) => {
      const points = run.series.points;
      const over = (pick) => points.map((point) => ({ x: seconds(point), y: pick(point) ?? null }));
      return {
        type: 'line',
        data: {
          datasets: [
            line(run, 'p50 (ms)', over((point) => point.p50Ms)),
            line(run, 'p90 (ms)', over((point) => point.p90Ms), { borderDash: [2, 4], borderWidth: 2 }),
            line(run, 'p99 (ms)', over((point) => point.p99Ms), { borderDash: [10, 6], borderWidth: 2 }),
            line(run, 'max (ms)', over((point) => point.maxMs), { borderDash: [14, 4, 2, 4], borderWidth: 1.5 }),
          ],
        },
        options: {
          parsing: false,
          scales: { x: axis('seconds into the measured phase (bucket end)', { type: 'linear', min: 0 }), y: axis('milliseconds (log scale)', { type: 'logarithmic' }) },
        },
      };
    },
    'suite-wall': bars('wall time (ms)', (stats) => stats.wallTimeMs),
    'suite-throughput': bars('throughput (calls/s)', (stats) => stats.throughputPerSecond),
    'suite-p50': bars('p50 latency (ms)', (stats) => stats.latency?.p50Ms),
    'suite-p99': bars('p99 latency (ms)', (stats) => stats.latency?.p99Ms),
    'suite-distribution': () => ({
      type: 'line',
      data: { datasets: withStats().map(histogramDataset) },
      options: {
        parsing: false,
        scales: { x: axis('latency per call (ms, log scale)', { type: 'logarithmic' }), y: axis('calls in the bin', { beginAtZero: true }) },
      },
    }),
  };

  for (const canvas of document.querySelectorAll('canvas[data-chart]')) {
    const run = canvas.dataset.run === undefined ? null : data.runs[Number(canvas.dataset.run)];
    const config = builders[canvas.dataset.chart](run);
    charts.push(new Chart(canvas, {
      ...config,
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: 'nearest', intersect: false },
        ...config.options,
        plugins: { legend: { position: 'bottom' }, ...config.options.plugins },
      },
    }));
  }

  // Bigger type for a projector: Chart.js draws its text itself, so CSS alone cannot scale it.
  const setLargeType = (large) => {
    document.documentElement.classList.toggle('large', large);
    const size = large ? largeType : normalType;
    Chart.defaults.font.size = size;
    for (const chart of charts) {
      const { options } = chart;
      options.plugins.legend.labels = { ...options.plugins.legend.labels, font: { size } };
      options.plugins.tooltip = { ...options.plugins.tooltip, titleFont: { size }, bodyFont: { size } };
      for (const scale of Object.values(options.scales)) {
        scale.ticks = { ...scale.ticks, font: { size } };
        scale.title = { ...scale.title, font: { size, weight: 'bold' } };
      }
      chart.update();
    }
  };
  const toggle = document.getElementById('large-type');
  toggle.addEventListener('change', () => setLargeType(toggle.checked));

  // Print lays the page out anew: redraw each chart at its printed box's size as print media applies, and back after.
  // Chart.js's own resize observer runs too late for the printout, and at beforeprint the layout is still the screen's.
  window.matchMedia('print').addEventListener('change', () => charts.forEach((chart) => chart.resize()));
})();
