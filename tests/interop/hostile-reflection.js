// A hostile gRPC server: it answers server reflection (grpc.reflection.v1 and v1alpha) from a FileDescriptorSet it is
// given, byte for byte, so descriptors crafted to attack the tool reach it exactly as a hostile service would send them;
// and it serves every method the set declares with an answer that echoes the call's metadata. For the tests in
// tests/GrpcBestPractices.Tests/Hostile, which prove that what a target serves never becomes code in the tool.
//
//   node hostile-reflection.js --set set.protoset [--port 0]
//                              [--wrong-kind | --error-message TEXT | --never-answer | --changing] [--stop-with-stdin]
//
// Prints "Now listening on: http://127.0.0.1:<port>" once bound (as grpc-js-target.js does).
// ListServices answers the services the set declares. FileContainingSymbol and FileByFilename answer the file asked
// for, then its imports, then every other file of the set, as the set holds their bytes (never decoded and encoded
// again), each file once per stream and about 3 MiB per answer at most: what does not fit is asked for by name.
//   --wrong-kind       answers ListServices with a FileDescriptorResponse and a file request with a ListServicesResponse
//   --error-message    answers every file request with an ErrorResponse (NOT_FOUND) carrying TEXT, e.g. escape sequences
//   --never-answer     reads reflection requests and answers none, keeping the stream open
//   --changing         each reflection stream (each describe) sees another set: a message Changed<N> is appended to the
//                      first file that declares a service, N counting the streams
//   --stop-with-stdin  exits when its standard input ends: when the process that started it is gone, however it ended
// Every method of the set's services answers with its output type's first string field holding the call's metadata
// as "key: value" lines (-bin values in base64), so a run's first answer shows what the tool sent, authorization included.
const fs = require('fs');
const { parseArgs } = require('util');
const grpc = require('@grpc/grpc-js');

const fail = (sentence) => { console.error(sentence); process.exit(2); };

let options;
try {
  options = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      set: { type: 'string' },
      'wrong-kind': { type: 'boolean', default: false },
      'error-message': { type: 'string' },
      'never-answer': { type: 'boolean', default: false },
      changing: { type: 'boolean', default: false },
      'stop-with-stdin': { type: 'boolean', default: false },
    },
  }).values;
} catch (error) {
  fail(error.message);
}

const port = Number(options.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port was ${options.port}; it must be a port number from 0 to 65535.`);
if (!options.set) fail('--set names the FileDescriptorSet (a protoset file) to serve.');
const modes = ['wrong-kind', 'error-message', 'never-answer', 'changing'].filter((mode) => options[mode] !== undefined && options[mode] !== false);
if (modes.length > 1) fail(`--${modes.join(' and --')} cannot go together; give one of them.`);

// Protocol buffers' wire format, read and written by hand: only what reflection needs, and never the set's files again.
const WIRE = { varint: 0, fixed64: 1, bytes: 2, fixed32: 5 };

const readVarint = (buffer, at) => {
  let value = 0;
  let scale = 1;
  for (;;) {
    if (at >= buffer.length) throw new Error('a varint runs past the end of its message');
    const byte = buffer[at++];
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, at];
    scale *= 128;
    if (scale > 2 ** 63) throw new Error('a varint is longer than ten bytes');
  }
};

// Each field of a message as { number, wire, value }: value is a number for varints, the bytes (a view) otherwise.
function* fieldsOf(buffer) {
  let at = 0;
  while (at < buffer.length) {
    let key;
    [key, at] = readVarint(buffer, at);
    const number = Math.floor(key / 8);
    const wire = key % 8;
    if (wire === WIRE.varint) {
      let value;
      [value, at] = readVarint(buffer, at);
      yield { number, wire, value };
    } else if (wire === WIRE.bytes) {
      let length;
      [length, at] = readVarint(buffer, at);
      if (at + length > buffer.length) throw new Error('a length-delimited field runs past the end of its message');
      yield { number, wire, value: buffer.subarray(at, at + length) };
      at += length;
    } else if (wire === WIRE.fixed64 || wire === WIRE.fixed32) {
      const size = wire === WIRE.fixed64 ? 8 : 4;
      yield { number, wire, value: buffer.subarray(at, at + size) };
      at += size;
    } else {
      throw new Error(`wire type ${wire} (groups) is not read here`);
    }
  }
}

const strings = (buffer, number) => [...fieldsOf(buffer)].filter((f) => f.number === number && f.wire === WIRE.bytes).map((f) => f.value.toString('utf8'));
const first = (buffer, number) => strings(buffer, number)[0] ?? '';
const messages = (buffer, number) => [...fieldsOf(buffer)].filter((f) => f.number === number && f.wire === WIRE.bytes).map((f) => f.value);
const flag = (buffer, number) => [...fieldsOf(buffer)].some((f) => f.number === number && f.wire === WIRE.varint && f.value !== 0);

const varint = (value) => {
  const bytes = [];
  while (value >= 0x80) {
    bytes.push((value % 128) | 0x80);
    value = Math.floor(value / 128);
  }
  bytes.push(value);
  return Buffer.from(bytes);
};
const lengthDelimited = (number, bytes) => Buffer.concat([varint(number * 8 + WIRE.bytes), varint(bytes.length), bytes]);
const text = (number, value) => lengthDelimited(number, Buffer.from(value, 'utf8'));
const integer = (number, value) => Buffer.concat([varint(number * 8 + WIRE.varint), varint(value)]);

// FileDescriptorSet.file = 1; FileDescriptorProto: name 1, package 2, dependency 3, message_type 4, service 6;
// DescriptorProto: name 1, field 2, nested_type 3; FieldDescriptorProto: name 1, number 3, type 5 (9 is string);
// ServiceDescriptorProto: name 1, method 2; MethodDescriptorProto: name 1, input_type 2, output_type 3,
// client_streaming 5, server_streaming 6.
let setBytes;
try {
  setBytes = fs.readFileSync(options.set);
} catch (error) {
  fail(`--set ${options.set} could not be read: ${error.message}`);
}

let files;
try {
  files = messages(setBytes, 1).map((bytes) => {
    const pkg = first(bytes, 2);
    const qualified = (name) => (pkg ? `${pkg}.${name}` : name);
    return {
      bytes,
      name: first(bytes, 1),
      pkg,
      dependencies: strings(bytes, 3),
      messages: messages(bytes, 4).map((message) => ({ name: qualified(first(message, 1)), bytes: message })),
      services: messages(bytes, 6).map((service) => ({
        name: qualified(first(service, 1)),
        methods: messages(service, 2).map((method) => ({
          name: first(method, 1),
          output: first(method, 3).replace(/^\./, ''),
          clientStreaming: flag(method, 5),
          serverStreaming: flag(method, 6),
        })),
      })),
    };
  });
} catch (error) {
  fail(`--set ${options.set} is not a FileDescriptorSet: ${error.message}.`);
}

const byName = new Map();
for (const file of files) if (!byName.has(file.name)) byName.set(file.name, file);
const services = files.flatMap((file) => file.services.map((service) => ({ ...service, file })));

// The file that declares a symbol: a service, a method, or a message (nested ones searched without recursion).
const declaring = (symbol) => {
  for (const service of services) {
    if (symbol === service.name || service.methods.some((method) => symbol === `${service.name}.${method.name}`)) return service.file;
  }
  for (const file of files) {
    const pending = file.messages.map((message) => ({ ...message }));
    while (pending.length > 0) {
      const message = pending.pop();
      if (message.name === symbol) return file;
      if (symbol.startsWith(`${message.name}.`)) {
        pending.push(...messages(message.bytes, 3).map((nested) => ({ name: `${message.name}.${first(nested, 1)}`, bytes: nested })));
      }
    }
  }
  return null;
};

// The first string field of a message type, found by its full name: the echo's place in an answer.
const stringFields = new Map();
const stringFieldOf = (typeName) => {
  if (!stringFields.has(typeName)) stringFields.set(typeName, findStringField(typeName));
  return stringFields.get(typeName);
};
const findStringField = (typeName) => {
  for (const file of files) {
    const pending = file.messages.map((message) => ({ ...message }));
    while (pending.length > 0) {
      const message = pending.pop();
      if (message.name === typeName) {
        const field = messages(message.bytes, 2).find((candidate) => [...fieldsOf(candidate)].some((f) => f.number === 5 && f.value === 9));
        return field ? [...fieldsOf(field)].find((f) => f.number === 3)?.value ?? null : null;
      }
      if (typeName.startsWith(`${message.name}.`)) {
        pending.push(...messages(message.bytes, 3).map((nested) => ({ name: `${message.name}.${first(nested, 1)}`, bytes: nested })));
      }
    }
  }
  return null;
};

let describes = 0;
const ANSWER_BUDGET = 3 * 1024 * 1024;

// --changing: the first file that declares a service, with a message Changed<N> appended (protobuf merges repeated
// fields in order, so the file's own bytes stay as they were).
const changed = (file, stream) => (options.changing && file === services[0]?.file
  ? Buffer.concat([file.bytes, lengthDelimited(4, text(1, `Changed${stream.describe}`))])
  : file.bytes);

// The file asked for, its imports (without recursion), then every other file, each once per stream, within the budget.
const fileAnswer = (file, stream) => {
  const order = [file];
  const queued = new Set([file.name]);
  for (let i = 0; i < order.length; i++) {
    for (const dependency of order[i].dependencies) {
      const imported = byName.get(dependency);
      if (imported && !queued.has(dependency)) {
        queued.add(dependency);
        order.push(imported);
      }
    }
  }
  for (const other of files) {
    if (!queued.has(other.name)) {
      queued.add(other.name);
      order.push(other);
    }
  }

  const answer = [];
  let size = 0;
  for (const candidate of order) {
    if (stream.sent.has(candidate.name) && candidate !== file) continue;
    const bytes = changed(candidate, stream);
    if (answer.length > 0 && size + bytes.length > ANSWER_BUDGET) continue;
    stream.sent.add(candidate.name);
    answer.push(lengthDelimited(1, bytes));
    size += bytes.length;
  }
  return lengthDelimited(4, Buffer.concat(answer));
};

const listAnswer = () => lengthDelimited(6, Buffer.concat(services.map((service) => lengthDelimited(1, text(1, service.name)))));
const errorAnswer = (code, message) => lengthDelimited(7, Buffer.concat([integer(1, code), text(2, message)]));
const NOT_FOUND = 5;

// ServerReflectionRequest: host 1, file_by_filename 3, file_containing_symbol 4, file_containing_extension 5,
// all_extension_numbers_of_type 6, list_services 7. ServerReflectionResponse: valid_host 1, original_request 2,
// file_descriptor_response 4, all_extension_numbers_response 5, list_services_response 6, error_response 7.
const answer = (request, stream) => {
  const asked = [...fieldsOf(request)];
  const host = asked.find((f) => f.number === 1)?.value?.toString('utf8') ?? '';
  const kind = asked.find((f) => f.number >= 3 && f.number <= 7);
  const head = Buffer.concat([text(1, host), lengthDelimited(2, request)]);
  if (!kind) return Buffer.concat([head, errorAnswer(3, 'The request asked for nothing.')]);
  const value = kind.value instanceof Buffer ? kind.value.toString('utf8') : '';
  const anyFile = () => fileAnswer(services[0]?.file ?? files[0], stream);
  if (kind.number === 7) return Buffer.concat([head, options['wrong-kind'] ? anyFile() : listAnswer()]);
  if (kind.number !== 3 && kind.number !== 4) return Buffer.concat([head, errorAnswer(12, 'Extensions are not served here.')]);
  if (options['wrong-kind']) return Buffer.concat([head, listAnswer()]);
  if (options['error-message'] !== undefined) return Buffer.concat([head, errorAnswer(NOT_FOUND, options['error-message'])]);
  const file = kind.number === 3 ? byName.get(value) : declaring(value);
  return Buffer.concat([head, file ? fileAnswer(file, stream) : errorAnswer(NOT_FOUND, `${kind.number === 3 ? 'File' : 'Symbol'} not found: ${value}`)]);
};

const raw = (bytes) => bytes;
const reflectionInfo = (service) => ({
  ServerReflectionInfo: {
    path: `/${service}/ServerReflectionInfo`,
    requestStream: true,
    responseStream: true,
    requestSerialize: raw,
    requestDeserialize: raw,
    responseSerialize: raw,
    responseDeserialize: raw,
  },
});

const reflect = (call) => {
  const stream = { describe: ++describes, sent: new Set() };
  call.on('data', (request) => {
    if (options['never-answer']) return;
    let bytes;
    try {
      bytes = answer(request, stream);
    } catch (error) {
      call.emit('error', { code: grpc.status.INVALID_ARGUMENT, details: `The reflection request could not be read: ${error.message}.` });
      return;
    }
    call.write(bytes);
  });
  call.on('end', () => { if (!options['never-answer']) call.end(); });
  call.on('error', () => {});
};

// The call's metadata as "key: value" lines, written into the answer's first string field.
const echo = (call, output) => {
  const lines = [];
  for (const [key, values] of Object.entries(call.metadata.toJSON())) {
    for (const value of values) lines.push(`${key}: ${Buffer.isBuffer(value) ? value.toString('base64') : value}`);
  }
  const number = stringFieldOf(output);
  return number === null ? Buffer.alloc(0) : text(number, lines.join('\n'));
};

const server = new grpc.Server();
for (const name of ['grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection']) {
  server.addService(reflectionInfo(name), { ServerReflectionInfo: reflect });
}

for (const service of services.filter((declared) => !declared.name.startsWith('grpc.reflection.'))) {
  const definition = {};
  const handlers = {};
  for (const method of service.methods) {
    definition[method.name] = {
      path: `/${service.name}/${method.name}`,
      requestStream: method.clientStreaming,
      responseStream: method.serverStreaming,
      requestSerialize: raw,
      requestDeserialize: raw,
      responseSerialize: raw,
      responseDeserialize: raw,
    };
    handlers[method.name] = method.clientStreaming
      ? (method.serverStreaming
        ? (call) => { call.on('data', () => call.write(echo(call, method.output))); call.on('end', () => call.end()); }
        : (call, callback) => { call.on('data', () => {}); call.on('end', () => callback(null, echo(call, method.output))); })
      : (method.serverStreaming
        ? (call) => { call.write(echo(call, method.output)); call.end(); }
        : (call, callback) => callback(null, echo(call, method.output)));
  }
  server.addService(definition, handlers);
}

server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (error, bound) => {
  if (error) { console.error(error.message); process.exit(1); }
  console.log(`Now listening on: http://127.0.0.1:${bound}`);
});

// SIGTERM lets calls in flight finish (bounded), then exits.
const stop = () => {
  setTimeout(() => { server.forceShutdown(); process.exit(0); }, 5000).unref();
  server.tryShutdown(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
if (options['stop-with-stdin']) {
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}
