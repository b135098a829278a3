// @grpc/grpc-js calling GetPerformance with the same request the gateway sends.
// Usage: node grpc-js-bench.js HOST:PORT sequential|concurrent COUNT IN_FLIGHT → one JSON line {p50Ms, callsPerSecond}
const grpc = require('@grpc/grpc-js');
const loader = require('@grpc/proto-loader');
const path = require('path');

const [address, mode, countText, inFlightText] = process.argv.slice(2);
const count = Number(countText);
const inFlight = mode === 'sequential' ? 1 : Number(inFlightText);
const proto = path.join(__dirname, '..', '..', 'GrpcDependencies', 'Protos', 'performance.proto');
const { Monitor } = grpc.loadPackageDefinition(loader.loadSync(proto, { keepCase: true })).performance;
const client = new Monitor(address, grpc.credentials.createInsecure());
const request = { client_name: 'client-wrapper #1', payload_bytes: 100 };
const call = () => new Promise((resolve, reject) => client.GetPerformance(request, (error) => (error ? reject(error) : resolve())));

(async () => {
  const latencies = new Float64Array(count);
  let next = 0;
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: inFlight }, async () => {
    for (let index = next++; index < count; index = next++) {
      const begun = process.hrtime.bigint();
      await call();
      latencies[index] = Number(process.hrtime.bigint() - begun) / 1e6;
    }
  }));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  latencies.sort();
  console.log(JSON.stringify({ p50Ms: latencies[Math.ceil(count / 2) - 1], callsPerSecond: count / seconds }));
  client.close();
})().catch((error) => { console.error(error.message); process.exit(1); });
