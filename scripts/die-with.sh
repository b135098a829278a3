#!/usr/bin/env bash
# Runs a program that must not outlive another process (the test host), however that one ends: a normal end, a
# test-session timeout, SIGKILL, a crash.
#   setsid bash scripts/die-with.sh HOST PROGRAM [ARGUMENT...]   runs PROGRAM in this session, under a watchdog
#   bash scripts/die-with.sh HOST --adopt PID                     puts an already running PID (a daemon) under one
# PROGRAM keeps this script's PID (exec), so signals and /proc reach it as if it had been started directly. The watchdog
# checks every second that HOST still runs (its PID with the start time it had, so a reused PID does not fool it). Once
# HOST is gone it stops, then kills, PROGRAM, every process below it (found by parent links, so also one that made a
# session of its own, as Playwright's Chromium does) and everything left in PROGRAM's session. When PROGRAM ends first,
# the watchdog stays while anything it left behind runs in its session, and exits when nothing does.
# It polls rather than using PR_SET_PDEATHSIG: that signal follows the thread that forked, and .NET's thread-pool
# threads come and go. Linux only: it reads /proc.
set -uo pipefail

host=${1:?usage: die-with.sh HOST PROGRAM [ARGUMENT...] | die-with.sh HOST --adopt PID}
shift

# The start time of a live (not zombie) process, in clock ticks since boot; fails when there is no such process.
started() {
  local stat fields
  { read -r stat < "/proc/$1/stat"; } 2>/dev/null || return 1
  # The command name in parentheses may hold spaces: the fields after its closing one start with the state.
  # shellcheck disable=SC2206
  fields=(${stat##*) })
  [[ ${fields[0]} != Z ]] && echo "${fields[19]}"
}

# Whether the process that started at $2 still runs as $1. A gone process has no start time, so it never matches, not even
# an empty one.
alive() {
  local now
  now=$(started "$1") && [[ $now == "$2" ]]
}

# Every process whose chain of parents reaches $1 (while it is the process that started at $2), and every live (not
# zombie) process in session $1, except this watchdog and the helpers it forked (this listing among them).
condemned() {
  local root=$1 root_start=$2 session=$1 stat fields pid
  local -A children=()
  local -a found=()
  for stat_file in /proc/[0-9]*/stat; do
    { read -r stat < "$stat_file"; } 2>/dev/null || continue
    pid=${stat%% *}
    # shellcheck disable=SC2206
    fields=(${stat##*) })
    [[ $pid == "$watchdog" || ${fields[1]} == "$watchdog" ]] && continue
    children[${fields[1]}]+=" $pid"
    # A zombie in the session runs nothing: it waits only for its parent to read its exit code.
    [[ ${fields[3]} == "$session" && ${fields[0]} != Z ]] && found+=("$pid")
  done
  local -a queue=()
  alive "$root" "$root_start" && queue=("$root")
  while ((${#queue[@]})); do
    pid=${queue[0]}
    queue=("${queue[@]:1}")
    found+=("$pid")
    # shellcheck disable=SC2206
    queue+=(${children[$pid]-})
  done
  ((${#found[@]})) && printf '%s\n' "${found[@]}" | sort -un
}

# Freezes first, so nothing forks between the listing and the kill, and repeats until a listing finds nothing alive.
kill_all() {
  local root=$1 root_start=$2 round
  for round in 1 2 3 4 5; do
    mapfile -t targets < <(condemned "$root" "$root_start")
    ((${#targets[@]})) || return 0
    kill -STOP "${targets[@]}" 2>/dev/null
    kill -KILL "${targets[@]}" 2>/dev/null
  done
}

# A one-second wait without forking a sleep per second: a read on a pipe this shell holds both ends of never returns data.
pause() { read -rt 1 -u "$never" _; }

watch() {
  local program=$1 program_start=$2 host_start
  watchdog=$BASHPID
  exec {never}<> <(:)
  host_start=$(started "$host") || { kill_all "$program" "$program_start"; exit 0; }
  while alive "$host" "$host_start"; do
    if ! alive "$program" "$program_start" && [[ -z $(condemned "$program" "$program_start") ]]; then
      exit 0
    fi
    pause
  done
  kill_all "$program" "$program_start"
}

if [[ ${1-} == --adopt ]]; then
  adopted=${2:?die-with.sh: --adopt needs a PID}
  adopted_start=$(started "$adopted") || exit 0
  # Detached from the caller and its streams, which need not wait for it: init reaps it when it is done.
  watch "$adopted" "$adopted_start" </dev/null >/dev/null 2>&1 &
  exit 0
fi

(($#)) || { echo "die-with.sh: no program to run" >&2; exit 2; }
# The start time is read here, before the program runs: read in the background it could come after a quick program had
# already ended, and an empty start time made the watchdog wait for the host. CI saw that: a watchdog 60 s after its program.
program_start=$(started "$$")
# The watchdog holds none of the program's streams, so a reader of them sees their end when the program ends.
watch "$$" "$program_start" </dev/null >/dev/null 2>&1 &
exec "$@"
