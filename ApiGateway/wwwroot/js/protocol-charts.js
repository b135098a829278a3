// The Protocols part's charts: one bar chart per figure, every contender side by side under its own label, each bar the
// median over the repetitions and a whisker from the smallest to the largest repetition.

import { axis, create, striped, whiskers } from './charts.js';
import { facts } from './facts.js';
import { ms } from './format.js';

// One colour per API (what the service counts a call under), from the one palette; TLS bars are striped, so security reads without colour.
const apiNames = { grpc: 'gRPC', 'grpc-code-first': 'gRPC code-first', 'rest-stj': 'REST STJ', 'rest-newtonsoft': 'REST Newtonsoft' };

/** "rest-stj-h1-tls" → its API, HTTP version and security. */
export function partsOf(name) {
  const [, api, version, security] = /^(.*)-h([12])-(cleartext|tls)$/.exec(name) ?? [null, name, '2', 'cleartext'];
  return { api, http: version === '1' ? 'HTTP/1.1' : 'HTTP/2', tls: security === 'tls' };
}

export const colourOfApi = (api) => facts.apiColours[api] ?? facts.unknownColour;

/** The key above the charts: what each colour and the stripes stand for. */
export const apiKey = Object.entries(apiNames).map(([api, name]) => ({ api, name, colour: colourOfApi(api) }));

// Each chart and the figures it draws as bars side by side for each contender: filled, then outlined (or with three:
// filled, light, outlined).
export const figureCharts = [
  { id: 'chart-protocol-time', axis: 'time per call (ms)', scale: 'linear', unit: 'ms', parts: [['meanMs', 'mean'], ['p50Ms', 'p50'], ['p99Ms', 'p99']] },
  { id: 'chart-protocol-throughput', axis: 'calls per second', scale: 'linear', unit: 'calls/s', parts: [['throughputPerSecond', 'calls/s']] },
  { id: 'chart-protocol-bytes', axis: 'bytes per call (log scale)', scale: 'logarithmic', unit: 'B', parts: [['bytesSentPerCall', 'sent'], ['bytesReceivedPerCall', 'received']] },
  {
    id: 'chart-protocol-allocations', axis: 'bytes allocated per call', scale: 'linear', unit: 'B',
    parts: [['clientAllocatedBytesPerCall', 'gateway (the client)'], ['serviceAllocatedBytesPerCall', 'service (whole process)']],
  },
];

const styles = { 1: ['solid'], 2: ['solid', 'outline'], 3: ['solid', 'light', 'outline'] };
const legendFill = { solid: '#4a5560', light: '#b7bec6', outline: '#ffffff' };

export function createProtocolCharts() {
  for (const figure of figureCharts) {
    create(figure.id, {
      type: 'bar',
      data: { labels: [], datasets: [] },
      plugins: [whiskers],
      // The medians and ranges are in the table under the charts; a label would sit on the whisker.
      valueLabels: false,
      options: {
        plugins: {
          legend: {
            display: figure.parts.length > 1,
            position: 'bottom',
            // The bars' colours are the contenders'; the legend shows only how a figure is drawn.
            labels: {
              generateLabels: (chart) => chart.data.datasets.map((dataset, index) => ({
                text: dataset.label, fillStyle: legendFill[dataset.style], strokeStyle: '#4a5560', lineWidth: 2, datasetIndex: index, hidden: !chart.isDatasetVisible(index),
              })),
            },
          },
          tooltip: {
            callbacks: {
              title: (items) => items[0]?.chart.$contenders?.[items[0].dataIndex]?.label ?? '',
              label: (item) => {
                const range = item.dataset.ranges[item.dataIndex];
                return range ? `${item.dataset.label}: ${ms(range.median)} ${figure.unit} (${ms(range.min)}–${ms(range.max)})` : `${item.dataset.label}: —`;
              },
            },
          },
        },
        scales: {
          x: axis('contender', { ticks: { autoSkip: false } }),
          y: axis(figure.axis, { type: figure.scale, beginAtZero: figure.scale === 'linear' }),
        },
      },
    });
  }
}

/** Fills every chart from a comparison's summary, in the order the contenders were named. */
export function showComparison(summary) {
  for (const figure of figureCharts) {
    const chart = Chart.getChart(figure.id);
    chart.$contenders = summary.map((contender) => ({ name: contender.contender, label: contender.label }));
    chart.data.labels = summary.map(tickLines);
    chart.data.datasets = figure.parts.map(([name, label], index) => {
      const style = styles[figure.parts.length][index];
      return {
        label,
        style,
        figure: name,
        data: summary.map((contender) => contender.figures[name]?.median ?? null),
        ranges: summary.map((contender) => contender.figures[name] ?? null),
        backgroundColor: summary.map((contender) => fill(contender.contender, style)),
        borderColor: summary.map((contender) => colourOfApi(partsOf(contender.contender).api)),
        borderWidth: 2,
      };
    });
    // The axis reaches the top whisker, not only the tallest bar; a log axis starts a decade below the smallest, so every bar shows.
    const ranges = summary.flatMap((contender) => figure.parts.map(([name]) => contender.figures[name])).filter(Boolean);
    const top = Math.max(0, ...ranges.map((range) => range.max));
    chart.options.scales.y.suggestedMax = top > 0 ? top * (figure.scale === 'linear' ? 1.05 : 1.5) : undefined;
    const bottom = Math.min(...ranges.map((range) => range.min).filter((value) => value > 0));
    if (figure.scale === 'logarithmic') chart.options.scales.y.min = Number.isFinite(bottom) ? 10 ** Math.floor(Math.log10(bottom)) : undefined;
    chart.update();
    document.getElementById(figure.id).setAttribute('aria-label', `${figure.axis}, median of the repetitions (smallest–largest): ` + summary.map((contender) =>
      `${contender.label}: ${figure.parts.map(([name, label]) => `${label} ${describe(contender.figures[name])} ${figure.unit}`).join(', ')}`).join('; '));
  }
}

const describe = (range) => (range ? `${ms(range.median)} (${ms(range.min)}–${ms(range.max)})` : 'none');

/** Two or three short lines under a contender's bars: its API, its transport and security, and "failed" when it did. */
function tickLines(contender) {
  const { api, http, tls } = partsOf(contender.contender);
  return [apiNames[api] ?? api, `${http}${tls ? ' · TLS' : ''}`, ...(contender.failed ? ['(failed)'] : [])];
}

function fill(name, style) {
  const { api, tls } = partsOf(name);
  const colour = colourOfApi(api);
  const background = { solid: colour, light: `${colour}66`, outline: '#ffffff' }[style];
  return tls ? striped(background, style === 'outline' ? `${colour}aa` : '#ffffff') : background;
}
