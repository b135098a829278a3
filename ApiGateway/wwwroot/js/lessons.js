// The Lessons part: the chapter's five lessons (and gRPC against REST), each one button that runs its designed
// experiment, every arm repeated and interleaved, and judged: the verdict sentence, whether the measurement agrees with
// the lesson and whether it stands beyond the run-to-run spread, one chart made for the lesson, and what to look at and
// why. A reload shows each lesson's latest experiment again, or follows it while it runs. The lessons run where the run
// panel's Target and Method point: the built-in service's chapter call by the lesson's own design, else the picked method,
// and a lesson that cannot run there says why in its card.

import { api, clearErrors } from './api.js';
import { axis, colourOf, create, palette, roomForLabels, striped, whiskers } from './charts.js';
import { colourOfApi, partsOf } from './protocol-charts.js';
import { facts } from './facts.js';
import { doneFraction, progressText } from './live.js';
import { workPanel } from './panel.js';
import { el, ms, time } from './format.js';
import { withoutStop } from './statuses.js';
import { pickedForLessons, readTarget } from './targets.js';

const cards = new Map();
// The gateway runs one experiment at a time, so while one runs every lesson's button waits.
let running = null;

/** strategies: the run panel's strategy names, whose colours the lessons' arms keep. */
export async function initLessons(strategies) {
  const [lessons, status] = await Promise.all([api('/api/lessons'), api('/api/status').catch(() => null)]);
  document.getElementById('warmup').textContent = status?.warmup ?? '';
  document.getElementById('lesson-cards').replaceChildren(...lessons.map((lesson) => {
    const card = makeCard(lesson, strategies);
    cards.set(lesson.id, card);
    return card.root;
  }));
  for (const lesson of lessons) {
    const card = cards.get(lesson.id);
    const latest = lesson.latest;
    if (latest?.state === 'Running') follow(card, latest);
    else if (latest) finish(card, latest);
  }
  sync();
  showWhere();
  document.addEventListener('target-picked', showWhere);
}

/** Where the next experiment runs, above the cards, and in each card that cannot run there, why. */
function showWhere() {
  const pick = pickedForLessons();
  document.getElementById('lesson-where').textContent = pick
    ? `The buttons run each lesson on ${pick.where} (${pick.kind}), the method picked in the run panel's Target and Method; pick the chapter's call there for the lessons' own design on the built-in service.`
    : 'The buttons run each lesson on the built-in service, by its own design; pick a target\'s method in the run panel\'s Target and Method to run the lessons on it.';
  for (const card of cards.values()) {
    const why = whyNot(card.lesson, pick);
    card.notHere.textContent = why;
    card.notHere.hidden = !why;
  }
}

/** Why the lesson cannot run on the picked method, in one sentence; empty when it can (or nothing is picked). */
function whyNot(lesson, pick) {
  if (!pick) return '';
  if (lesson.notOnTargets) return `Not on ${pick.where}: ${lesson.notOnTargets}`;
  if (pick.kind !== 'unary') return `Not on ${pick.where}: the lessons compare ways of making unary calls, and ${pick.call} is ${pick.kind}; pick a unary method.`;
  return '';
}

function sync() {
  for (const [id, card] of cards) {
    card.start.disabled = running !== null;
    card.cancel.hidden = running !== id;
    card.cancel.disabled = running !== id;
  }
}

function makeCard(lesson, strategies) {
  const id = lesson.id;
  const ids = { status: `lesson-status-${id}`, start: `lesson-run-${id}`, cancel: `lesson-cancel-${id}`, chart: `chart-lesson-${id}`, title: `lesson-title-${id}` };
  // Six buttons read alike; their names say which lesson each runs.
  const start = el('button', { className: 'primary', text: 'Run the experiment', attrs: { type: 'button', id: ids.start, 'aria-label': `Run the experiment: ${lesson.title}` } });
  const cancel = el('button', { text: 'Cancel', attrs: { type: 'button', id: ids.cancel, hidden: '', 'aria-label': `Cancel the experiment: ${lesson.title}` } });
  const bar = el('progress', { attrs: { max: '1', value: '0', 'aria-label': `Progress of the experiment: ${lesson.title}` } });
  const result = el('div', { className: 'lesson-result', attrs: { hidden: '' } });
  const notHere = el('p', { className: 'lesson-not-here', attrs: { id: `lesson-not-here-${id}`, hidden: '' } });
  const figure = el('figure', { className: 'chart lesson-chart', attrs: { hidden: '' } }, [
    el('figcaption', { className: 'lesson-chart-caption' }),
    el('div', { className: 'canvas-box' }, [el('canvas', { attrs: { id: ids.chart, role: 'img', 'aria-label': `${lesson.title}: no experiment yet` } })]),
  ]);
  const root = el('article', { className: 'lesson', attrs: { id: `lesson-${id}`, 'data-lesson': id, 'data-state': 'idle', 'aria-labelledby': ids.title } }, [
    el('h3', { attrs: { id: ids.title } }, [el('span', { className: 'lesson-number', text: `${lesson.number}.` }), ` ${lesson.title}`]),
    el('p', { className: 'lesson-claim', text: lesson.lesson }),
    notHere,
    el('div', { className: 'buttons' }, [start, cancel]),
    el('div', { className: 'lesson-progress' }, [bar, el('p', { className: 'lesson-status', attrs: { id: ids.status, 'aria-live': 'polite' }, text: 'No experiment yet: press the button to run one.' })]),
    result,
    figure,
    el('div', { className: 'lesson-about' }, [
      el('p', {}, [el('strong', { text: 'What to look at: ' }), lesson.lookAt]),
      el('p', {}, [el('strong', { text: 'Why it happens: ' }), lesson.why]),
      el('p', {}, [el('a', { text: `Microsoft's guide: ${lesson.title}`, attrs: { href: lesson.link, rel: 'noopener' } })]),
      el('details', {}, [
        el('summary', { text: 'What the experiment runs' }),
        el('p', { text: lesson.design }),
        el('ul', {}, lesson.arms.map((arm) => el('li', {}, [el('strong', { text: arm.label }), `: ${arm.setup}`]))),
        el('p', {}, [el('strong', { text: 'When it may not hold: ' }), lesson.whenItDoesNotHold]),
        // On a target's own method (POST with target and call): what changes, or why the lesson stays on the built-in service.
        lesson.notOnTargets
          ? el('p', { className: 'lesson-on-target' }, [el('strong', { text: 'Not on your own service: ' }), lesson.notOnTargets])
          : el('p', { className: 'lesson-on-target' }, [el('strong', { text: 'On your own method: ' }), lesson.onTarget ?? '']),
      ]),
    ]),
  ]);

  const card = { lesson, root, start, cancel, bar, result, figure, notHere, ids, colours: armColours(lesson, strategies), chart: null };
  card.panel = workPanel({ root, status: ids.status, start: ids.start, cancel: ids.cancel });
  // Busy in one card is busy in all: the buttons follow `running`, not only this card's own.
  card.panel.setBusy = (busy) => {
    if (busy) running = id;
    else if (running === id) running = null;
    sync();
  };
  start.addEventListener('click', () => run(card));
  cancel.addEventListener('click', () => card.panel.cancel().catch(card.panel.fail));
  return card;
}

/**
 * One colour per arm, distinct within the lesson: a strategy keeps its colour from the charts below, a protocol
 * contender its API's from the Protocols part, and every other arm takes the next Okabe–Ito colour not yet used.
 */
function armColours(lesson, strategies) {
  const colours = new Map();
  const used = new Set();
  const take = (arm, colour) => {
    colours.set(arm.name, colour);
    used.add(colour);
  };
  for (const arm of lesson.arms) {
    const strategy = arm.plan?.strategy;
    const preferred = strategies.includes(strategy) ? colourOf(strategy) : arm.plan?.protocol ? colourOfApi(partsOf(strategy).api) : null;
    if (preferred && !used.has(preferred)) take(arm, preferred);
  }
  for (const arm of lesson.arms.filter((candidate) => !colours.has(candidate.name))) {
    take(arm, palette.find((colour) => !used.has(colour)) ?? facts.unknownColour);
  }
  return colours;
}

const overTls = (arm) => arm?.plan?.security === 'tls' || /-tls$/.test(arm?.name ?? '');

/** The body that runs the lesson where the picker points, or a sentence saying why it cannot start. */
function experimentBody(lesson) {
  const pick = pickedForLessons();
  const body = { repetitions: lesson.defaultRepetitions };
  if (!pick) return { body };
  const why = whyNot(lesson, pick);
  if (why) return { refusal: why };
  const target = readTarget();
  if (!target) return { refusal: 'the request in the run panel is not JSON: its sentence is under it.' };
  return { body: { ...body, ...target } };
}

async function run(card) {
  clearErrors();
  card.bar.value = 0;
  // A refusal, made here or by the gateway (another run in flight, say), is said in this card: nothing started, and
  // never on the built-in service instead.
  const view = await card.panel.post(card.lesson.links.experiments, experimentBody(card.lesson));
  if (view) follow(card, view);
}

function follow(card, view) {
  const { lesson, panel } = card;
  panel.setBusy(true);
  panel.setState('running');
  show(card, view);
  panel.progress(runningWords(card, view));
  panel.follow(`lessons/${lesson.id}/experiments`, view.id, 'experiment', {
    progress: (data) => {
      card.bar.value = doneFraction(data.step.index, data.step.of, data.progress ?? { phase: 'Starting', completed: 0, total: 0 });
      panel.progress(stepWords(card, data.step, data.progress, view.repetitions));
    },
    experiment: (current) => {
      if (current.state !== 'Running') return;
      show(card, current);
      panel.progress(runningWords(card, current));
    },
    final: (final) => finish(card, final),
  });
}

/** "Step 5 of 6 (repetition 3 of 3): one stream (streaming-call) — measuring, 400 of 2,000 calls, 7,411 calls/s". */
function stepWords(card, step, progress, repetitions) {
  const arm = card.lesson.arms.find((candidate) => candidate.name === step.arm);
  return `Step ${step.index} of ${step.of} (repetition ${step.repetition} of ${repetitions})${step.arm ? `: ${arm?.label ?? step.arm}` : ''}` +
    (progress ? ` — ${progress.phase === 'Starting' ? 'starting' : progressText(progress)}` : '');
}

/** While it runs: where it is, from the view's own step when it has one, else how many measurements are in. */
function runningWords(card, view) {
  if (view.now?.step) {
    card.bar.value = doneFraction(view.now.step.index, view.now.step.of, view.now.progress ?? { phase: 'Starting', completed: 0, total: 0 });
    return stepWords(card, view.now.step, view.now.progress, view.repetitions);
  }
  const total = (card.lesson.arms.length - Object.keys(view.unavailable ?? {}).length) * view.repetitions;
  card.bar.value = total > 0 ? Math.min(1, view.samples.length / total) : 0;
  return `Running since ${time(view.startedAt)}: ${view.samples.length} of ${total} measurements in (every arm ${times(view.repetitions)}, interleaved).`;
}

/** "once", "twice", "3 times": how often every arm ran. */
function times(repetitions) {
  return repetitions === 1 ? 'once' : repetitions === 2 ? 'twice' : `${repetitions} times`;
}

function finish(card, final) {
  const { panel } = card;
  panel.ended();
  show(card, final);
  card.bar.value = final.state === 'Completed' ? 1 : card.bar.value;
  const took = final.finishedAt ? ` in ${((new Date(final.finishedAt) - new Date(final.startedAt)) / 1000).toFixed(1)} s` : '';
  panel.say({
    Completed: `Completed at ${time(final.finishedAt ?? final.startedAt)}${took}: every arm ${times(final.repetitions)}.`,
    Cancelled: `Cancelled${took} — ${withoutStop(final.error ?? 'on request')}.`,
  }[final.state] ?? `Failed${took} — ${withoutStop(final.error ?? 'no reason given')}.`);
  panel.setState(final.state === 'Failed' ? 'error' : 'done');
}

/** The verdict, the other checks, what could not run, and the chart, of one experiment (partly, while it runs). */
function show(card, view) {
  card.root.dataset.experiment = view.id;
  const judged = view.state !== 'Running';
  const parts = [];
  if (view.call) {
    parts.push(el('p', { className: 'lesson-target hint', text: `On ${view.target ?? 'the built-in service'}'s ${view.call}${view.streamCall ? ` (the stream arm on ${view.streamCall})` : ''}.` }));
  }
  if (view.state === 'Failed' || view.state === 'Cancelled') {
    parts.push(el('p', { className: 'lesson-error', text: `${view.state === 'Failed' ? 'The experiment failed' : 'The experiment was cancelled'}: ${withoutStop(view.error ?? 'no reason given')}.` }));
  }
  if (judged && view.verdict) {
    parts.push(el('p', { className: 'lesson-verdict', text: view.verdict.sentence }));
    parts.push(...judgement(view.verdict, view.repetitions));
  }
  const others = judged ? view.checks.slice(1) : [];
  if (others.length) {
    parts.push(el('ul', { className: 'lesson-checks', attrs: { 'aria-label': 'The lesson\'s other checks' } }, others.map((check) =>
      el('li', {}, [el('span', { className: 'check-sentence', text: check.sentence }), ' ', ...badges(check)]))));
  }
  const unavailable = Object.entries(view.unavailable ?? {});
  if (unavailable.length) {
    parts.push(el('ul', { className: 'lesson-unavailable', attrs: { 'aria-label': 'Arms that could not run here' } }, unavailable.map(([name, reason]) =>
      el('li', {}, [el('strong', { text: `Not run: ${card.lesson.arms.find((arm) => arm.name === name)?.label ?? name}` }), ` — ${reason}`]))));
  }
  card.result.replaceChildren(...parts);
  card.result.hidden = parts.length === 0;
  drawChart(card, view);
}

/** The badges and the measured ratio against the expected direction: nothing when the claim could not be judged. */
function judgement(verdict, repetitions) {
  if (verdict.measuredRatio === null) return [];
  const expected = verdict.expectedDirection === 'near-1' ? 'near 1 (about the same)' : 'above 1';
  const range = verdict.range ? ` (${verdict.range.min}–${verdict.range.max}× over ${verdict.ratios.length} of ${repetitions} repetitions)` : '';
  return [
    el('div', { className: 'badges' }, badges(verdict)),
    el('p', { className: 'lesson-ratio hint', text: `${verdict.ratioOf}: measured ${verdict.measuredRatio}×${range}; the lesson expects ${expected}.` }),
  ];
}

/** "agrees" / "does not agree" and "beyond noise" / "within noise": words, not colour alone. */
function badges(check) {
  if (check.measuredRatio === null) return [el('span', { className: 'badge unjudged', text: 'not judged' })];
  return [
    el('span', { className: `badge ${check.agrees ? 'agrees' : 'disagrees'}`, text: check.agrees ? 'agrees' : 'does not agree' }),
    el('span', { className: `badge ${check.beyondNoise ? 'beyond' : 'within'}`, text: check.beyondNoise ? 'beyond noise' : 'within noise' }),
  ];
}

const units = [[/Ms$/, 'ms'], [/^nanoseconds/, 'ns'], [/Bytes/, 'B'], [/PerSecond$/, 'calls/s'], [/^connections/, 'connections']];
const unitOf = (figure) => units.find(([pattern]) => pattern.test(figure))?.[1] ?? '';

/**
 * The lesson's chart: one bar per arm that has the lesson's figure, the median of the repetitions, a whisker from the
 * smallest to the largest, the value written above it, in the arm's colour (striped when over TLS), on a linear axis
 * from zero so the bars' lengths are the ratios the verdict speaks of.
 */
function drawChart(card, view) {
  const { lesson } = card;
  const figure = lesson.chartFigure;
  const title = lesson.claims.find((claim) => claim.figure === figure)?.figureTitle ?? figure;
  const unit = unitOf(figure);
  const arms = view.arms.filter((arm) => arm.figures[figure]);
  card.figure.hidden = arms.length === 0;
  if (arms.length === 0) return;
  const chart = card.chart ?? (card.chart = createChart(card.ids.chart, `${title}${unit ? ` (${unit})` : ''}`, unit));
  const lessonArm = (name) => lesson.arms.find((arm) => arm.name === name);
  const colours = arms.map((arm) => card.colours.get(arm.arm) ?? facts.unknownColour);
  chart.$arms = arms.map((arm) => arm.arm);
  chart.data.labels = arms.map((arm) => arm.label);
  chart.data.datasets = [{
    label: title,
    figure,
    data: arms.map((arm) => arm.figures[figure].median),
    ranges: arms.map((arm) => arm.figures[figure]),
    backgroundColor: arms.map((arm, index) => (overTls(lessonArm(arm.arm)) ? striped(colours[index], '#ffffff') : colours[index])),
    borderColor: colours,
    borderWidth: 2,
  }];
  chart.options.scales.y.suggestedMax = Math.max(...arms.map((arm) => arm.figures[figure].max));
  chart.update();
  const tls = arms.some((arm) => overTls(lessonArm(arm.arm)));
  const counted = view.state === 'Running' ? 'so far' : `of ${view.repetitions}`;
  card.figure.querySelector('figcaption').textContent = `${title} per arm${unit ? `, ${unit}` : ''}: each bar the median ${counted}, ` +
    `its whisker from the smallest to the largest${tls ? '; striped: over TLS' : ''}.`;
  document.getElementById(card.ids.chart).setAttribute('aria-label', `${lesson.title}: ${title}, median ${counted} (smallest–largest): ` +
    arms.map((arm) => { const range = arm.figures[figure]; return `${arm.label} ${ms(range.median)} ${unit} (${ms(range.min)}–${ms(range.max)})`; }).join('; '));
}

function createChart(id, axisTitle, unit) {
  return create(id, {
    type: 'bar',
    data: { labels: [], datasets: [] },
    plugins: [whiskers],
    options: {
      plugins: {
        legend: { display: false },
        values: { format: (value) => `${ms(value)}${unit ? ` ${unit}` : ''}` },
        tooltip: {
          callbacks: {
            label: (item) => {
              const range = item.dataset.ranges[item.dataIndex];
              return `median ${ms(range.median)} ${unit} (smallest ${ms(range.min)}, largest ${ms(range.max)})`;
            },
          },
        },
      },
      scales: {
        x: {
          ticks: {
            autoSkip: false,
            maxRotation: 0,
            // Each arm's name in lines as wide as its bar's share of the chart, at whatever size the type is.
            callback(value) {
              const share = this.chart.width / Math.max(1, this.chart.data.labels.length);
              return lines(this.getLabelForValue(value), Math.max(8, Math.floor(share / (Chart.defaults.font.size * 0.6))));
            },
          },
        },
        y: axis(axisTitle, { type: 'linear', beginAtZero: true, afterDataLimits: roomForLabels }),
      },
    },
  });
}

/** An arm's label as short lines under its bar, so five arms stand side by side without turning their names. */
function lines(label, width) {
  return label.split(' ').reduce((rows, word) => {
    const last = rows.at(-1);
    if (last && `${last} ${word}`.length <= width) rows[rows.length - 1] = `${last} ${word}`;
    else rows.push(word);
    return rows;
  }, []);
}
