// Which runs may stand side by side: runs of one plan (count, load, delay, payload, …), named in words.

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

/**
 * Each fact of a plan that decides what a run measures, as the gateway words it (planFacts: the report's and the CLI's
 * wording too); a run under its strategy's own load says so in place of the load it had.
 */
function fields(run, ownLoad) {
  const own = 'each strategy\'s own load (sequential, or all at once)';
  return run.planFacts.map((fact) => (fact.name === 'load' && ownLoad(run) ? { ...fact, words: own, value: own } : fact));
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
