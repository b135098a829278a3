// The three published .NET gRPC-vs-REST studies (../shared/SPEC.md, "The wider literature"), rerun on this machine
// with their workloads and call patterns, fairly: every answer deserialized and checked, warm-up apart, the same
// security on both sides unless a row says it copies a study's asymmetry. Prints one markdown table per study with the
// published figures beside ours. Each figure is the median of REPETITIONS runs, contenders interleaved within each
// repetition so drift on a shared machine hits them alike; the range is min–max over the repetitions.
// Usage: node bench/studies.mjs [--repetitions N (3)] [--only 2019|2020|2023]
// Builds nothing: run `dotnet build GrpcBestPractices.sln -c Release` first. Starts its own service (h2c, HTTP/1.1 and
// TLS listeners on free loopback ports, a certificate in a temporary folder) and gateway, and runs through POST /api/runs.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import path from 'node:path';
import net from 'node:net';

const argument = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
};
const repetitions = Number(argument('repetitions', '3'));
const only = argument('only', null);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const work = mkdtempSync(path.join(tmpdir(), 'grpcbp-studies-'));

const freePort = () => new Promise((resolve) => {
  const server = net.createServer().listen(0, '127.0.0.1', () => { const { port } = server.address(); server.close(() => resolve(port)); });
});

/** Starts an app and resolves once every pattern in `wanted` has matched a line of its output (each pattern's first group). */
function start(project, args, wanted) {
  const child = spawn('dotnet', [`bin/Release/net10.0/${project}.dll`, ...args], { cwd: path.join(root, project), stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const found = wanted.map((pattern) => pattern.exec(output)?.[1]);
      if (found.every(Boolean)) { child.stdout.removeAllListeners('data'); child.stdout.resume(); resolve({ child, found }); }
    });
    child.on('exit', (code) => reject(new Error(`${project} exited with ${code}: ${output}`)));
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(gateway, plan) {
  const started = await fetch(`${gateway}/api/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(plan) });
  if (started.status !== 202) throw new Error(`POST /api/runs ${JSON.stringify(plan)}: ${started.status} ${await started.text()}`);
  const { id } = await started.json();
  for (;;) {
    const view = await (await fetch(`${gateway}/api/runs/${id}`)).json();
    if (view.state !== 'Running') {
      if (view.state !== 'Completed' || view.stats.failed > 0) throw new Error(`${plan.strategy ?? plan.protocol} ${plan.workload}: ${view.state}, ${view.stats?.failed} failed: ${view.error}`);
      return view;
    }
    await sleep(100);
  }
}

const median = (values) => { const sorted = [...values].sort((a, b) => a - b); const middle = sorted.length >> 1; return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2; };
const number = (value, digits = 0) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }).replaceAll(',', ' ');
const contender = (name) => {
  const [protocol, ...rest] = name.startsWith('grpc-code-first') ? ['grpc-code-first', ...name.slice(16).split('-')] : name.split('-');
  const serializer = protocol === 'rest' ? (rest.shift() === 'stj' ? 'system-text-json' : 'newtonsoft') : 'protobuf';
  return { protocol, serializer, httpVersion: rest[0] === 'h1' ? '1.1' : '2', security: rest[1] };
};

/** Runs every row's plan ({ contender, plan }) once per repetition, interleaved; returns each row's runs. */
async function measure(gateway, rows) {
  const views = rows.map(() => []);
  for (let repetition = 0; repetition < repetitions; repetition++) {
    for (let offset = 0; offset < rows.length; offset++) {
      const index = (offset + repetition) % rows.length;
      views[index].push(await run(gateway, { ...contender(rows[index].contender), ...rows[index].plan }));
      process.stderr.write('.');
    }
  }

  process.stderr.write('\n');
  return views;
}

/** `figure` of each run: median and range over the repetitions. */
const summary = (views, figure) => {
  const values = views.map(figure);
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
};

const wall = (view) => view.stats.wallTimeMs;
const meanUs = (view) => view.stats.latency.meanMs * 1000;
const p50Us = (view) => view.stats.latency.p50Ms * 1000;
const meanMs = (view) => view.stats.latency.meanMs;
const range = (views, figure, digits = 0) => {
  const row = summary(views, figure);
  return `${number(row.median, digits)} (${number(row.min, digits)}–${number(row.max, digits)})`;
};

async function study2019(gateway) {
  const published = { 'small-ints': [2505, 3080, 3589, 3488], 'small-mixed': [1982, 2770, 3825, 3625], 'big-list': [2813, 4678, 5338, 38329] };
  const contenders = ['grpc-h2-tls', 'grpc-code-first-h2-tls', 'rest-stj-h1-tls', 'rest-newtonsoft-h1-tls'];
  const names = ['gRPC', 'gRPC code-first', 'System.Text.Json (HTTP/1.1)', 'Newtonsoft.Json (HTTP/1.1)'];
  console.log('\n### 2019, "gRPC performance benchmark in ASP.NET Core 3": 1000 sequential calls, TLS, JSON over HTTP/1.1\n');
  console.log(`Total ms for 1000 sequential calls after 100 warm-up calls (median of ${repetitions}, range); published ms beside.\n`);
  console.log('| contender | small-ints ours | published | small-mixed ours | published | big-list ours | published |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  const results = {};
  for (const workload of Object.keys(published)) {
    results[workload] = await measure(gateway, contenders.map((name) => ({ contender: name, plan: { workload, count: 1000, warmup: 100, load: 'sequential' } })));
  }

  contenders.forEach((name, index) => {
    const cells = Object.keys(published).map((workload) => `${range(results[workload][index], wall)} | ${number(published[workload][index])}`);
    console.log(`| ${names[index]} | ${cells.join(' | ')} |`);
  });
}

async function study2020(gateway) {
  console.log('\n### 2020, "Rest vs gRPC performance benchmark in .NET Core 3.1": the ≈ 2.5 kB record\n');
  console.log('The study ran code-first gRPC over h2c against REST over HTTPS/1.1; the first two rows copy that asymmetry, the others');
  console.log(`compare like with like. Mean ms per call (median of ${repetitions}, range); 100 sequential calls after 10 warm-up, or 1000 calls 100 at once.\n`);
  const rows = [
    ['study\'s pairing: gRPC code-first, h2c', 'grpc-code-first-h2-cleartext'],
    ['study\'s pairing: REST System.Text.Json, HTTPS/1.1', 'rest-stj-h1-tls'],
    ['gRPC contract-first, h2c', 'grpc-h2-cleartext'],
    ['REST System.Text.Json, HTTP/1.1 cleartext', 'rest-stj-h1-cleartext'],
    ['gRPC contract-first, TLS', 'grpc-h2-tls'],
    ['REST System.Text.Json, HTTP/2 TLS', 'rest-stj-h2-tls'],
  ];
  const shapes = [
    ['kept client', { workload: 'big-dto', connection: 'kept', count: 100, warmup: 10, load: 'sequential' }],
    ['"from zero" (new per call)', { workload: 'big-dto', connection: 'new-per-call', count: 100, warmup: 10, load: 'sequential' }],
    ['100 at once, kept', { workload: 'big-dto', connection: 'kept', count: 1000, warmup: 100, load: 'closed', concurrency: 100 }],
    ['collection of 500', { workload: 'collection', count: 100, warmup: 10, load: 'sequential' }],
    ['page of 20', { workload: 'page', count: 100, warmup: 10, load: 'sequential' }],
  ];
  const results = [];
  for (const [, plan] of shapes) {
    results.push(await measure(gateway, rows.map(([, name]) => ({ contender: name, plan }))));
  }

  console.log(`| contender | ${shapes.map(([label]) => label).join(' | ')} |`);
  console.log(`|---|${shapes.map(() => '---:').join('|')}|`);
  rows.forEach(([label], index) => console.log(`| ${label} | ${results.map((shape) => range(shape[index], meanMs, 3)).join(' | ')} |`));
}

async function study2023(gateway) {
  console.log('\n### 2023, ".NET 7 Web API through HTTP/1.1, HTTP/2 and gRPC": cleartext\n');
  const rows = [['HTTP/1.1 (REST System.Text.Json)', 'rest-stj-h1-cleartext'], ['HTTP/2 (REST System.Text.Json)', 'rest-stj-h2-cleartext'], ['gRPC', 'grpc-h2-cleartext']];
  const measureRows = (plan) => measure(gateway, rows.map(([, name]) => ({ contender: name, plan })));
  const logPlan = { workload: 'log-write', count: 2000, warmup: 200, load: 'sequential' };
  const logOne = await measureRows(logPlan);
  const logTwenty = await measureRows({ workload: 'log-write', count: 2000, warmup: 200, load: 'closed', concurrency: 20, clients: 1 });
  const perTwenty = (view) => view.stats.wallTimeMs / view.stats.calls * 20 * 1000;
  const files = [];
  for (const [size, count] of [[1024, 200], [1 << 20, 20], [10 << 20, 5], [100 << 20, 3]]) {
    files.push([size, await measureRows({ workload: 'file-upload', fileBytes: size, count, warmup: 1, load: 'sequential' })]);
  }

  const parallel = await measureRows({ workload: 'file-upload', fileBytes: 10 << 20, count: 16, warmup: 2, load: 'closed', concurrency: 8, clients: 8 });
  const publishedLog = [167.9, 220.2, 158.3];
  const published100 = [535, 560, 440];
  console.log(`Median of ${repetitions} (range). Log record: mean and p50 µs per call one by one (2000 calls after 200 warm-up; the study's BenchmarkDotNet`);
  console.log('mean drops outliers, ours keeps them, so the p50 is the closer figure), and µs per batch of 20 in parallel');
  console.log('(wall time ÷ calls × 20). Files: mean ms per upload, one at a time. Parallel: wall ms for 16 uploads of 10 MiB, 8 at once over 8 clients.\n');
  console.log(`| path | log mean µs | log p50 µs | published | 20 in parallel µs | ${files.map(([size]) => (size >= 1 << 20 ? `${size >> 20} MiB ms` : `${size >> 10} KiB ms`)).join(' | ')} | published 100 MiB | 16 × 10 MiB, 8 parallel, ms |`);
  console.log(`|---|---:|---:|---:|---:|${files.map(() => '---:').join('|')}|---:|---:|`);
  rows.forEach(([label], index) => console.log(`| ${label} | ${range(logOne[index], meanUs, 1)} | ${range(logOne[index], p50Us, 1)} | ${publishedLog[index]} | ${range(logTwenty[index], perTwenty, 1)} | ${files.map(([, result]) => range(result[index], meanMs, 2)).join(' | ')} | ${published100[index]} | ${range(parallel[index], wall)} |`));
}

const service = await start('PerformanceService', ['--urls', `http://127.0.0.1:${await freePort()}`, '--Protocols:Http1Url', 'http://127.0.0.1:0',
  '--Protocols:TlsUrl', 'https://127.0.0.1:0', '--Metrics:Url', '', '--Protocols:CertificateFolder', work],
  [/Listening for h2c \([^)]*\) on (\S+)/, /Listening for HTTP\/1\.1 \([^)]*\) on (\S+)/, /Listening for TLS \([^)]*\) on (\S+)/]);
const [h2c, http1, tls] = service.found;
const gateway = await start('ApiGateway', ['--urls', `http://127.0.0.1:${await freePort()}`, '--ServerUrl', h2c, '--Protocols:Http1Url', http1,
  '--Protocols:TlsUrl', tls, '--Protocols:CertificatePath', path.join(work, 'service-certificate.pem'), '--History:DatabasePath', path.join(work, 'history.db')],
  [/Now listening on: (http:\/\/\S+)/]);
const [gatewayUrl] = gateway.found;
try {
  console.log(`Release, loopback, ${cpus().length} cores (${cpus()[0].model.trim()}), node ${process.version}, ${new Date().toISOString().slice(0, 10)}; ${repetitions} repetitions.`);
  if (!only || only === '2019') await study2019(gatewayUrl);
  if (!only || only === '2020') await study2020(gatewayUrl);
  if (!only || only === '2023') await study2023(gatewayUrl);
} finally {
  gateway.child.kill('SIGTERM');
  service.child.kill('SIGTERM');
  await sleep(500);
  rmSync(work, { recursive: true, force: true });
}
