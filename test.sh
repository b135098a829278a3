#!/usr/bin/env bash
# Runs every test: installs what the suite needs when it is missing (Debian/Ubuntu: Node.js and npm, Chromium,
# PostgreSQL's server programs, util-linux's setsid, Python's grpcio; the .NET 10 SDK it only checks), then runs
# `dotnet test GrpcBestPractices.sln -c Release` with your arguments after it.
#   ./test.sh                                        every test (about 16 minutes of tests on 2 quiet cores)
#   ./test.sh --fast                                 the fast loop: tests that start no process, browser, database or
#                                                    socket (the same as --filter "Category!=Process"); needs no Chromium, PostgreSQL or grpcio
#   ./test.sh --filter "FullyQualifiedName~Lesson"   any dotnet test arguments pass through
set -euo pipefail
cd "$(dirname "$0")"
source scripts/prerequisites.sh
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

arguments=()
for argument in "$@"; do
  case $argument in
    --fast) arguments+=(--filter "Category!=Process") ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) arguments+=("$argument") ;;
  esac
done

needs=(dotnet node)
# The fast loop starts nothing, so it needs nothing more than the build does.
[[ " ${arguments[*]-} " == *"Category!=Process"* ]] || needs+=(chromium postgresql setsid grpcio)
prerequisites "${needs[@]}"
echo "test.sh: dotnet $(dotnet --version), node $(node --version)$([[ -x /usr/bin/chromium ]] && echo ", $(/usr/bin/chromium --version 2>/dev/null | tail -n 1)")$(command -v pg_config >/dev/null && echo ", $(pg_config --version)"), $(nproc) cores"

exec dotnet test GrpcBestPractices.sln -c Release "${arguments[@]}"
