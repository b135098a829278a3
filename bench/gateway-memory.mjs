// The gateway's resident memory through a peak and the 90 s after it, under one GC setting (issue 20, item 6).
// Usage: node bench/gateway-memory.mjs [--env NAME=VALUE]... [--label TEXT] [--pin] [--count 100000] [--stalled 10]
//                                      [--readers 3] [--answers 2] [--idle 90] [--json] [--throughput-only]
//   e.g. node bench/gateway-memory.mjs --label server --env DOTNET_gcServer=1
// Builds nothing: run `dotnet build GrpcBestPractices.sln -c Release` first. Starts its own service (h2c only) and gateway
// on free loopback ports, the gateway with each --env set (DOTNET_gcServer, DOTNET_gcConcurrent, DOTNET_GCConserveMemory,
// DOTNET_GCDynamicAdaptationMode override what ApiGateway.csproj chose); --pin puts the service on core 0 and the
// gateway on core 1 (taskset). Then:
//  1. throughput: a 20 000-call warm-up, then one closed-load run (multiple-connections, 100 in flight, 100 000 calls):
//     its calls/s and p99, what the setting costs the engine (--throughput-only stops here, printing a row of them);
//  2. the peak: a suite of every strategy at --count calls each (statuses are never kept in a suite), followed by
//     --readers viewers that read its events and --stalled that never read (sockets paused after the request), while
//     --answers chapter answers of 1.4 GB each (client-wrapper/2000 with 256 KiB payloads, through the spool file) are
//     read one after another; then the stalled viewers disconnect;
//  3. idle: --idle seconds with nothing to do.
// The gateway's VmRSS and the GC's committed bytes (GET /metrics) are sampled every second throughout. Prints the peak,
// the RSS when the peak's work ended and 60 s and 90 s after, the throughput figures, and a row for docs/benchmarks.md;
// --json adds every sample as one line of JSON.
import { spawn } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import path from 'node:path';
import net from 'node:net';
import http from 'node:http';

const options = { env: {}, label: 'as built', pin: false, count: 100000, stalled: 10, readers: 3, answers: 2, idle: 90, json: false, 'throughput-only': false };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const name = argv[i].replace(/^--/, '');
  if (name === 'pin' || name === 'json' || name === 'throughput-only') options[name] = true;
  else if (name === 'env') { const [key, ...value] = argv[++i].split('='); options.env[key] = value.join('='); }
  else if (name === 'label') options.label = argv[++i];
  else if (name in options) options[name] = Number(argv[++i]);
  else throw new Error(`unknown option --${name}; see the usage at the top of ${process.argv[1]}`);
}

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const work = mkdtempSync(path.join(tmpdir(), 'grpcbp-gateway-memory-'));
const MiB = 1024 * 1024;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const freePort = () => new Promise((resolve) => {
  const server = net.createServer().listen(0, '127.0.0.1', () => { const { port } = server.address(); server.close(() => resolve(port)); });
});

/** Starts a project's Release build, pinned to a core when asked; resolves once its output matched the pattern. */
function start(project, args, pattern, core, env = {}) {
  const command = options.pin ? ['taskset', ['-c', String(core), 'dotnet']] : ['dotnet', []];
  const child = spawn(command[0], [...command[1], `bin/Release/net10.0/${project}.dll`, ...args],
    { cwd: path.join(root, project), stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = pattern.exec(output);
      if (match) { child.stdout.removeAllListeners('data'); child.stdout.resume(); resolve({ child, url: match[1] }); }
    });
    child.on('exit', (code) => reject(new Error(`${project} exited with ${code}: ${output}`)));
  });
}

const service = await start('PerformanceService', ['--urls', 'http://127.0.0.1:0', '--Protocols:Http1Url', '', '--Protocols:TlsUrl', '',
  '--Metrics:Url', '', '--Protocols:CertificateFolder', work], /Listening for h2c \([^)]*\) on (\S+)/, 0);
const gatewayUrl = `http://127.0.0.1:${await freePort()}`;
let gateway;
// Whatever ends this script, the two apps it started end with it.
process.on('exit', () => { gateway?.child.kill('SIGKILL'); service.child.kill('SIGKILL'); });

const samples = [];
let phase = 'start';
let sampler;
const began = Date.now();

const rssMiB = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${gateway.child.pid}/status`, 'utf8'))[1]) / 1024;
async function committedMiB() {
  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  const match = /^dotnet_gc_last_collection_memory_committed_size_bytes\{[^}]*\} (\S+)$/m.exec(text);
  return match ? Number(match[1]) / MiB : null;
}

async function post(route, body) {
  const response = await fetch(`${gatewayUrl}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (response.status !== 202) throw new Error(`POST ${route}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function waitUntilEnded(route) {
  for (;;) {
    const view = await (await fetch(`${gatewayUrl}${route}`)).json();
    if (view.state !== 'Running') return view;
    await sleep(250);
  }
}

/** Reads a stream to its end, keeping nothing but the count of its bytes. */
const drain = (route) => new Promise((resolve, reject) => {
  http.get(`${gatewayUrl}${route}`, (response) => {
    let bytes = 0;
    response.on('data', (chunk) => { bytes += chunk.length; });
    response.on('end', () => resolve({ status: response.statusCode, bytes }));
    response.on('error', reject);
  }).on('error', reject);
});

/** A viewer that sends its request and never reads again: the socket is paused, so the kernel's buffers fill and stay full. */
function stalledViewer(route) {
  const { hostname, port } = new URL(gatewayUrl);
  const socket = net.connect({ host: hostname, port: Number(port) }, () => {
    socket.write(`GET ${route} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`);
    socket.pause();
  });
  socket.on('error', () => {});
  return socket;
}

try {
  gateway = await start('ApiGateway', ['--urls', gatewayUrl, '--ServerUrl', service.url, '--Protocols:Http1Url', '', '--Protocols:TlsUrl', '',
    '--Protocols:CertificatePath', '', '--History:DatabasePath', path.join(work, 'history.db'), '--Runs:WarmUpAtStart', 'false',
    '--Runs:MaxRunMemoryMegabytes', '4096'], /Now listening on: (http:\/\/\S+)/, 1, options.env);
  sampler = setInterval(async () => {
    const sample = { second: Math.round((Date.now() - began) / 1000), phase, rss: rssMiB() };
    samples.push(sample);
    sample.committed = await committedMiB().catch(() => null);
  }, 1000);
  await sleep(3000);
  const idleAtStart = rssMiB();

  phase = 'throughput';
  const plan = { strategy: 'multiple-connections', load: 'closed', concurrency: 100, payloadBytes: 100 };
  await waitUntilEnded(`/api/runs/${(await post('/api/runs', { ...plan, count: 20000 })).id}`);
  const measured = await waitUntilEnded(`/api/runs/${(await post('/api/runs', { ...plan, count: 100000 })).id}`);
  const throughput = { callsPerSecond: measured.stats.throughputPerSecond, p99Ms: measured.stats.latency.p99Ms };
  if (options['throughput-only']) {
    console.log(`| ${options.label} | ${throughput.callsPerSecond.toFixed(0)} | ${throughput.p99Ms} |`);
    process.exit(0);
  }

  phase = 'peak';
  const peakBegan = Date.now();
  const suite = await post('/api/suites', { count: options.count });
  const events = `/api/suites/${suite.id}/events`;
  const stalled = Array.from({ length: options.stalled }, () => stalledViewer(events));
  const readers = Array.from({ length: options.readers }, () => drain(events));
  const answers = (async () => {
    const read = [];
    for (let i = 0; i < options.answers; i++) read.push(await drain('/Performance/client-wrapper/2000?payloadBytes=262144'));
    return read;
  })();
  const ended = await waitUntilEnded(`/api/suites/${suite.id}`);
  const [read, answered] = await Promise.all([Promise.all(readers), answers]);
  for (const socket of stalled) socket.destroy();
  const peakSeconds = (Date.now() - peakBegan) / 1000;

  phase = 'idle';
  const endedAt = Date.now();
  const atEnd = rssMiB();
  await sleep(options.idle * 1000);
  clearInterval(sampler);

  const after = (seconds) => samples.filter((sample) => sample.phase === 'idle' && sample.second <= (endedAt - began) / 1000 + seconds).at(-1);
  const peak = samples.reduce((most, sample) => (sample.rss > most.rss ? sample : most));
  const at60 = after(60);
  const at90 = after(options.idle);
  const f = (value) => (value == null ? '–' : value.toFixed(0));
  console.log(`${options.label} (${Object.entries(options.env).map(([key, value]) => `${key}=${value}`).join(' ') || 'no overrides'})` +
    `${options.pin ? ', service on core 0, gateway on core 1' : ''}; ${cpus().length} × ${cpus()[0].model.trim()}, ${new Date().toISOString().slice(0, 16)}Z`);
  console.log(`throughput: multiple-connections, closed, 100 in flight, 100 000 calls: ${f(throughput.callsPerSecond)} calls/s, p99 ${throughput.p99Ms} ms`);
  console.log(`peak: suite ${ended.state} (${ended.runs.length} runs of ${options.count}) in ${peakSeconds.toFixed(0)} s; ${options.readers} readers got ` +
    `${read.map((r) => `${(r.bytes / 1024).toFixed(0)} KiB`).join(', ')}; ${options.stalled} stalled viewers; answers ` +
    `${answered.map((a) => `${a.status} ${(a.bytes / MiB).toFixed(0)} MiB`).join(', ')}`);
  console.log(`RSS MiB: idle at start ${f(idleAtStart)}, peak ${f(peak.rss)} (at ${peak.second} s, ${peak.phase}), when the peak ended ${f(atEnd)}, ` +
    `60 s after ${f(at60?.rss)} (GC committed ${f(at60?.committed)}), ${options.idle} s after ${f(at90?.rss)} (GC committed ${f(at90?.committed)})`);
  console.log(`| ${options.label} | ${f(peak.rss)} | ${f(at60?.rss)} | ${f(at90?.rss)} | ${f(throughput.callsPerSecond)} | ${throughput.p99Ms} |`);
  if (options.json) console.log(JSON.stringify({ label: options.label, env: options.env, pin: options.pin, idleAtStart, peak, atEnd, at60, at90, throughput, peakSeconds, samples }));
} finally {
  clearInterval(sampler);
  gateway?.child.kill('SIGTERM');
  service.child.kill('SIGTERM');
  await sleep(500);
  rmSync(work, { recursive: true, force: true });
}
