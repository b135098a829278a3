// Which runs may stand side by side: runs of one plan (count, load, delay, payload, …), named in words.

import { whole } from './format.js';

let defaultLoads = new Map();

/** strategies: GET /api/strategies, whose defaultLoad is the load a run gets when the form leaves Load empty. */
export function learnDefaultLoads(strategies) {
  defaultLoads = new Map(strategies.map((strategy) => [strategy.name, strategy.defaultLoad]));
}

/** The load and concurrency the form's "the strategy's own" with Concurrency empty gives this run's strategy. */
function atOwnLoad(plan) {
  const own = defaultLoads.get(plan.strategy);
  if (!own || plan.load !== own) return false;
  return own !== 'closed' || (plan.count !== null && plan.concurrency === plan.count);
}

/**
 * runs: the runs being grouped (a suite's runs must all be among them). A suite that left Load empty gives its
 * sequential strategies one call at a time and its concurrency strategies every call at once: one plan, "each
 * strategy's own load". A suite that named a load gives it to all, so its runs keep the load they had.
 */
export function planContext(runs) {
  const suitesAtOwnLoad = new Map();
  for (const run of runs) {
    if (!run.suiteId) continue;
    suitesAtOwnLoad.set(run.suiteId, (suitesAtOwnLoad.get(run.suiteId) ?? true) && atOwnLoad(run.plan));
  }
  return (run) => (run.suiteId ? suitesAtOwnLoad.get(run.suiteId) ?? atOwnLoad(run.plan) : atOwnLoad(run.plan));
}

// The fields fields() words itself, by their plan names; and those that change nothing a run measures (concurrency is in the load's words).
const worded = new Set(['count', 'duration', 'load', 'concurrency', 'rate', 'stages', 'warmup', 'delayMs', 'payloadBytes', 'agents', 'target', 'call', 'data']);
// The descriptor set names the target's description, the same for every run of its call.
const notMeasured = new Set(['strategy', 'includeStatuses', 'percentiles', 'thresholds', 'shard', 'descriptorSet']);
const excerpt = (text, most = 60) => (text.length > most ? `${text.slice(0, most - 1)}…` : text);

const countWords = (count) => `${whole(count)} call${count === 1 ? '' : 's'}`;

/** Each field of a plan that decides what a run measures, in words; the strategy is what runs are compared by, so it is left out. */
function fields(run, ownLoad) {
  const plan = run.plan;
  const load = ownLoad(run) ? 'each strategy\'s own load (sequential, or all at once)'
    : plan.load === 'closed' ? `closed, ${whole(plan.concurrency)} in flight`
      : plan.load === 'sequential' ? 'sequential'
        : `${plan.load}${plan.concurrency ? `, at most ${whole(plan.concurrency)} in flight` : ''}`;
  // A target's method: its runs stand apart from the built-in service's and from other methods' and requests'.
  const calls = plan.call ? [
    ['target', `on ${plan.target ?? 'performance'}`, plan.target ?? 'performance'],
    ['call', plan.call, plan.call],
    ['data', plan.data ? `request ${excerpt(plan.data.replace(/\s+/g, ' '))}` : 'default request', plan.data ?? 'none'],
  ] : [];
  const list = [
    ...calls,
    ['count', plan.count === null ? null : countWords(plan.count), plan.count === null ? 'none' : whole(plan.count)],
    ['duration', plan.duration === null ? null : `${plan.duration} s`, plan.duration === null ? 'none' : `${plan.duration} s`],
    ['load', load, load],
    ['rate', plan.rate === null ? null : `${whole(plan.rate)} calls/s`, plan.rate === null ? 'none' : `${whole(plan.rate)} calls/s`],
    ['stages', plan.stages?.length ? plan.stages.map((stage) => `${stage.duration} s→${whole(stage.target)}/s`).join(', ') : null, plan.stages?.length ? plan.stages.map((stage) => `${stage.duration}:${stage.target}`).join(', ') : 'none'],
    ['warm-up', plan.warmup ? `${whole(plan.warmup)} warm-up calls` : null, whole(plan.warmup)],
    ['delay', plan.call ? null : `delay ${whole(plan.delayMs)} ms`, `${whole(plan.delayMs)} ms`],
    ['payload', plan.call ? null : `payload ${whole(plan.payloadBytes)} B`, `${whole(plan.payloadBytes)} B`],
    // N agent processes with their own channels measure something else than this gateway alone: never one plan.
    ['agents', plan.agents ? `${whole(plan.agents)} agent${plan.agents === 1 ? '' : 's'}` : null, plan.agents ? whole(plan.agents) : '—'],
  ];
  // Every other field that decides what is measured (a workload's, a setting added later) by its name and value.
  for (const [name, value] of Object.entries(plan)) {
    if (!worded.has(name) && !notMeasured.has(name) && value !== undefined && value !== null) list.push([name, `${name} ${value}`, String(value)]);
  }
  return list.map(([name, words, value]) => ({ name, words, value }));
}

/** The group a run belongs to: equal keys, equal plans. */
export function planKey(run, ownLoad) {
  return fields(run, ownLoad).map((field) => `${field.name}=${field.value}`).join('|');
}

/** "1,000 calls, sequential, delay 0 ms, payload 100 B". */
export function planWords(run, ownLoad) {
  return fields(run, ownLoad).map((field) => field.words).filter(Boolean).join(', ');
}

/** Every field in which two runs' plans differ: ["count 1,000 vs 100,000", "delay 0 vs 100 ms"]; empty when they are comparable. */
export function planDifferences(baseline, candidate, ownLoad) {
  const other = new Map(fields(candidate, ownLoad).map((field) => [field.name, field.value]));
  const mine = fields(baseline, ownLoad);
  const names = new Set([...mine.map((field) => field.name), ...other.keys()]);
  const value = new Map(mine.map((field) => [field.name, field.value]));
  return [...names].filter((name) => (value.get(name) ?? 'none') !== (other.get(name) ?? 'none'))
    .map((name) => differenceWords(name, value.get(name) ?? 'none', other.get(name) ?? 'none'));
}

/** "delay 0 vs 100 ms" when both values share a unit, else "load sequential vs closed, 10 in flight". */
function differenceWords(name, a, b) {
  const unit = (text) => /^[\d,.]+ (ms|B|s)$/.exec(text)?.[1];
  if (unit(a) && unit(a) === unit(b)) return `${name} ${a.slice(0, -unit(a).length - 1)} vs ${b}`;
  return `${name} ${a} vs ${b}`;
}

/**
 * runs: completed runs, newest first. Groups them by plan, newest group first; each group has its key, its words,
 * and its runs (newest first).
 */
export function groupByPlan(runs, ownLoad) {
  const groups = new Map();
  for (const run of runs) {
    const key = planKey(run, ownLoad);
    if (!groups.has(key)) groups.set(key, { key, words: planWords(run, ownLoad), runs: [] });
    groups.get(key).runs.push(run);
  }
  return [...groups.values()];
}
