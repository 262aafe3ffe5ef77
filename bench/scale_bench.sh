#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scale_bench.sh: capture, recording, replay and the views at 1,000, 10,000 and
# 30,000 idle processes (BENCHMARKS.md, "30,000 processes"), so that the growth
# is visible: time per process and peak RSS at each N, side by side in one run.
#
#   bash bench/scale_bench.sh BUILD/cli/proctape      (from the repo root, as root)
#
# Needs BUILD/bench/spawn_idle and BUILD/bench/idle_worker (built with the
# project: cmake --build BUILD --target proctape spawn_idle idle_worker) and a
# C compiler (bench/timeit.c is compiled into the work dir).
#
# Environment:
#   BENCH_N="1000 10000 30000"  idle processes to start, one measurement per value
#   BENCH_ROUNDS=3              rounds per N (medians are taken over them)
#   BENCH_FRAMES=10             frames of the many-frame capture
#   BENCH_INTERVAL=100          its --interval MS
#   BENCH_TIMEOUT=1800          seconds any one command may take
#   BENCH_TMP=/tmp              where the work directory is made
#
# Before the first N, kernel.pid_max and kernel.threads-max are raised to make
# room for the largest N (bench/lib.sh raise_process_limits: root only; every
# value is restored exactly as read when the script ends, also on failure and
# on Ctrl-C, after the workers are ended). For each N:
#  1. bench/spawn_idle starts N idle workers (bench/idle_workers.sh).
#  2. Each round, with the workers up, the writers run in rotating order:
#     `capture` (one frame), `capture --frames F --interval MS`, and
#     `lab never-exec --record` (a 5 s retry loop recorded: two whole-host
#     frames and the tape); then the readers, in rotating order, on that
#     round's files: verify, show and export --format json (to /dev/null) of
#     the F-frame capture; diff of the one-frame capture and the F-frame one;
#     verify, tree and export --format json of the one-frame capture; verify,
#     replay and explain of the recording. Each runs once under bench/timeit
#     (wall time, user+system CPU, peak RSS of that one process); one that
#     does not exit 0 is marked in the tables (its error printed below them),
#     and the run goes on.
#  3. The workers are ended, by pid, by spawn_idle; the script checks that none
#     of them is left.
# `explore` (docs/explore.md) is not measured here.
# Prints two markdown tables of medians (stdout; progress on stderr): every
# command at every N, and CPU per process and peak RSS side by side across N.
set -euo pipefail
bench_name=scale_bench
here=$(cd "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"

[[ $# -eq 1 ]] || usage_error "usage: bash bench/scale_bench.sh BUILD/cli/proctape" \
  "       (BENCH_N=\"1000 10000 30000\" BENCH_ROUNDS=3 BENCH_FRAMES=10 BENCH_INTERVAL=100 BENCH_TMP=/tmp)"
need_executable "$1"
proctape=$(absolute "$1")
need_idle_helpers "$proctape"
need_tool cc gcc

bench_n=${BENCH_N:-1000 10000 30000}
rounds=${BENCH_ROUNDS:-3}
frames=${BENCH_FRAMES:-10}
interval=${BENCH_INTERVAL:-100}
limit=${BENCH_TIMEOUT:-1800}
need_bench_n 1 100000 "$bench_n"
need_count BENCH_ROUNDS "$rounds"
need_count BENCH_FRAMES "$frames"
need_whole BENCH_INTERVAL "$interval"
need_count BENCH_TIMEOUT "$limit"

start_work scale-bench
spawner=
ctl_fd=
workers_dir=$bindir
# shellcheck source=bench/idle_workers.sh
source "$here/idle_workers.sh"
# No exit here: raise_process_limits's trap restores the limits after it.
cleanup() {
  set +e
  stop_workers
  rm -rf -- "$work"
}
trap cleanup EXIT
trap 'exit 129' HUP

most=0
for n in $bench_n; do ((n > most)) && most=$n; done
raise_process_limits "$most"
log "pid_max $(</proc/sys/kernel/pid_max), threads-max $(</proc/sys/kernel/threads-max), ulimit -u $(ulimit -u)"
build_timeit "$work"

# name | arguments (after the binary); W is the work dir.
writers=(
  "capture|capture -o W/one.ptape --force"
  "capture --frames $frames|capture --frames $frames --interval $interval -o W/many.ptape --force"
  "lab never-exec --record|lab never-exec --record W/lab.ptape --force"
)
readers=(
  "verify many|verify W/many.ptape"
  "show many|show W/many.ptape"
  "export --format json many|export W/many.ptape --format json"
  "diff one many|diff W/one.ptape W/many.ptape"
  "verify one|verify W/one.ptape"
  "tree one|tree W/one.ptape"
  "export --format json one|export W/one.ptape --format json"
  "verify lab|verify W/lab.ptape"
  "replay lab|replay W/lab.ptape"
  "explain lab|explain W/lab.ptape"
)
commands=("${writers[@]}" "${readers[@]}")

# timed I NAME ARGS: the command's line of bench/timeit appended to $work/tN.I;
# a failure (exit status not 0) is noted in $work/fN.I and the run goes on.
timed() {
  local i=$1 name=$2 args=$3
  local -a argv
  read -ra argv <<<"${args//W\//$work/}"
  if ! "$work/timeit" "$work/t$n.$i" timeout "$limit" "$proctape" "${argv[@]}" >/dev/null 2>"$work/err"; then
    echo "N=$n: \`$name\` exit $(tail -1 "$work/t$n.$i" | cut -d' ' -f5): $(head -1 "$work/err")" >"$work/f$n.$i"
    log "$(<"$work/f$n.$i")"
  fi
}
# rotated FIRST LAST R: FIRST..LAST starting at FIRST + R mod the count
rotated() { local k c=$(($2 - $1 + 1)); for ((k = 0; k < c; k++)); do echo $(($1 + (k + $3) % c)); done; }

declare -A procs size obs attempts
for n in $bench_n; do
  log "N=$n: starting $n idle workers"
  start_workers "$n"
  log "N=$n: $(tail -1 "$work/spawn.log" 2>/dev/null || true); load $(cut -d' ' -f1-3 /proc/loadavg)"
  for ((r = 0; r < rounds; r++)); do
    for i in $(rotated 0 $((${#writers[@]} - 1)) "$r") $(rotated ${#writers[@]} $((${#commands[@]} - 1)) "$r"); do
      IFS='|' read -r name args <<<"${commands[$i]}"
      timed "$i" "$name" "$args"
    done
    log "N=$n: round $((r + 1)) of $rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
  done
  procs[$n]=$("$proctape" show "$work/one.ptape" | sed -n 's/^  frame 0: \([0-9]*\) processes.*/\1/p')
  "$proctape" show "$work/lab.ptape" >"$work/lab.show"
  obs[$n]=$(sed -n 's/^tape: \([0-9]*\) observations.*/\1/p' "$work/lab.show")
  attempts[$n]=$(sed -n 's/.*verdict: [A-Z_]*, \([0-9]*\) attempts.*/\1/p' "$work/lab.show")
  for f in one many lab; do size[$n.$f]=$(stat -c %s "$work/$f.ptape"); done
  log "N=$n: ending the workers"
  stop_workers
  check_no_leftovers
done

# med N I COLUMN: the median of a column of command I's timeit lines at N
med() { awk -v c="$3" '{print $c}' "$work/t$1.$2" | median; }
cpu() { awk '{print $2 + $3}' "$work/t$1.$2" | median; }
# failed N I: " (FAILED at N)" when command I did not exit 0 at N
failed() { [[ ! -e $work/f$1.$2 ]] || printf ' (FAILED at %s)' "$1"; }
echo
echo "scale_bench: $(uname -sr), $(nproc) cores; medians of $rounds rounds; load average $load_start at the start," \
  "$(cut -d' ' -f1-3 /proc/loadavg) at the end; $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "| N | processes | command | wall ms | CPU ms | CPU µs / process | peak RSS MiB |"
echo "|---:|---:|---|---:|---:|---:|---:|"
for n in $bench_n; do
  for ((i = 0; i < ${#commands[@]}; i++)); do
    IFS='|' read -r name _ <<<"${commands[$i]}"
    awk -v n="$n" -v p="${procs[$n]}" -v c="$name" -v w="$(med "$n" "$i" 1)" -v u="$(cpu "$n" "$i")" -v m="$(med "$n" "$i" 4)" \
      -v x="$(failed "$n" "$i")" \
      'BEGIN {printf "| %d | %d | `%s`%s | %.0f | %.0f | %.1f | %.0f |\n", n, p, c, x, w * 1000, u * 1000, u * 1e6 / p, m / 1024}'
  done
done
echo
printf '| command |'; for n in $bench_n; do printf ' CPU µs/process at %s |' "$n"; done
for n in $bench_n; do printf ' RSS MiB at %s |' "$n"; done; echo
printf '|---|'; for n in $bench_n; do printf -- '---:|---:|'; done; echo
for ((i = 0; i < ${#commands[@]}; i++)); do
  IFS='|' read -r name _ <<<"${commands[$i]}"
  printf '| `%s`' "$name"
  for n in $bench_n; do printf '%s' "$(failed "$n" "$i")"; done
  printf ' |'
  for n in $bench_n; do awk -v u="$(cpu "$n" "$i")" -v p="${procs[$n]}" 'BEGIN {printf " %.1f |", u * 1e6 / p}'; done
  for n in $bench_n; do awk -v m="$(med "$n" "$i" 4)" 'BEGIN {printf " %.0f |", m / 1024}'; done
  echo
done
echo
echo "| N | processes | one frame bytes | B / process | $frames frames bytes | × one frame | recording bytes | observations | B / observation |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in $bench_n; do
  awk -v n="$n" -v p="${procs[$n]}" -v a="${size[$n.one]}" -v b="${size[$n.many]}" -v c="${size[$n.lab]}" -v o="${obs[$n]:-0}" \
    'BEGIN {printf "| %d | %d | %d | %.1f | %d | %.2f | %d | %d | %.1f |\n", n, p, a, a / p, b, b / a, c, o, (o > 0 ? c / o : 0)}'
done
echo
echo "The recording (the last round's): CPU per observation of the tape."
echo
echo "| N | processes | attempts | observations | \`lab --record\` CPU ns / obs | \`verify\` ns / obs | \`replay\` ns / obs | \`explain\` ns / obs |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
lab=$(( ${#writers[@]} - 1 ))
for n in $bench_n; do
  printf '| %s | %s | %s | %s |' "$n" "${procs[$n]}" "${attempts[$n]}" "${obs[$n]}"
  for i in $lab $((${#commands[@]} - 3)) $((${#commands[@]} - 2)) $((${#commands[@]} - 1)); do
    awk -v u="$(cpu "$n" "$i")" -v o="${obs[$n]:-0}" 'BEGIN {printf " %.0f |", (o > 0 ? u * 1e9 / o : 0)}'
  done
  echo
done
failures=$(cat "$work"/f* 2>/dev/null || true)
if [[ -n $failures ]]; then
  echo
  echo "Failed (the last failure of each command at each N):"
  echo
  printf '%s\n' "$failures" | sed 's/^/    /'
fi
