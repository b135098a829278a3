// Calls a Monitor service with grpc-js and prints one JSON line of what came back.
const grpc = require('@grpc/grpc-js');
const loader = require('@grpc/proto-loader');
const path = require('path');

const proto = path.join(__dirname, '..', '..', 'GrpcDependencies', 'Protos', 'performance.proto');
const { Monitor } = grpc.loadPackageDefinition(loader.loadSync(proto, { keepCase: true })).performance;
const client = new Monitor(process.argv[2], grpc.credentials.createInsecure());
const deadline = (ms) => ({ deadline: new Date(Date.now() + ms) });

const unary = (request, options = deadline(5000)) => new Promise((resolve) =>
  client.GetPerformance(request, options, (error, response) => resolve({ error, response })));

const stream = (sizes) => new Promise((resolve) => {
  const call = client.GetManyPerformanceStats(deadline(10000));
  const received = [];
  call.on('data', (response) => received.push(response.data_load_1.length));
  call.on('error', (error) => resolve({ error: error.code, received }));
  call.on('end', () => resolve({ received }));
  sizes.forEach((size) => call.write({ client_name: `grpc-js #${size}`, payload_bytes: size }));
  call.end();
});

(async () => {
  const ok = await unary({ client_name: 'grpc-js', payload_bytes: 64 });
  const invalid = await unary({ client_name: 'grpc-js', delay_ms: -1 });
  const late = await unary({ client_name: 'grpc-js', delay_ms: 3000 }, deadline(200));
  const streamed = await stream(Array.from({ length: 50 }, (_, i) => i + 1));
  console.log(JSON.stringify({
    unary: ok.error ? { code: ok.error.code } : {
      dataLoad1: ok.response.data_load_1.length,
      dataLoad2: ok.response.data_load_2.length,
      connectionId: ok.response.connection_id,
      memoryUsage: ok.response.memory_usage,
    },
    invalid: { code: invalid.error && invalid.error.code, details: invalid.error && invalid.error.details },
    deadline: { code: late.error && late.error.code },
    stream: streamed,
  }));
  client.close();
})();
