// Times the six chapter routes against a running gateway and prints a Markdown table.
// Usage: node bench/routes.mjs [gatewayUrl=http://127.0.0.1:5080] [count=1000] [rounds=5]
// One warm-up round first (kept out of the figures), then rounds interleave the routes so
// machine noise spreads evenly across strategies. Figures are the gateway's requestProcessingTime.
import os from 'node:os';

const [gateway = 'http://127.0.0.1:5080', count = '1000', rounds = '5'] = process.argv.slice(2);
const routes = [
  '/Performance/factory-client', '/Performance/client-wrapper', '/Performance/initialized-client',
  '/Performance/streaming-call', '/Concurrency/single-connection', '/Concurrency/multiple-connections',
];

async function run(route) {
  const response = await fetch(`${gateway}${route}/${count}`, { signal: AbortSignal.timeout(120_000) });
  const body = await response.json();
  if (!response.ok) throw new Error(`${route}: ${response.status} ${body.detail}`);
  if (body.performanceStatuses.length !== Number(count)) throw new Error(`${route}: ${body.performanceStatuses.length} statuses`);
  return { ms: body.requestProcessingTime, connections: body.connectionsUsed };
}

const median = (values) => { const s = [...values].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const results = Object.fromEntries(routes.map((r) => [r, []]));
for (const route of routes) await run(route);
for (let round = 0; round < Number(rounds); round++) {
  for (const route of routes) results[route].push(await run(route));
}

console.log(`count = ${count}, ${rounds} rounds after one warm-up round; ${os.cpus().length} × ${os.cpus()[0].model.trim()}, node ${process.version}, ${new Date().toISOString().slice(0, 10)}`);
console.log('');
console.log('| route | median ms | min ms | max ms | connections used |');
console.log('|---|---:|---:|---:|---:|');
for (const route of routes) {
  const ms = results[route].map((r) => r.ms);
  const connections = [...new Set(results[route].map((r) => r.connections))].join(', ');
  console.log(`| \`${route}/{count}\` | ${median(ms).toFixed(1)} | ${Math.min(...ms).toFixed(1)} | ${Math.max(...ms).toFixed(1)} | ${connections} |`);
}
