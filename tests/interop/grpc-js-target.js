// interop.inventory.Inventory (protos/inventory.proto) served by grpc-js with server reflection: a target the project did
// not write, for proving the tool's descriptor path, call kinds, metadata, TLS and connection counts against it.
//
//   node grpc-js-target.js [--port 0] [--tls --cert server.pem --key server-key.pem] [--client-ca ca.pem]
//                          [--no-reflection | --reflection-v1alpha-only] [--reflection-protoset inventory.protoset]
//                          [--max-concurrent-streams N] [--require-metadata KEY]
//                          [--fail-every N [--fail-code C] [--fail-detail TEXT]]
//
// Prints "Now listening on: http(s)://127.0.0.1:<port>" once bound; --client-ca requires and verifies client certificates;
// --require-metadata refuses every call without that metadata key (reflection's too, not Stats, the tests' own) with
// PermissionDenied, as a service that reads a tenant from its headers does.
// Reflection is @grpc/reflection as grpc-js users run it: it serves the descriptors proto-loader regenerates (files named
// after packages, e.g. interop_inventory.proto, no dependency lists, map entries named after the field; grpc/grpc-node#3034).
// --reflection-protoset serves protoc's descriptors instead (the set's real file names and imports), as grpc-go or
// grpc-dotnet would. --fail-every N fails every Nth GetItem call the server receives (the Nth, 2Nth, ...) with status C
// (default 9, FAILED_PRECONDITION) and the message TEXT, whatever the request asks: a service that partly fails, with
// words a test knows.
const fs = require('fs');
const path = require('path');
const { parseArgs } = require('util');
const grpc = require('@grpc/grpc-js');
const loader = require('@grpc/proto-loader');
const { ReflectionService } = require('@grpc/reflection');

const fail = (sentence) => { console.error(sentence); process.exit(2); };

let options;
try {
  options = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      tls: { type: 'boolean', default: false },
      cert: { type: 'string' },
      key: { type: 'string' },
      'client-ca': { type: 'string' },
      'no-reflection': { type: 'boolean', default: false },
      'reflection-v1alpha-only': { type: 'boolean', default: false },
      'reflection-protoset': { type: 'string' },
      'max-concurrent-streams': { type: 'string' },
      'require-metadata': { type: 'string' },
      'fail-every': { type: 'string' },
      'fail-code': { type: 'string', default: '9' },
      'fail-detail': { type: 'string', default: 'failed by --fail-every' },
    },
  }).values;
} catch (error) {
  fail(error.message);
}

const port = Number(options.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port was ${options.port}; it must be a port number from 0 to 65535.`);
const failEvery = options['fail-every'] === undefined ? 0 : Number(options['fail-every']);
if (!Number.isInteger(failEvery) || failEvery < 0) fail(`--fail-every was ${options['fail-every']}; it must be a whole number of calls, 1 or more.`);
const failCode = Number(options['fail-code']);
if (!Number.isInteger(failCode) || failCode < 1 || failCode > 16) fail(`--fail-code was ${options['fail-code']}; it must be a gRPC status code from 1 to 16.`);
let unaryCalls = 0;
const secure = options.tls || options['client-ca'] !== undefined;
if (secure && (!options.cert || !options.key)) fail('--tls and --client-ca need --cert and --key (PEM files).');
const read = (file, option) => {
  try { return fs.readFileSync(file); } catch (error) { return fail(`${option} ${file} could not be read: ${error.message}`); }
};

const protos = path.join(__dirname, 'protos');
const definition = loader.loadSync(path.join(protos, 'inventory.proto'), {
  includeDirs: [protos, path.join(protos, 'shared')],
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
});
const { Inventory } = grpc.loadPackageDefinition(definition).interop.inventory;

// What the server saw per method: calls, distinct peers (client ip:port, one per TCP connection), most in flight at once.
let seen = new Map();
const track = (method, call) => {
  const stats = seen.get(method) ?? { calls: 0, peers: new Set(), inFlight: 0, maxInFlight: 0 };
  seen.set(method, stats);
  stats.calls += 1;
  stats.peers.add(call.getPeer());
  stats.inFlight += 1;
  stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
  let done = false;
  return () => { if (!done) { done = true; stats.inFlight -= 1; } };
};

// The call's metadata as it arrived: text values joined, -bin values as the bytes received.
const metadataOf = (call) => {
  const text = {};
  const binary = {};
  for (const [key, values] of Object.entries(call.metadata.toJSON())) {
    if (key.endsWith('-bin')) binary[key] = Buffer.concat(values);
    else text[key] = values.join(', ');
  }
  return { metadata: text, binary_metadata: binary };
};

const callFacts = (call) => ({
  ...metadataOf(call),
  peer: call.getPeer(),
  authority: call.getHost(),
  client_certificate: call.getAuthContext().sslPeerCertificate?.subject?.CN ?? '',
});

const failure = (item, call) => item.fail_code
  ? {
    code: item.fail_code,
    details: item.fail_detail
      ? item.fail_detail.replaceAll('{metadata}', JSON.stringify(metadataOf(call).metadata))
      : `The request asked for status ${item.fail_code} (fail_code).`,
  }
  : null;
const later = (item, action) => (item.delay_ms > 0 ? setTimeout(action, item.delay_ms) : setImmediate(action));

// A server interceptor sees every call's metadata before its handler, reflection's included.
const required = options['require-metadata'];
const requireMetadata = (method, call) => new grpc.ServerInterceptingCall(call, {
  start: (next) => next({
    onReceiveMetadata: (metadata, proceed) => {
      if (method.path.endsWith('/Stats') || metadata.get(required).length > 0) proceed(metadata);
      else call.sendStatus({ code: grpc.status.PERMISSION_DENIED, details: `metadata ${required} is required; the call carried none.` });
    },
  }),
});

const server = new grpc.Server({
  ...(options['max-concurrent-streams'] === undefined ? {} : { 'grpc.max_concurrent_streams': Number(options['max-concurrent-streams']) }),
  ...(required === undefined ? {} : { interceptors: [requireMetadata] }),
});

server.addService(Inventory.service, {
  GetItem: (call, callback) => {
    const done = track('GetItem', call);
    const item = call.request;
    unaryCalls += 1;
    const failedByOption = failEvery > 0 && unaryCalls % failEvery === 0;
    later(item, () => {
      done();
      const error = failedByOption ? { code: failCode, details: options['fail-detail'] } : failure(item, call);
      callback(error, error ? undefined : { item, index: 0, ...callFacts(call) });
    });
  },
  ListItems: (call) => {
    const done = track('ListItems', call);
    call.on('cancelled', done);
    const { item, count } = call.request;
    if (count < 0 || count > 100000) {
      done();
      call.emit('error', { code: grpc.status.INVALID_ARGUMENT, details: `count was ${count}; it must be from 0 to 100000.` });
      return;
    }
    later(item ?? {}, () => {
      const error = failure(item ?? {}, call);
      if (error) { done(); call.emit('error', error); return; }
      const facts = callFacts(call);
      for (let index = 0; index < count; index++) call.write({ item, index, ...facts });
      done();
      call.end();
    });
  },
  RecordItems: (call, callback) => {
    const done = track('RecordItems', call);
    call.on('cancelled', done);
    const summary = { count: 0, total_quantity: 0n, skus: [] };
    let error = null;
    call.on('data', (item) => {
      summary.count += 1;
      summary.total_quantity += BigInt(item.quantity);
      summary.skus.push(item.sku);
      error = error ?? failure(item, call);
    });
    call.on('end', () => {
      done();
      callback(error, error ? undefined : { ...summary, total_quantity: summary.total_quantity.toString(), ...callFacts(call) });
    });
  },
  Exchange: (call) => {
    const done = track('Exchange', call);
    call.on('cancelled', done);
    const facts = callFacts(call);
    let index = 0;
    let failed = false;
    let pending = Promise.resolve();
    call.on('data', (item) => {
      const position = index++;
      // Answers keep the order of the requests even when they wait (delay_ms).
      pending = pending.then(() => new Promise((resolve) => later(item, () => {
        const error = failed ? null : failure(item, call);
        if (error) { failed = true; done(); call.emit('error', error); }
        else if (!failed) call.write({ item, index: position, ...facts });
        resolve();
      })));
    });
    call.on('end', () => pending.then(() => { if (!failed) { done(); call.end(); } }));
  },
  Stats: (call, callback) => {
    const methods = {};
    const peers = new Set();
    for (const [method, stats] of seen) {
      methods[method] = { calls: stats.calls, peers: [...stats.peers], max_in_flight: stats.maxInFlight };
      stats.peers.forEach((peer) => peers.add(peer));
    }
    if (call.request.reset) seen = new Map();
    callback(null, { methods, peers: [...peers] });
  },
});

// The same package definition with every type's file descriptors replaced by the protoset's (all of its files).
const withProtoset = (file) => {
  const { FileDescriptorSet, FileDescriptorProto } = require('protobufjs/ext/descriptor');
  const files = FileDescriptorSet.decode(read(file, '--reflection-protoset')).file.map((f) => FileDescriptorProto.encode(f).finish());
  return Object.fromEntries(Object.entries(definition).map(([name, type]) => [name, { ...type, fileDescriptorProtos: files }]));
};

if (!options['no-reflection']) {
  const reflected = options['reflection-protoset'] ? withProtoset(options['reflection-protoset']) : definition;
  const reflection = new ReflectionService(reflected);
  if (options['reflection-v1alpha-only']) reflection.v1Alpha.addToServer(server);
  else reflection.addToServer(server);
}

const credentials = secure
  ? grpc.ServerCredentials.createSsl(
    options['client-ca'] ? read(options['client-ca'], '--client-ca') : null,
    [{ cert_chain: read(options.cert, '--cert'), private_key: read(options.key, '--key') }],
    options['client-ca'] !== undefined)
  : grpc.ServerCredentials.createInsecure();

server.bindAsync(`127.0.0.1:${port}`, credentials, (error, bound) => {
  if (error) { console.error(error.message); process.exit(1); }
  console.log(`Now listening on: ${secure ? 'https' : 'http'}://127.0.0.1:${bound}`);
});

// SIGTERM lets calls in flight finish (bounded), then exits.
const stop = () => {
  setTimeout(() => { server.forceShutdown(); process.exit(0); }, 5000).unref();
  server.tryShutdown(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
