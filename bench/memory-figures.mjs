// The arithmetic of bench/memory.mjs, apart from the processes it starts, so that it can be tested on its own
// (bench/memory-figures.test.mjs): its command line, how many uploads are really in flight, the chunk size the gateway
// states, the bound of issue 11 and whether a growth met it.

export const MiB = 1024 * 1024;

/** Issue 11: "memory growth stays under 4 × chunk size × parallelism". */
export const ChunksPerUpload = 4;

const usage = 'usage: node bench/memory.mjs [STRATEGY [COUNT [CONCURRENCY]]]  |  node bench/memory.mjs STRATEGY open RATE SECONDS  |  ' +
  'node bench/memory.mjs upload CONTENDER [--file-bytes N] [--clients N] [--concurrency N] [--count N] [--warmup N] [--interval-ms N] [--json]';

const uploadDefaults = { fileBytes: 100 * MiB, clients: 1, concurrency: 1, count: 4, warmup: null, intervalMs: 50, json: false };
const uploadOptions = { '--file-bytes': 'fileBytes', '--clients': 'clients', '--concurrency': 'concurrency', '--count': 'count', '--warmup': 'warmup', '--interval-ms': 'intervalMs' };

/**
 * The command line as what to run: a strategy run as before, or an upload run of a contender (file-upload). An upload
 * run with one upload in flight is the workload's own sequential load; more is a closed load of that many.
 */
export function parseArguments(argv) {
  if (argv[0] !== 'upload') {
    const [strategy = 'streaming-call', count = '1000000', concurrency = '100', seconds] = argv;
    return { mode: 'strategy', strategy, count, concurrency, seconds, open: count === 'open' };
  }

  const contender = argv[1];
  if (!contender || contender.startsWith('--')) throw new Error(`upload needs a contender, e.g. grpc-h2-cleartext; ${usage}`);
  const settings = { ...uploadDefaults };
  for (let i = 2; i < argv.length; i += 2) {
    if (argv[i] === '--json') {
      settings.json = true;
      i--;
      continue;
    }

    const key = uploadOptions[argv[i]];
    const value = Number(argv[i + 1]);
    if (!key) throw new Error(`'${argv[i]}' is not an option of upload; ${usage}`);
    if (!Number.isInteger(value) || value < (key === 'warmup' ? 0 : 1)) throw new Error(`${argv[i]} takes a whole number${key === 'warmup' ? '' : ' of at least 1'}, not '${argv[i + 1] ?? ''}'.`);
    settings[key] = value;
  }

  // The warm-up uses every client twice, so each connection has carried an upload before the baseline is read.
  settings.warmup ??= 2 * Math.max(settings.clients, Math.min(settings.concurrency, settings.count));
  return { mode: 'upload', contender, ...settings };
}

/**
 * The run request of an upload run: the contender's four fields, the file, the clients, the load, and its end: a count
 * of uploads, or a duration in seconds (the control run lasts as long as the measured one, so it is sampled as often).
 */
export function uploadPlan(contender, settings, { count, duration }) {
  const parallel = Math.min(settings.concurrency, count ?? settings.concurrency);
  return {
    workload: 'file-upload', protocol: contender.protocol, serializer: contender.serializer, httpVersion: contender.httpVersion, security: contender.security,
    fileBytes: settings.fileBytes, clients: settings.clients, ...(count ? { count } : { duration }),
    ...(parallel > 1 ? { load: 'closed', concurrency: parallel } : { load: 'sequential' }),
  };
}

/**
 * Uploads in flight at once, from the plan the engine ran (not from the request): one under the sequential load,
 * the concurrency under a closed load (the engine runs that many workers, whatever the number of clients they share).
 */
export function inFlight(plan) {
  if (plan.load === 'sequential') return 1;
  if (plan.load === 'closed') return plan.concurrency;
  throw new Error(`an upload run under the ${plan.load} load has no fixed number of uploads in flight; use sequential or closed.`);
}

/** The chunk size the gateway states for file-upload ("... a file in 64 KiB pieces ..."), in bytes. */
export function chunkBytesOf(workload) {
  const match = /in (\d+) KiB pieces/.exec(workload.what ?? '');
  if (!match) throw new Error(`file-upload no longer states its chunk size as "in N KiB pieces": '${workload.what}'.`);
  return Number(match[1]) * 1024;
}

/** Bytes a process may grow by: 4 × chunk size × uploads in flight. */
export const bound = (chunkBytes, parallel) => ChunksPerUpload * chunkBytes * parallel;

/** Growth from the baseline to the peak, and whether it stayed under the bound (a process that shrank grew by 0). */
export function verdict(baselineBytes, peakBytes, boundBytes) {
  const growth = Math.max(0, peakBytes - baselineBytes);
  return { growth, met: growth < boundBytes, times: growth / boundBytes };
}

/** "1.6 MiB", "256 KiB", "100 MiB": two significant decimals at most, the unit that reads best. */
export function size(bytes) {
  const [value, unit] = Math.abs(bytes) >= MiB ? [bytes / MiB, 'MiB'] : [bytes / 1024, 'KiB'];
  return `${Number(value.toFixed(Math.abs(value) >= 100 ? 0 : 1))} ${unit}`;
}

/** "met" or "not met (3.2 × the bound)". */
export const met = (result) => (result.met ? 'met' : `not met (${result.times.toFixed(1)} × the bound)`);

/** Several measurements of one figure as "lowest–highest" (one value when they read the same). */
export function span(values, format = size) {
  const [low, high] = [format(Math.min(...values)), format(Math.max(...values))];
  const unit = (text) => text.slice(text.indexOf(' '));
  return low === high ? low : unit(low) === unit(high) ? `${low.slice(0, low.indexOf(' '))}–${high}` : `${low}–${high}`;
}

/** How many of the measurements met the bound: "yes", "no", or "2 of 3". */
export function times(flags) {
  const met = flags.filter(Boolean).length;
  return met === flags.length ? 'yes' : met === 0 ? 'no' : `${met} of ${flags.length}`;
}

/**
 * The row of docs/protocols.md's "Upload memory" table for repeated upload runs of one path and shape (the --json
 * results of bench/memory.mjs): path, file × uploads, uploads in flight over clients, throughput, each process's RSS
 * growth and the file's bytes it held (as ranges over the repeats), the bound, and whether each figure met it.
 */
export function summaryRow(results) {
  const [first] = results;
  const of = (process, figure) => results.map((result) => result[process][figure]);
  return `| ${first.label} | ${size(first.fileBytes)} × ${first.uploads} | ${first.parallel} over ${first.clients} | ` +
    `${span(results.map((result) => result.mibPerSecond), (value) => `${Math.round(value)} MiB/s`)} | ` +
    `${span(of('gateway', 'rssGrowth'))} | ${span(of('service', 'rssGrowth'))} | ${span(of('gateway', 'fileHeld'))} | ${span(of('service', 'fileHeld'))} | ` +
    `${size(first.bound)} | ${times([...of('gateway', 'rssGrowth'), ...of('service', 'rssGrowth')].map((growth) => growth < first.bound))} | ` +
    `${times([...of('gateway', 'fileHeld'), ...of('service', 'fileHeld')].map((held) => held < first.bound))} |`;
}

/**
 * What a process's memory probe (bench/MemoryProbe) saw during a run, from its samples and the run's start and end
 * times. The baseline is the last sample before the start, which follows a full GC the bench asked for, so its live
 * figure is what was really alive; the first sample after a full GC asked for after the end says what the run left.
 * Sizes in bytes.
 * - heapGrowth: the managed heap in use, garbage included (what piles up between GCs: the GC's budget);
 * - liveGrowth: the most the run's GCs found alive above the baseline (null when no GC ran, so none looked), and
 *   largeGrowth, the part of it on the large object heap (arrays from 85 000 bytes);
 * - rentedMost: the most bytes rented from ArrayPool<byte>.Shared at once (the probe follows it in held runs only);
 * - held: at most what the run held at once: Kestrel's buffers and ArrayPool's rented buffers most in use, plus the
 *   live growth other than the arrays either pool added (they are alive too, and counted once) or, with no GC in the
 *   run, all the heap grew by. An upper bound (two maxima, maybe at different moments), and a close one when the probe
 *   made a full GC before every sample (the bench's held runs);
 * - retained: alive after the run's end and a full GC, above the baseline;
 * - committed, gen0Budget, gcs, allocated, pool: what explains the rest.
 */
export function managedFigures(samples, from, to) {
  if (samples.length === 0) throw new Error('the memory probe wrote no sample: is bench/MemoryProbe built?');
  const baseline = samples.filter((s) => s.time <= from).at(-1) ?? samples[0];
  const during = samples.filter((s) => s.time > from && s.time <= to);
  const last = during.at(-1) ?? baseline;
  const after = samples.find((s) => s.time > to && s.collected);
  const most = (key, among = during) => Math.max(baseline[key], ...among.map((s) => s[key]));
  const collected = during.filter((s) => s.gen0 > baseline.gen0);
  const heapGrowth = most('heapBytes') - baseline.heapBytes;
  const liveGrowth = collected.length ? most('liveAfterGcBytes', collected) - baseline.liveAfterGcBytes : null;
  const largeGrowth = collected.length ? most('largeAfterGcBytes', collected) - baseline.largeAfterGcBytes : null;
  const poolMostInUse = Math.max(0, ...during.map((s) => s.poolMostInUseBytes));
  const poolGrowth = most('poolBytes') - baseline.poolBytes;
  const rentedMost = Math.max(0, ...during.map((s) => s.mostRentedBytes));
  const rentedAllocated = last.rentedAllocatedBytes - baseline.rentedAllocatedBytes;
  return {
    baseline, samples: during.length, heapGrowth, liveGrowth, largeGrowth, poolMostInUse, rentedMost,
    held: poolMostInUse + rentedMost + Math.max(0, (liveGrowth ?? heapGrowth) - poolGrowth - rentedAllocated),
    retained: after ? after.liveAfterGcBytes - baseline.liveAfterGcBytes : null,
    committed: { baseline: baseline.committedBytes, most: most('committedBytes') },
    gen0Budget: most('gen0BudgetBytes'),
    gcs: { gen0: last.gen0 - baseline.gen0, gen1: last.gen1 - baseline.gen1, gen2: last.gen2 - baseline.gen2 },
    allocated: last.allocatedBytes - baseline.allocatedBytes,
    pool: { baseline: baseline.poolBytes, most: most('poolBytes') },
  };
}

/**
 * A process's resident memory by kind, from its /proc/PID/smaps text, in bytes: the JIT's code and stubs (the runtime
 * maps them through a memfd named "doublemapper"), thread stacks (8 MiB anonymous mappings, glibc's default), files
 * mapped in (assemblies, native libraries), and all other anonymous memory: the GC's heap and native allocations.
 */
export function residentByKind(smaps) {
  const kinds = { jit: 0, stacks: 0, files: 0, anonymous: 0 };
  let kind = null;
  for (const line of smaps.split('\n')) {
    const mapping = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) {
      const [, start, end, name] = mapping;
      kind = name.includes('doublemapper') ? 'jit'
        : name.startsWith('/') ? 'files'
        : name === '' && parseInt(end, 16) - parseInt(start, 16) === 8 * MiB ? 'stacks'
        : 'anonymous';
    } else if (kind && line.startsWith('Rss:')) {
      kinds[kind] += Number(line.split(/\s+/)[1]) * 1024;
    }
  }
  return kinds;
}
