#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# analyze_bench.sh: what the views and exports (docs/views.md, docs/explain.md,
# docs/export.md) cost on a file of a
# host of N processes, side by side with `proctape verify` (reading and
# checking the same file) and `proctape replay` (replaying the same recording).
#
#   bash bench/analyze_bench.sh BUILD/cli/proctape      (from the repo root, as root)
#
# Needs BUILD/bench/spawn_idle and BUILD/bench/idle_worker (built with the
# project) and a C compiler (bench/timeit.c is compiled into the work dir).
#
# Environment:
#   BENCH_N="10000"   idle processes to start, one measurement per value
#   BENCH_ROUNDS=5    alternated rounds per N (medians are taken over them)
#   BENCH_WARMUP=1    rounds run first and discarded
#   BENCH_TMP=/tmp    where the work directory is made
#
# For each N:
#  1. bench/spawn_idle starts N idle workers; `proctape capture --frames 2
#     --interval 200` writes host.ptape and `proctape lab plain --record`
#     writes lab.ptape (a recorded resolution: two whole-host frames and the
#     tape); then the workers are ended (by pid, by spawn_idle) so that the
#     timings below do not share the machine with them.
#  2. Rounds: each command below runs once per round under bench/timeit (wall
#     time fork..wait4, peak RSS from rusage), the starting command rotating
#     every round; each must exit 0.
# Prints a markdown table of medians: wall ms, ratio to `verify` of the same
# file (`replay` for explain), peak RSS. Progress goes to stderr.
# Every process it starts is ended on exit; the work directory is removed.
set -euo pipefail
bench_name=analyze_bench
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

[[ $# -eq 1 ]] || usage_error "usage: bash bench/analyze_bench.sh BUILD/cli/proctape" \
  "       (BENCH_N=\"10000\" BENCH_ROUNDS=5 BENCH_WARMUP=1 BENCH_TMP=/tmp)"
need_executable "$1"
proctape=$(absolute "$1")
need_idle_helpers "$proctape"
need_tool cc gcc

bench_n=${BENCH_N:-10000}
rounds=${BENCH_ROUNDS:-5}
warmup=${BENCH_WARMUP:-1}
need_count BENCH_ROUNDS "$rounds"
need_whole BENCH_WARMUP "$warmup"
need_bench_n 0 30000 "$bench_n"

start_work analyze-bench
spawner=
ctl_fd=
workers_dir=$bindir
# shellcheck source=bench/idle_workers.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/idle_workers.sh"

cleanup() {
  local rc=$?
  set +e
  stop_workers
  rm -rf -- "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 129' HUP

build_timeit "$work"

# name | baseline name | arguments (after the binary); W is the work dir.
commands=(
  "verify|verify|verify W/host.ptape"
  "show|verify|show W/host.ptape"
  "tree|verify|tree W/host.ptape --frame 1 --kernel"
  "tree --json|verify|tree W/host.ptape --frame 1 --kernel --json"
  "diff|verify|diff W/host.ptape --frames 0 1"
  "export json|verify|export W/host.ptape --format json --out W/out.json --force"
  "export dot|verify|export W/host.ptape --format dot --frame 1 --out W/out.dot --force"
  "export proc-dir|verify|export W/host.ptape --format proc-dir --frame 1 --out W/frame --force"
  "capture --proc-root|verify|capture --proc-root W/frame -o W/again.ptape --force"
  "replay|replay|replay W/lab.ptape"
  "explain|replay|explain W/lab.ptape"
)

rows=()
for n in $bench_n; do
  if ((n > 0)); then
    log "N=$n: starting $n idle workers"
    start_workers "$n"
  fi
  "$proctape" capture --frames 2 --interval 200 -o "$work/host.ptape" --force >/dev/null
  "$proctape" lab plain --record "$work/lab.ptape" >/dev/null
  stop_workers
  procs=$("$proctape" show "$work/host.ptape" | sed -n 's/^  frame 1: \([0-9]*\) processes.*/\1/p')
  size=$(stat -c %s "$work/host.ptape")
  # The proc-dir that capture --proc-root reads exists before the first round.
  "$proctape" export "$work/host.ptape" --format proc-dir --frame 1 --out "$work/frame" --force >/dev/null
  log "N=$n: host.ptape $size bytes, frame 1: $procs processes; $((warmup + rounds)) rounds"
  for ((i = 0; i < ${#commands[@]}; i++)); do : >"$work/t$i"; done
  for ((r = 0; r < warmup + rounds; r++)); do
    for ((k = 0; k < ${#commands[@]}; k++)); do
      i=$(((k + r) % ${#commands[@]}))
      IFS='|' read -r name _ args <<<"${commands[$i]}"
      read -ra argv <<<"${args//W\//$work/}"
      out=$work/t$i
      ((r < warmup)) && out=$work/discard
      if ! "$work/timeit" "$out" "$proctape" "${argv[@]}" >/dev/null 2>"$work/err"; then
        echo "analyze_bench: proctape $args failed: $(head -1 "$work/err")" >&2
        exit 1
      fi
    done
    log "N=$n: round $((r + 1)) of $((warmup + rounds))"
  done
  declare -A wall=()
  for ((i = 0; i < ${#commands[@]}; i++)); do
    IFS='|' read -r name _ _ <<<"${commands[$i]}"
    wall[$name]=$(awk '{print $1 * 1000}' "$work/t$i" | median)
  done
  for ((i = 0; i < ${#commands[@]}; i++)); do
    IFS='|' read -r name base _ <<<"${commands[$i]}"
    rss=$(awk '{print $4 / 1024}' "$work/t$i" | median)
    rows+=("$(awk -v n="$procs" -v c="$name" -v w="${wall[$name]}" -v b="${wall[$base]}" -v base="$base" -v m="$rss" \
      'BEGIN {printf "| %d | `%s` | %.1f | %.2f× %s | %.0f |", n, c, w, w / b, base, m}')")
  done
  unset wall
done

echo
echo "analyze_bench: medians of $rounds rounds ($warmup discarded), load average at start $load_start," \
  "at end $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| processes | command | wall ms | ratio | peak RSS MiB |"
echo "|---:|---|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
