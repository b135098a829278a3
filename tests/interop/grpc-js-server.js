// A Monitor service written with grpc-js, for proving our client against a third-party server.
const grpc = require('@grpc/grpc-js');
const loader = require('@grpc/proto-loader');
const path = require('path');

const proto = path.join(__dirname, '..', '..', 'GrpcDependencies', 'Protos', 'performance.proto');
const { Monitor } = grpc.loadPackageDefinition(loader.loadSync(proto, { keepCase: true, defaults: true })).performance;
// connection_id names the client's ip:port as this server sees it: one per TCP connection, so the engine's connection
// counts hold against this server as against the built-in one.
const answer = (request, peer) => {
  const size = request.payload_bytes || 100;
  return {
    cpu_percentage_usage: 1.5,
    memory_usage: 42,
    processes_running: 7,
    active_connections: 1,
    data_load_1: Buffer.alloc(size, 1),
    data_load_2: Buffer.alloc(size, 2),
    connection_id: `grpc-js ${peer}`,
  };
};

const server = new grpc.Server();
server.addService(Monitor.service, {
  GetPerformance: (call, callback) => call.request.delay_ms < 0
    ? callback({ code: grpc.status.INVALID_ARGUMENT, details: 'delay_ms must not be negative' })
    : setTimeout(() => callback(null, answer(call.request, call.getPeer())), call.request.delay_ms),
  GetManyPerformanceStats: (call) => {
    call.on('data', (request) => call.write(answer(request, call.getPeer())));
    call.on('end', () => call.end());
  },
});
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => {
  if (error) { console.error(error.message); process.exit(1); }
  console.log(`Now listening on: http://127.0.0.1:${port}`);
});
process.on('SIGTERM', () => server.forceShutdown());
