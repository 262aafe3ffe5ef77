#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# minimize_scale_bench.sh: `proctape minimize` by host size (BENCHMARKS.md,
# "Minimize by host size"):
# a star (a root with N children, the match the last) and a chain (N links,
# the match at the bottom; past 256 links the resolver stops at DEPTH_BOUND,
# which minimize keeps) of tests/shapes/shape_file.h, for each N. With a
# second binary (an older build), both are run on the same files, rounds
# alternated, so that the table holds before and after.
#
#   bash bench/minimize_scale_bench.sh BUILD/cli/proctape [OLD/cli/proctape]   (from the repo root)
#
# Needs BUILD/tests/shape_file (built with the tests) and a C compiler
# (bench/timeit.c is compiled into the work dir).
#
# Environment:
#   BENCH_SIZES="200 500 1000 2000"   processes beneath the root
#   BENCH_SHAPES="star chain"
#   BENCH_ROUNDS=3    rounds (medians are taken over them)
#   BENCH_TIMEOUT=900 seconds a run may take before it is reported as such
#   BENCH_TMP=/tmp    where the work directory is made
#
# Prints a markdown table: shape and size, binary, median wall s and user s,
# peak RSS MiB, the runs minimize took and the processes kept (from the new
# binary's --json). It starts no process but proctape's; the work directory
# is removed.
set -euo pipefail
bench_name=minimize_scale_bench
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

[[ $# -eq 1 || $# -eq 2 ]] ||
  usage_error "usage: bash bench/minimize_scale_bench.sh BUILD/cli/proctape [OLD/cli/proctape]" \
    "       (BENCH_SIZES=\"200 500 1000 2000\" BENCH_SHAPES=\"star chain\" BENCH_ROUNDS=3 BENCH_TMP=/tmp)"
need_executable "$1"
binaries=("$(absolute "$1")")
if [[ $# -eq 2 ]]; then
  need_executable "$2"
  binaries+=("$(absolute "$2")")
fi
shape_file=$(cd "$(dirname -- "${binaries[0]}")/.." && pwd)/tests/shape_file
need_built "$shape_file" "cmake --build BUILD --target shape_file"
need_tool cc gcc
need_tool python3

sizes=${BENCH_SIZES:-200 500 1000 2000}
shapes=${BENCH_SHAPES:-star chain}
rounds=${BENCH_ROUNDS:-3}
limit=${BENCH_TIMEOUT:-900}
need_count BENCH_ROUNDS "$rounds"
need_count BENCH_TIMEOUT "$limit"

start_work minimize-scale-bench
trap 'rm -rf -- "$work"' EXIT
build_timeit "$work"

echo "| host | binary | wall s | user s | peak RSS MiB | runs | processes |"
echo "|---|---|---:|---:|---:|---:|---|"
for shape in $shapes; do
  for n in $sizes; do
    file=$work/$shape-$n.ptape
    "$shape_file" "$shape" "$n" "$file"
    for ((b = 0; b < ${#binaries[@]}; b++)); do : >"$work/t$b"; done
    for ((r = 0; r < rounds; r++)); do
      for ((k = 0; k < ${#binaries[@]}; k++)); do
        b=$(((k + r) % ${#binaries[@]}))
        if ! "$work/timeit" "$work/t$b" timeout "$limit" "${binaries[$b]}" minimize "$file" \
             -o "$work/min.ptape" --force >/dev/null 2>"$work/err"; then
          echo "| $shape $n | ${binaries[$b]} | failed or passed ${limit} s | | | | |"
          continue
        fi
      done
      log "$shape $n: round $((r + 1)) of $rounds"
    done
    "${binaries[0]}" minimize "$file" -o "$work/min.ptape" --force --json >"$work/json"
    read -r runs kept < <(python3 -c 'import json, sys; d = json.load(open(sys.argv[1]));
print(d["runs"], "%d -> %d" % (d["processes_before"], d["processes_after"]))' "$work/json")
    for ((b = 0; b < ${#binaries[@]}; b++)); do
      wall=$(awk '$5 == 0 {print $1}' "$work/t$b" | median)
      user=$(awk '$5 == 0 {print $2}' "$work/t$b" | median)
      rss=$(awk '$5 == 0 {print $4 / 1024}' "$work/t$b" | median)
      printf '| %s %s | %s | %.2f | %.2f | %.0f | %s | %s |\n' "$shape" "$n" \
        "$([[ $b -eq 0 ]] && echo new || echo old)" "$wall" "$user" "$rss" "$runs" "$kept"
    done
  done
done
echo
echo "minimize_scale_bench: medians of $rounds rounds, load average at start $load_start," \
  "at end $(cut -d' ' -f1-3 /proc/loadavg)"
