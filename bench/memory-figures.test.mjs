// node --test bench/memory-figures.test.mjs (run by BenchFiguresTests): the arithmetic of bench/memory.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArguments, uploadPlan, inFlight, chunkBytesOf, bound, verdict, managedFigures, residentByKind, size, span, times, summaryRow, MiB } from './memory-figures.mjs';

test('without "upload" the command line is a strategy run, as before', () => {
  assert.deepEqual(parseArguments([]), { mode: 'strategy', strategy: 'streaming-call', count: '1000000', concurrency: '100', seconds: undefined, open: false });
  assert.equal(parseArguments(['multiple-connections', 'open', '20000', '600']).open, true);
});

test('an upload run takes its settings, warms up every client or upload in flight twice, and refuses what it does not know', () => {
  const parsed = parseArguments(['upload', 'grpc-h2-cleartext', '--clients', '8', '--concurrency', '8', '--count', '8']);
  assert.deepEqual(parsed, { mode: 'upload', contender: 'grpc-h2-cleartext', fileBytes: 100 * MiB, clients: 8, concurrency: 8, count: 8, warmup: 16, intervalMs: 50, json: false });
  assert.equal(parseArguments(['upload', 'rest-stj-h1-cleartext', '--clients', '3']).warmup, 6);
  assert.equal(parseArguments(['upload', 'rest-stj-h1-cleartext', '--warmup', '0']).warmup, 0);
  assert.equal(parseArguments(['upload', 'rest-stj-h1-cleartext', '--json', '--count', '2']).json, true);
  assert.throws(() => parseArguments(['upload']), /needs a contender/);
  assert.throws(() => parseArguments(['upload', 'grpc-h2-cleartext', '--parallel', '8']), /'--parallel' is not an option/);
  assert.throws(() => parseArguments(['upload', 'grpc-h2-cleartext', '--count', '0']), /--count takes a whole number of at least 1/);
});

test('one upload in flight is the sequential load; more is a closed load of that many, never more than the count', () => {
  const contender = { protocol: 'rest', serializer: 'system-text-json', httpVersion: '1.1', security: 'tls' };
  const settings = { fileBytes: 1024, clients: 8, concurrency: 8 };
  assert.deepEqual(uploadPlan(contender, { ...settings, concurrency: 1 }, { count: 4 }), {
    workload: 'file-upload', protocol: 'rest', serializer: 'system-text-json', httpVersion: '1.1', security: 'tls', fileBytes: 1024, clients: 8, count: 4, load: 'sequential',
  });
  assert.equal(uploadPlan(contender, settings, { count: 8 }).concurrency, 8);
  assert.equal(uploadPlan(contender, settings, { count: 3 }).concurrency, 3);
});

test('a run may end after a duration instead, with every upload in flight', () => {
  const plan = uploadPlan({ protocol: 'grpc' }, { fileBytes: 1024, clients: 8, concurrency: 8 }, { duration: 2.5 });
  assert.equal(plan.duration, 2.5);
  assert.equal(plan.count, undefined);
  assert.equal(plan.concurrency, 8);
});

test('uploads in flight come from the plan the engine ran: clients alone run nothing in parallel', () => {
  assert.equal(inFlight({ load: 'sequential', concurrency: 1, clients: 8 }), 1);
  assert.equal(inFlight({ load: 'closed', concurrency: 8, clients: 1 }), 8);
  assert.throws(() => inFlight({ load: 'open', concurrency: 100 }), /no fixed number/);
});

test('the chunk size is the one the gateway states, and the bound is 4 chunks per upload in flight', () => {
  assert.equal(chunkBytesOf({ what: 'Each call uploads a file in 64 KiB pieces (gRPC: ...)' }), 65536);
  assert.throws(() => chunkBytesOf({ what: 'Each call uploads a file.' }), /no longer states its chunk size/);
  assert.equal(bound(65536, 8), 2 * MiB);
});

test('growth is peak minus baseline, never below 0, and meets the bound only under it', () => {
  assert.deepEqual(verdict(100, 90, 10), { growth: 0, met: true, times: 0 });
  assert.deepEqual(verdict(100, 130, 10), { growth: 30, met: false, times: 3 });
  assert.equal(verdict(100, 110, 10).met, false);
});

test('sizes read in KiB below a MiB and in MiB from there', () => {
  assert.equal(size(256 * 1024), '256 KiB');
  assert.equal(size(1.5 * MiB), '1.5 MiB');
  assert.equal(size(100 * MiB), '100 MiB');
  assert.equal(size(0), '0 KiB');
});

const sample = (time, fields = {}) => ({
  collected: false, time, heapBytes: 10 * MiB, liveAfterGcBytes: 4 * MiB, gen0BudgetBytes: MiB, committedBytes: 20 * MiB, allocatedBytes: 0,
  gen0: 5, gen1: 1, gen2: 1, largeAfterGcBytes: MiB, poolBytes: MiB, poolInUseBytes: 0, poolMostInUseBytes: 0,
  rentedBytes: 0, mostRentedBytes: 0, rentedAllocatedBytes: 2 * MiB, ...fields,
});

test("the probe's samples: what the run's GCs found alive, Kestrel's buffers counted once, and what a full GC after it found", () => {
  const samples = [
    sample(0),
    sample(10, { collected: true }),
    sample(20, { heapBytes: 14 * MiB, allocatedBytes: 4 * MiB, poolMostInUseBytes: 512 * 1024 }),
    // A GC found 1.5 MiB more alive: 256 KiB of it new blocks of Kestrel's pool, 128 KiB a new array of ArrayPool's.
    sample(30, {
      heapBytes: 6 * MiB, liveAfterGcBytes: 5.5 * MiB, largeAfterGcBytes: 1.125 * MiB, allocatedBytes: 8 * MiB, gen0: 6, poolBytes: 1.25 * MiB, poolMostInUseBytes: 768 * 1024,
      rentedBytes: 192 * 1024, mostRentedBytes: 256 * 1024, rentedAllocatedBytes: 2.125 * MiB,
    }),
    sample(40, { heapBytes: 8 * MiB, liveAfterGcBytes: 5 * MiB, allocatedBytes: 10 * MiB, gen0: 7, gen1: 2, poolBytes: 1.25 * MiB, rentedAllocatedBytes: 2.125 * MiB }),
    sample(50, { collected: true, liveAfterGcBytes: 4.25 * MiB, gen0: 8, gen1: 3, gen2: 2 }),
  ];
  const figures = managedFigures(samples, 15, 45);
  assert.equal(figures.baseline.time, 10);
  assert.equal(figures.samples, 3);
  assert.equal(figures.heapGrowth, 4 * MiB);
  assert.equal(figures.liveGrowth, 1.5 * MiB);
  assert.equal(figures.largeGrowth, 0.125 * MiB);
  assert.equal(figures.poolMostInUse, 768 * 1024);
  assert.equal(figures.rentedMost, 256 * 1024);
  assert.equal(figures.held, 768 * 1024 + 256 * 1024 + 1.125 * MiB);
  assert.equal(figures.retained, 0.25 * MiB);
  assert.deepEqual(figures.gcs, { gen0: 2, gen1: 1, gen2: 0 });
  assert.equal(figures.allocated, 10 * MiB);
});

test('with no GC in the run nothing was found alive, so all the heap grew by counts as held', () => {
  const figures = managedFigures([sample(10, { collected: true }), sample(20, { heapBytes: 10.5 * MiB, poolMostInUseBytes: 4096 })], 15, 25);
  assert.equal(figures.liveGrowth, null);
  assert.equal(figures.largeGrowth, null);
  assert.equal(figures.held, 4096 + 0.5 * MiB);
  assert.equal(figures.retained, null);
  assert.throws(() => managedFigures([], 0, 1), /wrote no sample/);
});

test('resident memory by kind: JIT code, thread stacks, files, and the rest anonymous', () => {
  const smaps = [
    '7f5348000000-7f5348638000 rw-p 00000000 00:00 0 ',
    'Size:               6368 kB',
    'Rss:                6368 kB',
    '7f9404870000-7f9404910000 rw-s 00000000 00:01 1234                       /memfd:doublemapper (deleted)',
    'Rss:                 640 kB',
    '7f93ff480000-7f93fffcc000 r-xp 00000000 08:01 42                         /usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/System.Private.CoreLib.dll',
    'Rss:                7344 kB',
    '7f0000000000-7f0000800000 rw-p 00000000 00:00 0 ',
    'Rss:                 120 kB',
    '55caab908000-55caabc2a000 rw-p 00000000 00:00 0                          [heap]',
    'Rss:                3108 kB',
  ].join('\n');
  assert.deepEqual(residentByKind(smaps), { jit: 640 * 1024, stacks: 120 * 1024, files: 7344 * 1024, anonymous: (6368 + 3108) * 1024 });
});

test('repeated measurements read as ranges, and "met" says how many of them met the bound', () => {
  assert.equal(span([1.2 * MiB, 3.4 * MiB]), '1.2–3.4 MiB');
  assert.equal(span([200 * 1024, 3 * MiB]), '200 KiB–3 MiB');
  assert.equal(span([5 * MiB, 5 * MiB]), '5 MiB');
  assert.equal(span([180.4, 240.2], (value) => `${Math.round(value)} MiB/s`), '180–240 MiB/s');
  assert.equal(times([true, true]), 'yes');
  assert.equal(times([false, false]), 'no');
  assert.equal(times([true, false, true]), '2 of 3');
  const result = (rss, held) => ({
    label: 'REST · System.Text.Json · HTTP/1.1 · cleartext', fileBytes: 100 * MiB, uploads: 4, parallel: 1, clients: 1, bound: 256 * 1024, mibPerSecond: 400,
    gateway: { rssGrowth: rss, fileHeld: held }, service: { rssGrowth: 2 * rss, fileHeld: 2 * held },
  });
  assert.equal(summaryRow([result(MiB, 10 * 1024), result(2 * MiB, 100 * 1024)]),
    '| REST · System.Text.Json · HTTP/1.1 · cleartext | 100 MiB × 4 | 1 over 1 | 400 MiB/s | 1–2 MiB | 2–4 MiB | 10–100 KiB | 20–200 KiB | 256 KiB | no | yes |');
});
