// Memory of the gateway during a 1,000,000-call run (issue: "no object per call").
// Usage: node bench/memory.mjs [strategy=streaming-call] [count=1000000] [concurrency=100]
//        node bench/memory.mjs STRATEGY open RATE SECONDS   (an arrival-rate run, e.g. multiple-connections open 20000 600)
// Builds nothing: run `dotnet build GrpcBestPractices.sln -c Release` first. Starts its own service and
// gateway on free loopback ports, warms the gateway up with a 20,000-call run (an arrival rate: 15 s at that rate), then
// samples the gateway's resident memory (VmRSS) every 100 ms through the measured run and prints baseline, points along
// the way, peak and growth.
import { spawn } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import net from 'node:net';

const [strategy = 'streaming-call', count = '1000000', concurrency = '100', seconds] = process.argv.slice(2);
// "open RATE SECONDS" in place of "COUNT CONCURRENCY": calls start at RATE per second for SECONDS.
const open = count === 'open';
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const history = mkdtempSync(path.join(tmpdir(), 'grpcbp-bench-'));

const freePort = () => new Promise((resolve) => {
  const server = net.createServer().listen(0, '127.0.0.1', () => { const { port } = server.address(); server.close(() => resolve(port)); });
});

function start(project, args) {
  const child = spawn('dotnet', [`bin/Release/net10.0/${project}.dll`, ...args], { cwd: path.join(root, project), stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /Now listening on: (http:\/\/\S+)/.exec(output);
      if (match) { child.stdout.removeAllListeners('data'); child.stdout.resume(); resolve({ child, url: match[1] }); }
    });
    child.on('exit', (code) => reject(new Error(`${project} exited with ${code}: ${output}`)));
  });
}

const rssMiB = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(gateway, plan) {
  const started = await fetch(`${gateway}/api/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(plan) });
  if (started.status !== 202) throw new Error(`POST /api/runs: ${started.status} ${await started.text()}`);
  const { id } = await started.json();
  for (;;) {
    const view = await (await fetch(`${gateway}/api/runs/${id}`)).json();
    if (view.state !== 'Running') return view;
    await sleep(100);
  }
}

const service = await start('PerformanceService', ['--urls', `http://127.0.0.1:${await freePort()}`]);
const gateway = await start('ApiGateway', ['--urls', `http://127.0.0.1:${await freePort()}`, '--ServerUrl', service.url,
  '--Runs:MaxCount', open ? '1000000' : count, '--Runs:MaxRunSeconds', '3600', '--History:DatabasePath', path.join(history, 'history.db')]);
try {
  const plan = open ? { strategy, load: 'open', rate: Number(concurrency), payloadBytes: 100 } : { strategy, concurrency: Number(concurrency), payloadBytes: 100 };
  // The warm-up runs the same load long enough to fill what a steady load keeps (calls in flight, connection buffers,
  // the GC's budget); growth after it is what the run's own recording and anything unbounded add.
  await run(gateway.url, open ? { ...plan, duration: 15 } : { ...plan, count: 20000 });
  await sleep(1000);
  const baseline = rssMiB(gateway.child.pid);
  let peak = baseline;
  const timeline = [];
  const began = Date.now();
  const sampler = setInterval(() => {
    const rss = rssMiB(gateway.child.pid);
    peak = Math.max(peak, rss);
    const second = Math.floor((Date.now() - began) / 1000);
    if ([10, 60, 120, 300, 540].includes(second) && !timeline.some((point) => point.second === second)) timeline.push({ second, rss });
  }, 100);
  const measured = await run(gateway.url, open ? { ...plan, duration: Number(seconds) } : { ...plan, count: Number(count) });
  clearInterval(sampler);
  const s = measured.stats;
  const shape = open ? `open at ${concurrency}/s for ${seconds} s` : `count ${count}${strategy.includes('connection') ? `, concurrency ${concurrency}` : ''}`;
  console.log(`${strategy}, ${shape}: ${measured.state}, ${s.succeeded} succeeded, ${s.failed} failed, ` +
    `wall ${(s.wallTimeMs / 1000).toFixed(1)} s, ${Math.round(s.throughputPerSecond)} calls/s, p50 ${s.latency.p50Ms} ms, p99 ${s.latency.p99Ms} ms` +
    (s.sends ? `; sends: ${s.sends.sent} of ${s.sends.intended} due, ${s.sends.late} late, ${s.sends.dropped} dropped, achieved ${s.sends.achievedRatePerSecond}/s` : '') +
    `; time series: ${measured.series?.points.length} points`);
  console.log(`gateway RSS: baseline ${baseline.toFixed(1)} MiB (after a ${open ? '15 s' : '20,000-call'} warm-up run at the same load), ` +
    `${timeline.map((point) => `${point.rss.toFixed(1)} MiB at ${point.second} s`).join(', ')}${timeline.length ? ', ' : ''}peak ${peak.toFixed(1)} MiB, growth ${(peak - baseline).toFixed(1)} MiB; ` +
    `allocated ${Math.round(s.allocatedBytesPerCall)} B per call (all short-lived)`);
} finally {
  gateway.child.kill('SIGTERM');
  service.child.kill('SIGTERM');
  await sleep(500);
  rmSync(history, { recursive: true, force: true });
}
