// The "Upload memory" table of docs/protocols.md: bench/memory.mjs's upload mode on each path, one upload at a time
// and eight in parallel over eight clients, each measurement repeated (the machine is shared, and RSS moves with it),
// as ranges.
// Usage: node bench/upload-memory.mjs [--repeat 3] [--file-bytes 104857600] [--contenders grpc-h2-cleartext,...]
// Builds nothing: run `dotnet build GrpcBestPractices.sln -c Release` first. Each measurement starts its own service
// and gateway; progress goes to stderr, the table to stdout.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import os from 'node:os';
import { summaryRow, MiB } from './memory-figures.mjs';

const argument = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const repeat = Number(argument('--repeat', '3'));
const fileBytes = argument('--file-bytes', String(100 * MiB));
const contenders = argument('--contenders', 'grpc-h2-cleartext,grpc-code-first-h2-cleartext,rest-stj-h1-cleartext,rest-stj-h2-cleartext,grpc-h2-tls').split(',');
const shapes = [['--count', '4'], ['--clients', '8', '--concurrency', '8', '--count', '8']];
const script = path.join(path.dirname(new URL(import.meta.url).pathname), 'memory.mjs');

console.log(`file-upload, ${repeat} measurements each; ${os.cpus().length} × ${os.cpus()[0].model.trim()}, ${new Date().toISOString().slice(0, 10)}`);
console.log('');
console.log('| path | file × uploads | in flight | throughput | gateway RSS growth | service RSS growth | gateway: file bytes held | service: file bytes held | bound | RSS met | held met |');
console.log('|---|---|---|---:|---:|---:|---:|---:|---:|---|---|');
for (const shape of shapes) {
  for (const contender of contenders) {
    const results = [];
    for (let i = 1; i <= repeat; i++) {
      process.stderr.write(`${contender} ${shape.join(' ')}: ${i} of ${repeat}\n`);
      const run = spawnSync('node', [script, 'upload', contender, '--file-bytes', fileBytes, ...shape, '--json'], { encoding: 'utf8', maxBuffer: 64 * MiB });
      const json = run.stdout.split('\n').find((line) => line.startsWith('{'));
      if (run.status !== 0 || !json) throw new Error(`bench/memory.mjs upload ${contender} ${shape.join(' ')} failed (${run.status}):\n${run.stdout}${run.stderr}`);
      results.push(JSON.parse(json));
    }

    console.log(summaryRow(results));
  }
}
