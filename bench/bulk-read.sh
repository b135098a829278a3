#!/usr/bin/env bash
# bulk-read in full: 1 000 000 users per call on every contender (pages of 1000 read by 16 workers; the gRPC contenders
# also as one server stream), one warm-up read then one measured read each, through ./loadtest against its own service
# on free loopback ports. Prints the CLI's summary: each path's time is its one call's latency.
#   bench/bulk-read.sh [--users N (1000000)] [--json FOLDER]
# Separate from the tests: it reads about 170 MB per JSON path and takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

users=1000000
results=""
while (($#)); do
  case "$1" in
    --users) users=$2; shift 2 ;;
    --json) results=$2; shift 2 ;;
    -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
    *) echo "bulk-read.sh: unknown argument '$1' (use --users N, --json FOLDER or --help)" >&2; exit 2 ;;
  esac
done

echo "Building (Release)..."
dotnet build GrpcBestPractices.sln -c Release --nologo -v quiet -clp:NoSummary

work=$(mktemp -d)
(cd PerformanceService && exec dotnet bin/Release/net10.0/PerformanceService.dll --urls http://127.0.0.1:0 \
  --Protocols:Http1Url http://127.0.0.1:0 --Protocols:TlsUrl https://127.0.0.1:0 --Metrics:Url http://127.0.0.1:0 --Protocols:CertificateFolder "$work" > "$work/service.log" 2>&1) &
service=$!
trap 'kill "$service" 2>/dev/null || true; wait "$service" 2>/dev/null || true; rm -rf "$work"' EXIT

# The service announces each listener with the port it really got.
listener() { grep -o "Listening for $1 ([^)]*) on [^ ]*" "$work/service.log" | head -n 1 | sed 's/.* on //'; }
for _ in $(seq 1 300); do
  [[ -n $(listener TLS) ]] && break
  kill -0 "$service" 2>/dev/null || { cat "$work/service.log" >&2; echo "bulk-read.sh: the service did not start." >&2; exit 1; }
  sleep 0.1
done
targets=(--target "$(listener h2c)" --http1-target "$(listener HTTP/1.1)" --tls-target "$(listener TLS)" --trust-certificate "$work/service-certificate.pem")

for variant in pages stream; do
  echo
  echo "bulk-read, variant $variant, $users users per call"
  ./loadtest --no-build "${targets[@]}" --workload bulk-read --variant "$variant" --users "$users" --contenders all \
    --count 1 --warmup 1 --plain ${results:+--json "$results/bulk-read-$variant.json"}
done
