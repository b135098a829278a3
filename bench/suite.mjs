// Runs one suite (every strategy, same plan) on a running gateway and prints its comparison as Markdown.
// Usage: node bench/suite.mjs [gatewayUrl=http://127.0.0.1:5080] [count=1000] [warmup=100] [delayMs=0]
import os from 'node:os';

const [gateway = 'http://127.0.0.1:5080', count = '1000', warmup = '100', delayMs = '0'] = process.argv.slice(2);
const plan = { count: Number(count), warmup: Number(warmup), delayMs: Number(delayMs) };
const started = await fetch(`${gateway}/api/suites`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(plan) });
if (started.status !== 202) throw new Error(`POST /api/suites: ${started.status} ${await started.text()}`);
const { id } = await started.json();
let suite;
for (;;) {
  suite = await (await fetch(`${gateway}/api/suites/${id}`)).json();
  if (suite.state !== 'Running') break;
  await new Promise((resolve) => setTimeout(resolve, 200));
}

const fmt = (v, digits = 1) => (v === null || v === undefined ? '–' : Number(v).toFixed(digits));
console.log(`suite ${id}: ${suite.state}; count ${count}, warm-up ${warmup}, delayMs ${delayMs}; ${os.cpus().length} × ${os.cpus()[0].model.trim()}, ${new Date().toISOString().slice(0, 10)}`);
console.log('');
console.log('| strategy | wall ms | calls/s | first call ms | p50 ms | p90 ms | p99 ms | max ms | connections | failed | vs fastest |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const run of suite.runs) {
  const s = run.stats ?? {};
  const l = s.latency ?? {};
  const row = suite.comparison.find((r) => r.runId === run.id) ?? {};
  console.log(`| ${run.plan.strategy} | ${fmt(s.wallTimeMs)} | ${fmt(s.throughputPerSecond, 0)} | ${fmt(s.firstCallMs, 3)} | ${fmt(l.p50Ms, 3)} | ${fmt(l.p90Ms, 3)} | ${fmt(l.p99Ms, 3)} | ${fmt(l.maxMs, 3)} | ${s.connectionsUsed ?? '–'} | ${s.failed ?? '–'} | ${fmt(row.wallTimeVsFastest, 2)}× |`);
}
