#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# replay_bench.sh: replay throughput (BENCHMARKS.md, "Replay"), from resolutions
# recorded on a host of N processes.
#
#   bash bench/replay_bench.sh BUILD/bench/replay_bench [BUILD/cli/proctape]
#
# Builds nothing: it runs the CMake-built replay_bench (bench/CMakeLists.txt,
# option PROCTAPE_BENCH) and, when given, the proctape binary.
#
# Environment:
#   BENCH_N="10000"   idle workers of the in-memory host, one measurement per value
#   BENCH_ROUNDS=11   alternated rounds per N (medians are taken over them)
#   BENCH_WARMUP=1    rounds run first and discarded
#   BENCH_TMP=/tmp    where the recorded files are written
#
# For each N:
#  1. replay_bench records two resolutions the way `resolve --record` writes
#     them (frame, tape, frame, Resolution; real SnapshotWriter) on an
#     in-memory host of N idle workers plus a sandbox — "resolved" (RESOLVED
#     in one attempt) and "retry" (the sleep never appears: NO_MATCH after 51
#     attempts, a 5 s retry loop) — reads them back, and times, R rounds in
#     alternation: the resolver alone on the in-memory host (the floor), the
#     tape replay, and the frame model (see bench/replay_bench.cc).
#  2. With a proctape binary: `proctape replay FILE` on both files, R times
#     each, end to end (process start, ReadSnapshot, replay, output), wall
#     time by bash's EPOCHREALTIME; each run must print REPRODUCED and exit 0.
# Then prints a markdown table (stdout; progress and raw output on stderr).
# Starts no process that outlives it; removes its work directory on exit.
set -euo pipefail
bench_name=replay_bench
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

[[ $# -eq 1 || $# -eq 2 ]] || usage_error "usage: bash bench/replay_bench.sh BUILD/bench/replay_bench [BUILD/cli/proctape]" \
  "       (BENCH_N=\"10000\" BENCH_ROUNDS=11 BENCH_WARMUP=1 BENCH_TMP=/tmp)"
bench=$1
need_executable "$bench"
proctape=${2:-}
[[ -z $proctape ]] || need_executable "$proctape"

bench_n=${BENCH_N:-10000}
rounds=${BENCH_ROUNDS:-11}
warmup=${BENCH_WARMUP:-1}
need_count BENCH_ROUNDS "$rounds"
need_whole BENCH_WARMUP "$warmup"
need_bench_n 1 100000 "$bench_n"

work=$(mktemp -d "${BENCH_TMP:-/tmp}/proctape-replay-bench.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
field() { sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p" <<<"$2"; }

# proctape replay FILE, R times (after W warm-up runs): median wall ms.
time_cli() { # FILE
  local i t0 t1 out rc
  : >"$work/cli.times"
  for ((i = 0; i < warmup + rounds; i++)); do
    t0=$EPOCHREALTIME
    set +e
    out=$("$proctape" replay "$1")
    rc=$?
    set -e
    t1=$EPOCHREALTIME
    if ((rc != 0)) || [[ $out != *REPRODUCED* ]]; then
      echo "replay_bench: proctape replay $1 exited $rc: $out" >&2
      exit 1
    fi
    ((i < warmup)) || awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f\n", (b - a) * 1000}' >>"$work/cli.times"
  done
  median <"$work/cli.times"
}

rows=()
for n in $bench_n; do
  log "N=$n: recording and replaying ($rounds rounds after $warmup warm-up)"
  mkdir -p "$work/n$n"
  out=$("$bench" --procs "$n" --rounds "$rounds" --warmup "$warmup" --dir "$work/n$n" --keep)
  printf '%s\n' "$out" >&2
  result=$(grep '^RESULT ' <<<"$out")
  cli_res=n/a cli_ret=n/a
  if [[ -n $proctape ]]; then
    log "N=$n: proctape replay, end to end"
    cli_res=$(time_cli "$work/n$n/resolved.ptape")
    cli_ret=$(time_cli "$work/n$n/retry.ptape")
  fi
  rm -rf -- "${work:?}/n$n"
  rows+=("| $(field procs "$result") | $(field resolved_obs "$result") | $(field resolved_memory_ms "$result") | $(field resolved_tape_ms "$result") | $(field resolved_obs_per_s "$result") | $(field resolved_res_per_s "$result") | $(field retry_obs "$result") | $(field retry_memory_ms "$result") | $(field retry_tape_ms "$result") | $(field retry_frames_ms "$result") | $(field retry_read_s "$result") | $(field retry_memory_cpu_ms "$result") | $(field retry_memory_obs_per_cpu_s "$result") | $cli_res | $cli_ret |")
done

echo "Replay throughput (medians of $rounds rounds after $warmup warm-up; wall ms; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) at the end)"
echo
echo "| host processes | resolved: observations | resolver alone (ms) | tape replay (ms) | observations/s | resolutions/s | 5 s loop: observations | resolver alone (ms) | tape replay (ms) | frame model (ms) | file read (s) | resolver alone CPU (ms) | resolver alone obs/s of CPU | CLI resolved (ms) | CLI 5 s loop (ms) |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
echo
echo "Targets (BENCHMARKS.md, \"Replay\"): >= 1,000,000 observations/s; a recorded 5 s retry loop replayed in < 50 ms."
echo "Target (BENCHMARKS.md, \"Replay: the resolver at 10 M observations/s\"): the resolver alone on the in-memory host >= 10,000,000 observations/s of CPU time."
