// Memory of the gateway (and, for uploads, of the service) while a run goes on.
// Usage: node bench/memory.mjs [strategy=streaming-call] [count=1000000] [concurrency=100]
//        node bench/memory.mjs STRATEGY open RATE SECONDS   (an arrival-rate run, e.g. multiple-connections open 20000 600)
//        node bench/memory.mjs upload CONTENDER [--file-bytes 104857600] [--clients 1] [--concurrency 1] [--count 4]
//                                               [--warmup 2 × the clients or uploads in flight] [--interval-ms 50] [--json]
//          e.g. node bench/memory.mjs upload grpc-h2-cleartext --clients 8 --concurrency 8 --count 8
// Builds nothing: run `dotnet build GrpcBestPractices.sln -c Release` first. Starts its own service (h2c, HTTP/1.1 and TLS
// listeners on free loopback ports, its certificate in a temporary folder) and a gateway wired to all three.
// A strategy run: warms the gateway up with a 20,000-call run (an arrival rate: 15 s at that rate), then samples the
// gateway's resident memory (VmRSS) every 100 ms through the measured run and prints baseline, points along the way,
// peak and growth.
// An upload run (the file-upload workload on one contender): warms up with uploads of the same shape (same file,
// clients and uploads in flight), then samples both processes' VmRSS every --interval-ms through the measured run, while
// bench/MemoryProbe, loaded into both as a startup hook, records their managed heap and Kestrel's buffers as often.
// Prints for each process baseline, peak and growth of its RSS beside issue 11's bound, 4 × chunk size × uploads in
// flight, and whether the growth stayed under it; then what the growth is made of (the GC's budget, what the GCs found
// alive, Kestrel's buffers in use); last, a row for the "Upload memory" table of docs/protocols.md and, with --json,
// every figure as one line of JSON (what bench/upload-memory.mjs collects).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { parseArguments, uploadPlan, inFlight, chunkBytesOf, bound, verdict, managedFigures, residentByKind, size, met, MiB, ChunksPerUpload } from './memory-figures.mjs';

const options = parseArguments(process.argv.slice(2));
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const work = mkdtempSync(path.join(tmpdir(), 'grpcbp-bench-'));

const freePort = () => new Promise((resolve) => {
  const server = net.createServer().listen(0, '127.0.0.1', () => { const { port } = server.address(); server.close(() => resolve(port)); });
});

/** Starts a project's Release build from its folder; resolves once its output matched every pattern, with the matches. */
function start(project, args, patterns, env = {}) {
  const child = spawn('dotnet', [`bin/Release/net10.0/${project}.dll`, ...args],
    { cwd: path.join(root, project), stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const matches = patterns.map((pattern) => pattern.exec(output));
      if (matches.every(Boolean)) { child.stdout.removeAllListeners('data'); child.stdout.resume(); resolve({ child, urls: matches.map((match) => match[1]) }); }
    });
    child.on('exit', (code) => reject(new Error(`${project} exited with ${code}: ${output}`)));
  });
}

const upload = options.mode === 'upload';
// An upload run loads the memory probe into both processes; each writes its samples to a file of its own.
const probe = path.join(root, 'bench/MemoryProbe/bin/Release/net10.0/MemoryProbe.dll');
if (upload && !existsSync(probe)) throw new Error(`${probe} is missing: run dotnet build GrpcBestPractices.sln -c Release first.`);
const probed = (name) => (upload
  ? { DOTNET_STARTUP_HOOKS: probe, MEMORY_PROBE_FILE: path.join(work, `${name}.jsonl`), MEMORY_PROBE_INTERVAL_MS: String(options.intervalMs) }
  : {});

// The service announces each listener with the port it really got ("Listening for h2c (...) on http://127.0.0.1:40123").
const listening = (listener) => new RegExp(`Listening for ${listener} \\([^)]*\\) on (\\S+)`);
const service = await start('PerformanceService', ['--urls', 'http://127.0.0.1:0', '--Protocols:Http1Url', 'http://127.0.0.1:0',
  '--Protocols:TlsUrl', 'https://127.0.0.1:0', '--Metrics:Url', '', '--Protocols:CertificateFolder', work], [listening('h2c'), listening('HTTP/1.1'), listening('TLS')], probed('service'));
const serviceProcess = service.child;
const [h2c, http1, tls] = service.urls;
const gatewayUrl = `http://127.0.0.1:${await freePort()}`;
let gatewayProcess;

const rssBytes = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
const rssMiB = (pid) => rssBytes(pid) / MiB;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(plan) {
  const started = await fetch(`${gatewayUrl}/api/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(plan) });
  if (started.status !== 202) throw new Error(`POST /api/runs: ${started.status} ${await started.text()}`);
  const { id } = await started.json();
  for (;;) {
    const view = await (await fetch(`${gatewayUrl}/api/runs/${id}`)).json();
    if (view.state !== 'Running') return view;
    await sleep(100);
  }
}

async function strategyRun() {
  const { strategy, count, concurrency, seconds, open } = options;
  const plan = open ? { strategy, load: 'open', rate: Number(concurrency), payloadBytes: 100 } : { strategy, concurrency: Number(concurrency), payloadBytes: 100 };
  // The warm-up runs the same load long enough to fill what a steady load keeps (calls in flight, connection buffers,
  // the GC's budget); growth after it is what the run's own recording and anything unbounded add.
  await run(open ? { ...plan, duration: 15 } : { ...plan, count: 20000 });
  await sleep(1000);
  const baseline = rssMiB(gatewayProcess.pid);
  let peak = baseline;
  const timeline = [];
  const began = Date.now();
  const sampler = setInterval(() => {
    const rss = rssMiB(gatewayProcess.pid);
    peak = Math.max(peak, rss);
    const second = Math.floor((Date.now() - began) / 1000);
    if ([10, 60, 120, 300, 540].includes(second) && !timeline.some((point) => point.second === second)) timeline.push({ second, rss });
  }, 100);
  const measured = await run(open ? { ...plan, duration: Number(seconds) } : { ...plan, count: Number(count) });
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
}

const processes = () => [['gateway', gatewayProcess.pid], ['service', serviceProcess.pid]];
const rssOfBoth = () => Object.fromEntries(processes().map(([name, pid]) => [name, rssBytes(pid)]));
/** A process's resident memory by kind and its number of threads, read at once. */
const anatomy = (pid) => ({ ...residentByKind(readFileSync(`/proc/${pid}/smaps`, 'utf8')), threads: Number(/Threads:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) });
const anatomyOfBoth = () => Object.fromEntries(processes().map(([name, pid]) => [name, anatomy(pid)]));

/** Both processes' RSS every interval until stopped, the most each reached, and what it was made of then. */
function sampleRss(intervalMs) {
  const peaks = { gateway: 0, service: 0, samples: 0, anatomy: {} };
  const take = () => {
    for (const [name, bytes] of Object.entries(rssOfBoth())) {
      if (bytes <= peaks[name]) continue;
      peaks[name] = bytes;
      peaks.anatomy[name] = anatomy(processes().find(([process]) => process === name)[1]);
    }
    peaks.samples++;
  };
  take();
  const timer = setInterval(take, intervalMs);
  return { peaks, stop: () => { clearInterval(timer); take(); } };
}

/** Asks both probes for a full GC and waits until both made it (each deletes its request once done). */
async function collectBoth() {
  const requests = processes().map(([name]) => path.join(work, `${name}.jsonl.collect`));
  for (const request of requests) writeFileSync(request, '');
  for (let waited = 0; requests.some(existsSync); waited += 20) {
    if (waited > 10000) throw new Error('a memory probe did not make the GC it was asked for within 10 s.');
    await sleep(20);
  }
}

const probeSamples = (name) => readFileSync(path.join(work, `${name}.jsonl`), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));

const throughput = (fileBytes, stats) => `${(fileBytes * stats.succeeded / MiB / (stats.wallTimeMs / 1000)).toFixed(0)} MiB/s`;

/**
 * One sampled run of the contender's uploads of fileBytes each, RSS sampled throughout; then each process's figures.
 * Left alone (snapshots false) it is the run issue 11 bounds. With snapshots, both probes make a full GC before the run,
 * before every sample of it and after it, so their samples say what was really alive (and the RSS nothing natural).
 */
async function measure(contender, fileBytes, snapshots, end = { count: options.count }) {
  const baseline = rssOfBoth();
  const before = anatomyOfBoth();
  if (snapshots) await collectBoth();
  const collecting = processes().map(([name]) => path.join(work, `${name}.jsonl.collecting`));
  if (snapshots) for (const request of collecting) writeFileSync(request, '');
  const sampling = sampleRss(options.intervalMs);
  const from = Date.now();
  const done = await run(uploadPlan(contender, { ...options, fileBytes }, end));
  const to = Date.now();
  sampling.stop();
  for (const request of collecting) rmSync(request, { force: true });
  if (done.state !== 'Completed' || done.stats.failed > 0) throw new Error(`the run of ${fileBytes} B files ended ${done.state}: ${done.error ?? `${done.stats.failed} failed`}`);
  if (snapshots) await collectBoth();
  const figures = Object.fromEntries(processes().map(([name]) => [name, {
    rss: verdict(baseline[name], sampling.peaks[name], Infinity),
    baseline: baseline[name],
    peak: sampling.peaks[name],
    anatomy: { baseline: before[name], peak: sampling.peaks.anatomy[name] },
    managed: managedFigures(probeSamples(name), from, to),
  }]));
  return { run: done, samples: sampling.peaks.samples, ...figures };
}

async function uploadRun() {
  const catalog = await (await fetch(`${gatewayUrl}/api/workloads`)).json();
  const contender = catalog.contenders.find((candidate) => candidate.name === options.contender);
  if (!contender) throw new Error(`'${options.contender}' is not a contender; one of: ${catalog.contenders.map((candidate) => candidate.name).join(', ')}.`);
  if (!contender.available) throw new Error(`${contender.name} cannot run here: ${contender.unavailable}`);
  const chunkBytes = chunkBytesOf(catalog.workloads.find((workload) => workload.id === 'file-upload'));

  const cold = rssOfBoth();
  const warming = sampleRss(options.intervalMs);
  const warmup = options.warmup > 0 ? await run(uploadPlan(contender, options, { count: options.warmup })) : { state: 'Completed', stats: { succeeded: 0, failed: 0 } };
  warming.stop();
  if (warmup.state !== 'Completed' || warmup.stats.failed > 0) throw new Error(`the warm-up run ended ${warmup.state}: ${warmup.error ?? `${warmup.stats.failed} failed`}`);
  // Each pause lets the last run's connections close and background work settle before the next baseline.
  await sleep(1000);
  // The measured run, left to the GC's own rhythm: its RSS is the figure issue 11 bounds.
  const measured = await measure(contender, options.fileBytes, false);
  await sleep(1000);
  // The same run with a full GC before every sample: what was really alive, the GC's budget aside.
  const held = await measure(contender, options.fileBytes, true);
  await sleep(1000);
  // And with 1 KiB files for as long: what a run holds whatever its file (its connections, the gateway's latency
  // recorders). A count of them would be over between two samples.
  const control = await measure(contender, 1024, true, { duration: Math.max(1, Math.ceil(held.run.stats.wallTimeMs / 1000)) });

  const s = measured.run.stats;
  const parallel = inFlight(measured.run.plan);
  const limit = bound(chunkBytes, parallel);
  const file = size(options.fileBytes);
  console.log(`${contender.name} (${contender.label}): file-upload of ${file} × ${s.succeeded}, ${parallel} in flight over ${options.clients} client(s), ` +
    `after ${warmup.stats.succeeded} warm-up uploads: wall ${(s.wallTimeMs / 1000).toFixed(1)} s, ${throughput(options.fileBytes, s)}; ` +
    `RSS sampled every ${options.intervalMs} ms (${measured.samples} samples); bound ${ChunksPerUpload} × ${size(chunkBytes)} × ${parallel} = ${size(limit)}`);
  const rows = {};
  for (const [name] of processes()) {
    const rss = verdict(measured[name].baseline, measured[name].peak, limit);
    const bytes = verdict(control[name].managed.held, held[name].managed.held, limit);
    const m = measured[name].managed;
    rows[name] = { rss, bytes };
    console.log(`${name} RSS: ${size(cold[name])} before the warm-up, at most ${size(warming.peaks[name])} during it; baseline ${size(measured[name].baseline)}, ` +
      `peak ${size(measured[name].peak)}, growth ${size(rss.growth)}: ${met(rss)}`);
    const { baseline: was, peak: became } = measured[name].anatomy;
    const grew = (kind) => size(became[kind] - was[kind]);
    console.log(`  at the peak: anonymous memory (the GC's heap, native allocations) ${grew('anonymous')}, JIT code ${grew('jit')}, ` +
      `thread stacks ${grew('stacks')} (threads ${was.threads} → ${became.threads}), files mapped ${grew('files')}`);
    console.log(`  its managed heap in use, garbage included, grew by ${size(m.heapGrowth)}: generation 0 reached ${size(m.gen0Budget)} before a GC ` +
      `(the GC's budget), committed ${size(m.committed.baseline)} → ${size(m.committed.most)}; ${m.gcs.gen0} GCs (${m.gcs.gen1} gen1, ${m.gcs.gen2} gen2); ` +
      `allocated ${size(m.allocated / s.succeeded)} per upload; Kestrel's buffers at most ${size(m.poolMostInUse)} in use`);
    console.log(`  held (the same run, a full GC before each of ${held[name].managed.samples} samples): at most ${size(held[name].managed.held)} above the baseline, ` +
      `buffers in use included (Kestrel's at most ${size(held[name].managed.poolMostInUse)}, ArrayPool's at most ${size(held[name].managed.rentedMost)}), ` +
      `${size(held[name].managed.largeGrowth)} of it large arrays; with 1 KiB files ${size(control[name].managed.held)}; ` +
      `so the file's bytes held at most ${size(bytes.growth)}: ${met(bytes)}; ${size(held[name].managed.retained)} more alive after the run`);
  }

  const yes = (figure) => (figure.met ? 'yes' : 'no');
  console.log(`| ${contender.label} | ${file} × ${s.succeeded} | ${parallel} over ${options.clients} | ${throughput(options.fileBytes, s)} | ` +
    `${size(rows.gateway.rss.growth)} | ${size(rows.service.rss.growth)} | ${size(rows.gateway.bytes.growth)} | ${size(rows.service.bytes.growth)} | ${size(limit)} | ` +
    `${yes(rows.gateway.rss)}/${yes(rows.service.rss)} | ${yes(rows.gateway.bytes)}/${yes(rows.service.bytes)} |`);
  if (options.json) {
    const figures = (name) => ({
      rssGrowth: rows[name].rss.growth, fileHeld: rows[name].bytes.growth, held: held[name].managed.held, heldWithSmallFiles: control[name].managed.held,
      heapGrowth: measured[name].managed.heapGrowth, gen0Budget: measured[name].managed.gen0Budget, gcs: measured[name].managed.gcs.gen0,
      allocatedPerUpload: measured[name].managed.allocated / s.succeeded, kestrelBuffersInUse: held[name].managed.poolMostInUse,
      arrayPoolRented: held[name].managed.rentedMost,
      residentGrowth: Object.fromEntries(Object.keys(measured[name].anatomy.peak).map((kind) => [kind, measured[name].anatomy.peak[kind] - measured[name].anatomy.baseline[kind]])),
    });
    console.log(JSON.stringify({
      contender: contender.name, label: contender.label, fileBytes: options.fileBytes, uploads: s.succeeded, parallel, clients: options.clients,
      chunkBytes, bound: limit, mibPerSecond: options.fileBytes * s.succeeded / MiB / (s.wallTimeMs / 1000), gateway: figures('gateway'), service: figures('service'),
    }));
  }
}

try {
  gatewayProcess = (await start('ApiGateway', ['--urls', gatewayUrl, '--ServerUrl', h2c, '--Protocols:Http1Url', http1, '--Protocols:TlsUrl', tls,
    '--Protocols:CertificatePath', path.join(work, 'service-certificate.pem'), '--History:DatabasePath', path.join(work, 'history.db'),
    '--Runs:MaxCount', upload ? '1000' : options.open ? '1000000' : options.count, '--Runs:MaxRunSeconds', '3600',
    // A 100 MiB upload is one call; eight of them on two busy cores take longer than the default 10 s deadline.
    ...(upload ? ['--Runs:CallTimeoutSeconds', '600'] : [])], [/Now listening on: (http:\/\/\S+)/], probed('gateway'))).child;
  await (upload ? uploadRun() : strategyRun());
} finally {
  gatewayProcess?.kill('SIGTERM');
  serviceProcess.kill('SIGTERM');
  await sleep(500);
  rmSync(work, { recursive: true, force: true });
}
