#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `proctape sql`'s load (BENCHMARKS.md, "SQL: loading files"), side by side with
# `verify` of the same files, rounds alternating the two so that a noisy host
# weighs on both:
#   2 frames:  a file of 2 frames of 10,000 processes each (tests' many_frames
#              2 10000) -- `sql F -c 'SELECT 1'` beside `verify F`;
#   star10k:   a recording of 10,002 processes and 40,013 calls (tests'
#              shape_file star 10000), the same two;
#   corpus:    every corpus/*.ptape in one `sql` beside one `verify` of them all.
# Prints the median wall time and peak RSS of each over ROUNDS rounds, and the
# ratio sql / verify (the target: within 3x).
# Usage: bench/sql_bench.sh BUILD_DIR [ROUNDS=7]
set -euo pipefail
bench_name=sql_bench
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"
[[ $# -ge 1 ]] || usage_error "usage: bench/sql_bench.sh BUILD_DIR [ROUNDS=7]"
build=$(absolute "$1")
rounds=${2:-7}
src=$(cd "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
proctape=$build/cli/proctape
need_built "$proctape" "cmake --build $1 --target proctape"
need_count ROUNDS "$rounds"
for tool in shape_file many_frames; do
  need_built "$build/tests/$tool" "cmake --build $1 --target $tool"
done
start_work sql
trap 'rm -rf "$work"' EXIT
build_timeit "$work"
"$build/tests/many_frames" 2 10000 "$work/frames2.ptape"
"$build/tests/shape_file" star 10000 "$work/star10k.ptape"
corpus=("$src"/corpus/*.ptape)

for ((r = 1; r <= rounds; r++)); do
  log "round $r/$rounds"
  for f in frames2 star10k; do
    "$work/timeit" "$work/${f}_verify" "$proctape" verify "$work/$f.ptape" >/dev/null
    "$work/timeit" "$work/${f}_sql" "$proctape" sql "$work/$f.ptape" -c 'SELECT 1' >/dev/null
  done
  "$work/timeit" "$work/corpus_verify" "$proctape" verify "${corpus[@]}" >/dev/null
  "$work/timeit" "$work/corpus_sql" "$proctape" sql "${corpus[@]}" -c 'SELECT 1' >/dev/null
done
med() { cut -d' ' -f"$2" "$work/$1" | median; }
printf 'load average at start: %s; %d rounds (median)\n' "$load_start" "$rounds"
for f in frames2 star10k corpus; do
  v=$(med "${f}_verify" 1)
  s=$(med "${f}_sql" 1)
  printf '%-8s sql %.4f s %6s KiB | verify %.4f s %6s KiB | ratio %.2fx\n' "$f" \
    "$s" "$(med "${f}_sql" 4)" "$v" "$(med "${f}_verify" 4)" "$(echo "$s / $v" | bc -l)"
done
printf 'files: frames2 %s bytes (2 frames, 20,000 process records); star10k %s bytes (10,002 processes, 40,013 calls); corpus %d files, %s bytes\n' \
  "$(stat -c %s "$work/frames2.ptape")" "$(stat -c %s "$work/star10k.ptape")" "${#corpus[@]}" \
  "$(cat "${corpus[@]}" | wc -c)"
