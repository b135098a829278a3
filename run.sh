#!/usr/bin/env bash
# Starts the whole system: PerformanceService, then ApiGateway pointed at it, and prints where to click.
# Ctrl+C (or SIGTERM) stops both; if either dies, the other is stopped too. Each port it needs is checked before the
# build: a taken one stops it at once, naming the port, what holds it and the variable below that moves it.
#   SERVICE_URL  the service's gRPC listener (h2c)                       (default http://127.0.0.1:5000)
#   GATEWAY_URL  the gateway: chart page, Swagger UI, API, its /metrics  (default http://127.0.0.1:5080)
#   TLS_URL      the service's TLS listener; empty turns it off          (default its Protocols:TlsUrl, https://127.0.0.1:5001)
#   HTTP1_URL    the service's HTTP/1.1 listener; empty turns it off     (default its Protocols:Http1Url, http://127.0.0.1:5002)
#   METRICS_URL  the service's /metrics and /health; empty turns it off  (default its Metrics:Url, http://127.0.0.1:5003)
#   CONFIGURATION  Release (default) or Debug;  --no-build  skips the build
set -euo pipefail
cd "$(dirname "$0")"

SERVICE_URL=${SERVICE_URL:-http://127.0.0.1:5000}
GATEWAY_URL=${GATEWAY_URL:-http://127.0.0.1:5080}
CONFIGURATION=${CONFIGURATION:-Release}
build=1
for argument in "$@"; do
  case "$argument" in
    --no-build) build=0 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument '$argument' (use --no-build or --help)" >&2; exit 2 ;;
  esac
done

# The address a service listener will get: its run.sh variable if set (even empty), else the setting the service reads
# from the environment, else its appsettings.json.
listener_url() {
  local variable=$1 environment=$2 key=$3
  if [[ -n ${!variable+set} ]]; then echo "${!variable}"
  elif [[ -n ${!environment+set} ]]; then echo "${!environment}"
  else grep -o "\"$key\": *\"[^\"]*\"" PerformanceService/appsettings.json | head -n 1 | sed 's/.*: *"\(.*\)"/\1/'
  fi
}

# Stops here when something already listens on the port of $3 (port 0 or an empty address asks for none): one sentence
# naming the port, what holds it when ss can tell, and the variable $1 that moves it.
check_port() {
  local variable=$1 listener=$2 url=$3 hostport host port holder
  [[ -n $url ]] || return 0
  hostport=${url#*://}; hostport=${hostport%%/*}; port=${hostport##*:}; host=${hostport%:*}
  host=${host#[}; host=${host%]}
  [[ $port =~ ^[0-9]+$ ]] && ((port > 0)) || return 0
  case $host in ''|'*'|'+'|0.0.0.0|localhost) host=127.0.0.1 ;; ::) host=::1 ;; esac
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$host" "$port" 2>/dev/null || return 0
  holder=$(ss -Hltnp "sport = :$port" 2>/dev/null | grep -o 'users:(("[^"]*",pid=[0-9]*' | head -n 1 | sed 's/users:(("\(.*\)",pid=\(.*\)/ by \1 (pid \2)/')
  echo "run.sh: port $port, wanted for $listener ($url), is already taken${holder}; set $variable to another address (e.g. $variable=${url%:*}:$((port + 1000))) or stop what holds it." >&2
  exit 1
}

check_port SERVICE_URL "the service's gRPC listener" "$SERVICE_URL"
check_port GATEWAY_URL "the gateway" "$GATEWAY_URL"
check_port TLS_URL "the service's TLS listener" "$(listener_url TLS_URL Protocols__TlsUrl TlsUrl)"
check_port HTTP1_URL "the service's HTTP/1.1 listener" "$(listener_url HTTP1_URL Protocols__Http1Url Http1Url)"
check_port METRICS_URL "the service's metrics listener" "$(listener_url METRICS_URL Metrics__Url Url)"

# The build installs Chart.js from npm: a fresh Debian/Ubuntu machine gets Node.js and npm here (the .NET SDK is only checked).
source scripts/prerequisites.sh
if ((build)); then prerequisites dotnet node; else prerequisites dotnet; fi

if ((build)); then
  echo "Building ($CONFIGURATION)..."
  dotnet build PerformanceService/PerformanceService.csproj -c "$CONFIGURATION" --nologo -v quiet -clp:NoSummary
  dotnet build ApiGateway/ApiGateway.csproj -c "$CONFIGURATION" --nologo -v quiet -clp:NoSummary
fi

pids=()
service_log=$(mktemp)
stop() {
  trap - INT TERM EXIT
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -f "$service_log"
}
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
trap stop EXIT

# Each app runs from its own folder, so it finds its appsettings.json. The service's output is also kept, to read
# the addresses its listeners really got.
start() {
  local project=$1; shift
  if [[ $project == PerformanceService ]]; then
    (cd "$project" && exec dotnet "bin/$CONFIGURATION/net10.0/$project.dll" "$@" > >(tee "$service_log") 2>&1) &
  else
    (cd "$project" && exec dotnet "bin/$CONFIGURATION/net10.0/$project.dll" "$@") &
  fi
  pids+=($!)
}

# The address the service announced for one listener ("HTTP/1.1" or "TLS"), empty when that listener is off. All
# announcements come together, once the h2c one is there.
announced() {
  local listener=$1
  for _ in $(seq 1 100); do
    grep -q 'Listening for h2c ' "$service_log" && break
    sleep 0.1
  done
  # A listener turned off is not announced: nothing, not a failure (pipefail would stop the script here).
  grep -o "Listening for $listener ([^)]*) on [^ ]*" "$service_log" | head -n 1 | sed 's/.* on //' || true
}

# Waits until an address accepts TCP connections, or fails if the process behind it died.
wait_for() {
  local name=$1 url=$2 pid=$3 hostport host port
  hostport=${url#*://}; hostport=${hostport%%/*}; host=${hostport%:*}; port=${hostport##*:}
  for _ in $(seq 1 1200); do
    if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then return 0; fi
    kill -0 "$pid" 2>/dev/null || { echo "run.sh: $name exited before it listened on $url (is the port taken?)" >&2; return 1; }
    sleep 0.1
  done
  echo "run.sh: $name did not listen on $url within 120 s" >&2
  return 1
}

service_arguments=(--urls "$SERVICE_URL")
[[ -n ${HTTP1_URL+set} ]] && service_arguments+=(--Protocols:Http1Url "$HTTP1_URL")
[[ -n ${TLS_URL+set} ]] && service_arguments+=(--Protocols:TlsUrl "$TLS_URL")
[[ -n ${METRICS_URL+set} ]] && service_arguments+=(--Metrics:Url "$METRICS_URL")
start PerformanceService "${service_arguments[@]}"
wait_for PerformanceService "$SERVICE_URL" "${pids[0]}"

# The gateway calls the addresses the service really listens on, and trusts only the certificate it made (in its
# Protocols:CertificateFolder, PerformanceService/data unless the environment says otherwise).
http1=$(announced HTTP/1.1)
tls=$(announced TLS)
metrics=$(announced metrics)
certificate_folder=${Protocols__CertificateFolder:-data}
[[ $certificate_folder == /* ]] || certificate_folder="$PWD/PerformanceService/$certificate_folder"
start ApiGateway --urls "$GATEWAY_URL" --ServerUrl "$SERVICE_URL" \
  --Protocols:Http1Url "$http1" --Protocols:TlsUrl "$tls" --Protocols:CertificatePath "$certificate_folder/service-certificate.pem"
wait_for ApiGateway "$GATEWAY_URL" "${pids[1]}"

echo
echo "  Chart page:  ${GATEWAY_URL%/}/"
echo "  Swagger UI:  ${GATEWAY_URL%/}/swagger"
echo "  gRPC service: $SERVICE_URL (h2c)${http1:+, $http1 (HTTP/1.1)}${tls:+, $tls (TLS)}"
echo "  Metrics:     ${GATEWAY_URL%/}/metrics${metrics:+, ${metrics%/}/metrics (service)}"
echo "  Press Ctrl+C to stop both."
echo

wait -n "${pids[@]}" || true
echo "run.sh: one of the apps stopped; stopping the other." >&2
