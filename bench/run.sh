#!/usr/bin/env bash
# The benchmark: builds Release, installs its references (h2load from Debian's nghttp2-client, @grpc/grpc-js
# from npm) when missing, starts its own service(s) and gateway on free loopback ports, and prints one table:
# each figure beside a reference measured in the same run, their ratio, and the target where there is one.
#   bench/run.sh [--count N (5000)] [--repetitions N (3)] [--open-seconds S (10)] [--skip-microbenchmarks]
#   bench/run.sh --probe [CALLS (20000)] [--in-flight 0,1,2,10,100,400] [--payload-bytes N] [--engine]
#     only the probe (docs/benchmarks.md, "Where 40 KB per call goes at 100 in flight"): a bare Grpc.Net.Client's bytes
#     per call at each number in flight (0 = sequential) and what ArrayPool<byte>.Shared had to make anew, once with the
#     runtime's pool size and once with each larger one; --engine adds the run engine's own calls.
# Separate from the tests: it takes a few minutes and its figures depend on the machine.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v h2load >/dev/null; then
  echo "Installing h2load (nghttp2-client)..."
  if [[ $(id -u) -eq 0 ]]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nghttp2-client;
  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nghttp2-client; fi
fi
if [[ ! -f bench/node/node_modules/@grpc/grpc-js/package.json ]]; then
  echo "Installing @grpc/grpc-js..."
  (cd bench/node && npm ci --no-audit --no-fund --loglevel=error)
fi

echo "Building (Release)..."
dotnet build GrpcBestPractices.sln -c Release --nologo -v quiet -clp:NoSummary
# With two cores or more, the load (this program, and the gateway, h2load and grpc-js it starts) runs on core 1 and the
# services on core 0, so that a ratio does not measure two processes sharing a core; the table says which it was.
if (( $(nproc) >= 2 )) && command -v taskset >/dev/null; then
  exec taskset -c 1 dotnet bench/GrpcBestPractices.Benchmarks/bin/Release/net10.0/GrpcBestPractices.Benchmarks.dll --root "$PWD" --pinned "$@"
fi
exec dotnet bench/GrpcBestPractices.Benchmarks/bin/Release/net10.0/GrpcBestPractices.Benchmarks.dll --root "$PWD" "$@"
