// What a target's descriptors cost the tool, and what they can make it hold (issue 28's figures).
// Usage: node bench/describe.mjs [--messages 1000,20000] [--refreshes 300] [--starts 3] [--skip-gateway]
// Builds nothing: run `dotnet build GrpcBestPractices.sln -c Release` first. Starts its own servers on free loopback ports:
// tests/interop/hostile-reflection.js serving each set by server reflection, the PerformanceService, and gateways. Prints:
//  1. for each --messages set (N messages of five string fields in one file, made by the shipped protoc): the CLI's
//     `--list` by reflection (wall seconds, peak RSS, exit code and its first line), and a gateway configured with it
//     (seconds from start until GET /api/targets shows its methods or its sentence, the gateway's peak RSS);
//  2. a gateway refreshing a target whose set changes on every describe --refreshes times (POST
//     /api/targets/{name}/refresh, one after another): its RSS after a first 20 refreshes and after all of them;
//  3. the CLI's start-up against the PerformanceService by reflection, --starts times with one cache folder (the first
//     compiles, the next load the image): seconds from the process's start to its first run's start (the run's
//     startedAt), and in all;
//  4. a run on a target whose answers echo its metadata, an `authorization` value of 40 random characters: how many
//     times that value appears in GET /api/runs, the run, its report and export, the history database and the log.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync, rmSync, readdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import net from 'node:net';

const options = { messages: '1000,20000', refreshes: 300, starts: 3, 'skip-gateway': false, env: {} };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const name = argv[i].replace(/^--/, '');
  if (name === 'skip-gateway') options[name] = true;
  else if (name === 'env') { const [key, ...value] = argv[++i].split('='); options.env[key] = value.join('='); }
  else if (name in options) options[name] = name === 'messages' ? argv[++i] : Number(argv[++i]);
  else throw new Error(`unknown option --${name}; see the usage at the top of ${process.argv[1]}`);
}

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const work = mkdtempSync(path.join(tmpdir(), 'grpcbp-describe-'));
const bin = (project) => path.join(root, project, 'bin', 'Release', 'net10.0');
const protoc = path.join(bin('LoadEngine'), 'protoc');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const freePort = () => new Promise((resolve) => {
  const server = net.createServer().listen(0, '127.0.0.1', () => { const { port } = server.address(); server.close(() => resolve(port)); });
});
const children = new Set();
process.on('exit', () => { for (const child of children) child.kill('SIGKILL'); rmSync(work, { recursive: true, force: true }); });

/** Starts a program; resolves once its output matched the pattern, with the first group. */
function start(command, args, pattern, { cwd = root, env = {}, log } = {}) {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let output = '';
  return new Promise((resolve, reject) => {
    const listen = (chunk) => {
      output += chunk;
      if (log) writeFileSync(log, output);
      const match = pattern.exec(output);
      if (match && !child.matched) { child.matched = true; resolve({ child, url: match[1], output: () => output }); }
    };
    child.stdout.on('data', listen);
    child.stderr.on('data', listen);
    child.on('exit', (code) => { if (!child.matched) reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${output}`)); });
  });
}

/** The highest peak RSS (VmHWM) any compile worker (LoadEngine.Compiler) reached while it ran, sampled every 100 ms. */
function watchWorkers() {
  let peak = 0;
  const timer = setInterval(() => {
    for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('LoadEngine.Compiler.dll')) peak = Math.max(peak, rssMiB(pid, 'VmHWM'));
      } catch { /* gone */ }
    }
  }, 100);
  return () => { clearInterval(timer); return peak; };
}

const rssMiB = (pid, field = 'VmRSS') => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

/** N messages of five string fields and a service, as a protoset the shipped protoc makes. */
function protoset(name, messages) {
  const lines = ['syntax = "proto3";', `package ${name};`];
  for (let i = 0; i < messages; i++) lines.push(`message M${i} { string f1 = 1; string f2 = 2; string f3 = 3; string f4 = 4; string f5 = 5; }`);
  lines.push('service S { rpc Call (M0) returns (M1); }');
  writeFileSync(path.join(work, `${name}.proto`), lines.join('\n'));
  const output = path.join(work, `${name}.protoset`);
  const made = spawnSync(path.join(protoc, 'tools', 'linux_x64', 'protoc'), [`-I${work}`, `-I${path.join(protoc, 'include')}`, '--include_imports', `--descriptor_set_out=${output}`, `${name}.proto`]);
  if (made.status !== 0) throw new Error(made.stderr.toString());
  return output;
}

const hostile = (set, ...modes) => start('node', ['hostile-reflection.js', '--set', set, ...modes], /Now listening on:? (http:\/\/\S+)/, { cwd: path.join(root, 'tests', 'interop') });

/** The CLI under /usr/bin/time: wall seconds, peak RSS, exit code and output. */
function cli(args, env) {
  const child = spawn('/usr/bin/time', ['-f', 'TIME %e %M', 'dotnet', path.join(bin('LoadTest'), 'LoadTest.dll'), ...args], { env: { ...process.env, ...env } });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => { stdout += chunk; });
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  return new Promise((resolve) => child.on('close', (code) => {
    children.delete(child);
    const [, seconds, kb] = /TIME (\S+) (\d+)/.exec(stderr);
    const said = (stderr.replace(/TIME .*\n?/, '').trim() || stdout.trim()).split('\n')[0];
    resolve({ seconds: Number(seconds), peakMiB: Number(kb) / 1024, exitCode: code, said, stdout });
  }));
}

async function gateway(targets, extra = []) {
  const url = `http://127.0.0.1:${await freePort()}`;
  const log = path.join(work, `gateway-${Date.now()}.log`);
  const args = [path.join(bin('ApiGateway'), 'ApiGateway.dll'), '--urls', url, '--ServerUrl', `http://127.0.0.1:${await freePort()}`,
    '--Protocols:Http1Url', '', '--Protocols:TlsUrl', '', '--Protocols:CertificatePath', '', '--History:DatabasePath', path.join(work, `history-${Date.now()}.db`),
    '--Runs:WarmUpAtStart', 'false', ...Object.entries(targets).flatMap(([key, value]) => [`--Targets:${key}`, value]), ...extra];
  const started = Date.now();
  const app = await start('dotnet', args, /Now listening on: (http:\/\/\S+)/, { cwd: bin('ApiGateway'), log, env: options.env });
  return { ...app, url, started, log, database: args[args.indexOf('--History:DatabasePath') + 1] };
}

/** The GC's committed bytes at its last collection, as the gateway's /metrics says. */
async function gcCommittedMiB(url) {
  const match = /^dotnet_gc_last_collection_memory_committed_size_bytes\{?[^}\n]*\}? (\S+)$/m.exec(await (await fetch(`${url}/metrics`)).text());
  const text = await (await fetch(`${url}/metrics`)).text();
  const assemblies = /^dotnet_assembly_count\S* (\S+)$/m.exec(text)?.[1];
  const jit = /^dotnet_jit_compiled_il_size_bytes\S* (\S+)$/m.exec(text)?.[1];
  return match ? `${(Number(match[1]) / 1024 / 1024).toFixed(0)}, ${assemblies} assemblies, JIT IL ${(Number(jit) / 1024 / 1024).toFixed(1)} MiB` : '?';
}

const json = async (url, init) => { const response = await fetch(url, init); return { status: response.status, body: await response.json() }; };

const seconds = (ms) => (ms / 1000).toFixed(1);
console.log(`describe.mjs on ${spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim()}, ` +
  `${new Date().toISOString()}, load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);

// 1. Big sets, by the CLI and by a gateway.
for (const count of options.messages.split(',').filter(Boolean).map(Number)) {
  const set = protoset(`big${count}`, count);
  const server = await hostile(set);
  let workers = watchWorkers();
  const listed = await cli([server.url.replace('http://', ''), '--insecure', '--list'], { XDG_CACHE_HOME: mkdtempSync(path.join(work, 'cache-')) });
  console.log(`${count} messages, CLI --list: ${listed.seconds} s, peak RSS ${listed.peakMiB.toFixed(0)} MiB (its compile worker's ${workers().toFixed(0)} MiB), exit ${listed.exitCode}: ${listed.said.slice(0, 160)}`);
  if (!options['skip-gateway']) {
    workers = watchWorkers();
    const app = await gateway({ 'big:Address': server.url });
    let view;
    for (;;) {
      view = (await json(`${app.url}/api/targets`)).body.find((target) => target.name === 'big');
      if (view.methods.length > 0 || (view.problem && !/could not be reached/.test(view.problem))) break;
      await sleep(200);
    }
    console.log(`${count} messages, gateway: ${seconds(Date.now() - app.started)} s from start to ${view.methods.length ? `${view.methods.length} method(s)` : `"${view.problem.slice(0, 160)}"`}, ` +
      `peak RSS ${rssMiB(app.child.pid, 'VmHWM').toFixed(0)} MiB (its compile worker's ${workers().toFixed(0)} MiB), now ${rssMiB(app.child.pid).toFixed(0)} MiB`);
    app.child.kill('SIGKILL');
  }

  server.child.kill('SIGKILL');
}

// 2. Refreshes of a set that changes on every describe.
if (!options['skip-gateway'] && options.refreshes > 0) {
  const server = await hostile(protoset('tiny', 3), '--changing');
  const app = await gateway({ 'changing:Address': server.url });
  const refresh = async () => {
    const { status, body } = process.env.PROBE_GET ? { status: 200, body: (await json(`${app.url}/api/targets`)).body.find((t) => t.name === 'changing') } : await json(`${app.url}/api/targets/changing/refresh`, { method: 'POST' });
    if (status !== 200 || body.methods.length === 0) throw new Error(`refresh: ${status} ${JSON.stringify(body).slice(0, 300)}`);
  };
  for (let i = 0; i < 20; i++) await refresh();
  const before = rssMiB(app.child.pid);
  const began = Date.now();
  const steps = [];
  for (let i = 1; i <= options.refreshes; i++) {
    await refresh();
    if (i % 50 === 0) steps.push(`${i}: ${rssMiB(app.child.pid).toFixed(0)} (GC ${await gcCommittedMiB(app.url)})`);
  }
  const after = rssMiB(app.child.pid);
  console.log(`${options.refreshes} refreshes of a changing set: ${seconds(Date.now() - began)} s, RSS ${before.toFixed(0)} MiB after the first 20, ` +
    `${after.toFixed(0)} MiB after (${(after - before >= 0 ? '+' : '')}${(after - before).toFixed(0)} MiB), peak ${rssMiB(app.child.pid, 'VmHWM').toFixed(0)} MiB; MiB along the way ${steps.join(', ')}`);
  app.child.kill('SIGKILL');
  server.child.kill('SIGKILL');
}

// 3. The CLI's start-up, first and then with its cache.
{
  const service = await start('dotnet', [path.join(bin('PerformanceService'), 'PerformanceService.dll'), '--urls', 'http://127.0.0.1:0', '--Protocols:Http1Url', '',
    '--Protocols:TlsUrl', '', '--Metrics:Url', '', '--Protocols:CertificateFolder', work], /Listening for h2c \([^)]*\) on (\S+)/, { cwd: bin('PerformanceService') });
  const cache = mkdtempSync(path.join(work, 'cache-'));
  for (let i = 1; i <= options.starts; i++) {
    const out = path.join(work, `start-${i}.json`);
    const began = Date.now();
    const run = await cli([service.url.replace('http://', ''), '--insecure', '--call', 'performance.Monitor/GetPerformance', '--strategy', 'client-wrapper', '--count', '1', '--json', out], { XDG_CACHE_HOME: cache });
    const document = JSON.parse(readFileSync(out, 'utf8'));
    const firstRun = document.runs?.[0] ?? document;
    console.log(`CLI start ${i} (${i === 1 ? 'compiles' : 'from its cache'}): first run started ${seconds(Date.parse(firstRun.startedAt) - began)} s after the process, ${run.seconds} s in all, exit ${run.exitCode}`);
  }

  service.child.kill('SIGKILL');
}

// 4. A metadata value the target echoes, searched for everywhere the gateway writes.
if (!options['skip-gateway']) {
  const secret = randomBytes(30).toString('base64url');
  const server = await hostile(protoset('echo', 2));
  const app = await gateway({ 'echo:Address': server.url, 'echo:Metadata:authorization': `Bearer ${secret}` });
  const { body: started } = await json(`${app.url}/api/runs`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: 'echo', call: 'echo.S/Call', strategy: 'client-wrapper', count: 20 }) });
  let run;
  do { await sleep(200); run = (await json(`${app.url}/api/runs/${started.id}`)).body; } while (run.state === 'Running');
  const texts = {
    'GET /api/runs': await (await fetch(`${app.url}/api/runs`)).text(),
    'the run': JSON.stringify(run),
    'its report': await (await fetch(`${app.url}/api/runs/${started.id}/report`)).text(),
    'its export': await (await fetch(`${app.url}/api/runs/${started.id}/export`)).text(),
    'the history database': readdirSync(path.dirname(app.database)).filter((file) => file.startsWith(path.basename(app.database)))
      .map((file) => readFileSync(path.join(path.dirname(app.database), file)).toString('latin1')).join(''),
    'the log': readFileSync(app.log, 'utf8'),
  };
  const hits = Object.entries(texts).map(([where, text]) => `${where} ${text.split(secret).length - 1}`);
  console.log(`An echoed authorization value (run ${run.state}, first answer ${JSON.stringify(run.stats?.firstAnswer ?? '').slice(0, 80)}): hits in ${hits.join(', ')}`);
  app.child.kill('SIGKILL');
  server.child.kill('SIGKILL');
}

process.exit(0);
