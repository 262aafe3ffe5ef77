#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# record_bench.sh: what recording costs a live resolution (BENCHMARKS.md,
# "Recording overhead"), on a host with N extra idle processes.
#
#   bash bench/record_bench.sh BUILD/bench/record_overhead
#
# Builds nothing: it runs the CMake-built record_overhead (bench/CMakeLists.txt,
# option PROCTAPE_BENCH) and the spawn_idle / idle_worker built next to it.
#
# Environment:
#   BENCH_N="1000 10000"  extra idle processes, one measurement per value
#   BENCH_ROUNDS=11       alternated rounds per N (medians are taken over them)
#   BENCH_WARMUP=1        rounds run first and discarded
#   BENCH_TMP=/tmp        where the recorded files are written (a real disk:
#                         Finish() fsyncs, as `resolve --record` does)
#
# For each N:
#  1. spawn_idle starts N idle workers (idle_worker; distinct argv, CI-like
#     environment) and waits until all have exec'd. They are children of
#     spawn_idle, not of the resolution's root.
#  2. record_overhead resolves its own /bin/sleep child (root = itself) R rounds,
#     each round running in alternation (see bench/record_overhead.cc):
#       plain   Resolve on ProcfsEvidence
#       tape    the same through a RecordingEvidence whose sink is a
#               SnapshotWriter: create, header, observations, resolution,
#               footer, fsync, rename (the real path of the tape)
#       record  RecordLive: the whole of `resolve --record` (the tape plus a
#               whole-host frame before and after)
#  3. Closes spawn_idle's stdin: it SIGKILLs exactly the pids it started and
#     reaps them; the script checks that none of them is left.
# Then prints a markdown table (stdout; progress on stderr). Every process the
# script starts is ended on exit (trap EXIT); the workers also carry
# PR_SET_PDEATHSIG, so a killed harness leaves nothing behind.
set -euo pipefail
bench_name=record_bench
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

[[ $# -eq 1 ]] || usage_error "usage: bash bench/record_bench.sh BUILD/bench/record_overhead" \
  "       (BENCH_N=\"1000 10000\" BENCH_ROUNDS=11 BENCH_WARMUP=1 BENCH_TMP=/tmp)"
need_executable "$1"
bench=$(absolute "$1")
bindir=$(dirname -- "$bench")
for helper in spawn_idle idle_worker; do
  need_built "$bindir/$helper" "cmake --build BUILD"
done

bench_n=${BENCH_N:-1000 10000}
rounds=${BENCH_ROUNDS:-11}
warmup=${BENCH_WARMUP:-1}
need_count BENCH_ROUNDS "$rounds"
need_whole BENCH_WARMUP "$warmup"
need_bench_n 0 30000 "$bench_n"

start_work record-bench
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

field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"; }
fmt() { awk -v v="$1" -v f="$2" 'BEGIN {printf f, v}'; }

rows=()
cpu_rows=()
lib_rows=()
raw=()
for n in $bench_n; do
  if ((n > 0)); then
    log "N=$n: starting $n idle workers"
    start_workers "$n"
    log "N=$n: $(tail -1 "$work/spawn.log" 2>/dev/null || true)"
  fi
  log "N=$n: $rounds alternated rounds (+$warmup warm-up)"
  out=$("$bench" --rounds "$rounds" --warmup "$warmup" --dir "$work")
  printf '%s\n' "$out" | sed '/^RESULT /d' >&2
  result=$(grep '^RESULT ' <<<"$out")
  raw+=("N=$n $result")
  if ((n > 0)); then
    log "N=$n: ending the workers"
    stop_workers
    check_no_leftovers
    log "N=$n: all $n workers ended and reaped"
  fi
  procs="$(field "$result" listed) ($(field "$result" processes)..$(field "$result" processes_after))"
  plain=$(field "$result" plain_ms)
  obs=$(field "$result" observations)
  tape_bytes=$(field "$result" tape_bytes)
  per_obs=$(awk -v b="$tape_bytes" -v o="$obs" 'BEGIN {printf "%.1f", (o > 0 ? b / o : 0)}')
  cpu_ratio=$(awk -v a="$(field "$result" tape_resolve_cpu_ms)" -v b="$(field "$result" plain_cpu_ms)" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')
  tape_cpu_ratio=$(awk -v a="$(field "$result" tape_cpu_ms)" -v b="$(field "$result" plain_cpu_ms)" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')
  lib_rows+=("| $n | $(fmt "$plain" %.2f) | $(fmt "$(field "$result" lib_ms)" %.2f) | $(fmt "$(field "$result" lib_plain_round_ratio)" %.2f) | $(fmt "$(field "$result" lib_onfail_ms)" %.2f) | $(fmt "$(field "$result" lib_onfail_ratio)" %.2f) ($(fmt "$(field "$result" lib_onfail_round_ratio)" %.2f)) | $(fmt "$(field "$result" lib_cpu_ms)" %.2f) | $(fmt "$(field "$result" lib_onfail_cpu_ms)" %.2f) |")
  cpu_rows+=("| $n | $(fmt "$(field "$result" plain_cpu_ms)" %.2f) | $(fmt "$(field "$result" tape_resolve_cpu_ms)" %.2f) | $cpu_ratio | $(fmt "$(field "$result" tape_cpu_ms)" %.2f) | $tape_cpu_ratio | $(fmt "$(field "$result" record_cpu_ms)" %.1f) |")
  rows+=("| $n | $procs | $(fmt "$plain" %.2f) | $(fmt "$(field "$result" tape_resolve_ms)" %.2f) | $(fmt "$(field "$result" tape_resolve_ratio)" %.2f) ($(fmt "$(field "$result" tape_resolve_round_ratio)" %.2f)) | $(fmt "$(field "$result" tape_ms)" %.2f) | $(fmt "$(field "$result" tape_ratio)" %.2f) ($(fmt "$(field "$result" tape_round_ratio)" %.2f)) | $obs | $tape_bytes ($per_obs B/obs) | $(fmt "$(field "$result" record_ms)" %.1f) | $(fmt "$(field "$result" record_ratio)" %.1f) | $(field "$result" record_bytes) |")
done

cat <<EOF

## Recording overhead of a live resolution

- Host: $(uname -sr), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo) RAM, load average $load_start at the start, $(cut -d" " -f1-3 /proc/loadavg) at the end; $(date -u '+%Y-%m-%d %H:%M UTC')
- Command: BENCH_N="$bench_n" BENCH_ROUNDS=$rounds BENCH_WARMUP=$warmup bash bench/record_bench.sh $1
- Each N: N idle workers on top of the host's own processes; one resolution of
  the bench's own /bin/sleep child per mode per round, modes in alternation
  (the first rotates every round); $warmup warm-up round(s) discarded, medians of $rounds.
  Ratios: median/median, and in parentheses the median of the per-round ratios.
  Files are written to ${BENCH_TMP:-/tmp} (fsync'd by Finish, as \`resolve --record\` does).

| N | processes listed (at start..end) | plain resolve ms | recorded Resolve ms | recorded/plain | tape file ms (create..fsync) | tape/plain | observations | tape bytes | \`--record\` (2 frames + tape) ms | --record/plain | --record bytes |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
$(printf '%s\n' "${rows[@]}")

CPU time (medians, ms): the resolver's thread during Resolve, and the whole
process for a mode (RecordLive's frame scans use worker threads). Less
sensitive than wall time to other load on the host.

| N | plain resolve CPU | recorded Resolve CPU | recorded/plain | tape file CPU | tape/plain | \`--record\` CPU |
|---:|---:|---:|---:|---:|---:|---:|
$(printf '%s\n' "${cpu_rows[@]}")

The library's resolve (\`include/proctape/live.h\`, \`api::Resolve\`) in the same
rounds: with \`Record::kNever\`, and with \`Record::kOnFailure\` on a RESOLVED
verdict (the tape streamed to a temporary that is then removed: nothing written).

| N | plain resolve ms | library, never ms | never/plain (per round) | library, on failure ms | on failure/never (per round) | never CPU ms | on failure CPU ms |
|---:|---:|---:|---:|---:|---:|---:|---:|
$(printf '%s\n' "${lib_rows[@]}")

Raw results:
\`\`\`
$(printf '%s\n' "${raw[@]}")
\`\`\`
EOF
