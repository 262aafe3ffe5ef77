#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# views_shape_bench.sh: every view on files of hostile shapes (BENCHMARKS.md,
# "Views on hostile shapes"), side by side with `proctape replay` of the
# same file in the same run: a 60,000-deep parent chain and a 60,000-wide
# star, each holding a recorded resolution (tests/shapes/shape_file.h). A view
# linear in the processes costs a small multiple of replay; a quadratic one
# (explain before the fix: a walk to the root per process) hundreds of times.
#
#   bash bench/views_shape_bench.sh BUILD/cli/proctape      (from the repo root)
#
# Needs BUILD/tests/shape_file (built with the tests) and a C compiler
# (bench/timeit.c is compiled into the work dir).
#
# Environment:
#   BENCH_N=60000     processes beneath the root (at most 64000)
#   BENCH_SHAPES="chain star"
#   BENCH_ROUNDS=3    alternated rounds (medians are taken over them)
#   BENCH_WARMUP=1    rounds run first and discarded
#   BENCH_TIMEOUT=600 seconds a command may take before it is reported as such
#   BENCH_TMP=/tmp    where the work directory is made
#
# Each command runs once per round under bench/timeit (wall time, peak RSS),
# the starting command rotating every round; each must exit 0. Prints a
# markdown table of medians: wall ms, ratio to `replay` of the same file,
# peak RSS. Progress goes to stderr. It starts no process but proctape's; the
# work directory is removed.
set -euo pipefail
bench_name=views_shape_bench
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

[[ $# -eq 1 ]] || usage_error "usage: bash bench/views_shape_bench.sh BUILD/cli/proctape" \
  "       (BENCH_N=60000 BENCH_SHAPES=\"chain star\" BENCH_ROUNDS=3 BENCH_WARMUP=1 BENCH_TMP=/tmp)"
need_executable "$1"
proctape=$(absolute "$1")
shape_file=$(cd "$(dirname -- "$proctape")/.." && pwd)/tests/shape_file
need_built "$shape_file" "cmake --build BUILD --target shape_file"
need_tool cc gcc

n=${BENCH_N:-60000}
shapes=${BENCH_SHAPES:-chain star}
rounds=${BENCH_ROUNDS:-3}
warmup=${BENCH_WARMUP:-1}
limit=${BENCH_TIMEOUT:-600}
[[ $n =~ ^[1-9][0-9]*$ && $n -le 64000 ]] || bench_fail "BENCH_N must be 1..64000"
need_count BENCH_ROUNDS "$rounds"
need_whole BENCH_WARMUP "$warmup"
need_count BENCH_TIMEOUT "$limit"

start_work views-shape-bench
trap 'rm -rf -- "$work"' EXIT
build_timeit "$work"

# name | arguments (after the binary); F is the file, W the work dir.
commands=(
  "replay|replay F"
  "verify|verify F"
  "show|show F"
  "show --json|show F --json"
  "tree|tree F"
  "tree --json|tree F --json"
  "diff|diff F F"
  "diff --frames 0 1|diff F --frames 0 1"
  "explain|explain F"
  "explain --json|explain F --json"
  "export json|export F --format json --out W/out.json --force"
  "export dot|export F --format dot --out W/out.dot --force"
  "export proc-dir|export F --format proc-dir --out W/frame --force"
)

rows=()
for shape in $shapes; do
  file=$work/$shape.ptape
  "$shape_file" "$shape" "$n" "$file"
  log "$shape of $n: $(stat -c %s "$file") bytes; $((warmup + rounds)) rounds"
  for ((i = 0; i < ${#commands[@]}; i++)); do : >"$work/t$i"; done
  for ((r = 0; r < warmup + rounds; r++)); do
    for ((k = 0; k < ${#commands[@]}; k++)); do
      i=$(((k + r) % ${#commands[@]}))
      IFS='|' read -r name args <<<"${commands[$i]}"
      args=${args//F/$file}
      read -ra argv <<<"${args//W\//$work/}"
      out=$work/t$i
      ((r < warmup)) && out=$work/discard
      if ! "$work/timeit" "$out" timeout "$limit" "$proctape" "${argv[@]}" >/dev/null 2>"$work/err"; then
        echo "views_shape_bench: proctape $name on the $shape failed or passed ${limit} s: $(head -1 "$work/err")" >&2
        exit 1
      fi
    done
    log "$shape: round $((r + 1)) of $((warmup + rounds))"
  done
  replay=$(awk '{print $1 * 1000}' "$work/t0" | median)
  for ((i = 0; i < ${#commands[@]}; i++)); do
    IFS='|' read -r name _ <<<"${commands[$i]}"
    wall=$(awk '{print $1 * 1000}' "$work/t$i" | median)
    rss=$(awk '{print $4 / 1024}' "$work/t$i" | median)
    rows+=("$(awk -v s="$shape $n" -v c="$name" -v w="$wall" -v b="$replay" -v m="$rss" \
      'BEGIN {printf "| %s | `%s` | %.1f | %.2f× replay | %.0f |", s, c, w, w / b, m}')")
  done
done

echo
echo "views_shape_bench: medians of $rounds rounds ($warmup discarded), load average at start $load_start," \
  "at end $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| file | command | wall ms | ratio | peak RSS MiB |"
echo "|---|---|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
