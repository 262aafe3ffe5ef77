#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The corpus of a fleet (BENCHMARKS.md, "A corpus of 10,000 entries"): for
# each size N, a corpus of N entries made by `corpus add` from N recordings
# that bench/corpus_variants derives from corpus/*.ptape (each a corpus
# recording "captured again on host i": its own bytes and sha256, the same
# tape and verdicts). Then, ROUNDS times, side by side:
#   list        corpus list
#   check       corpus check (--jobs: one per core) and check1 (--jobs 1)
#   add-again   corpus add of a file already present (found by its sha256)
#   verify      verify of every entry's file, in one command
#   sql         sql of every entry's file, in one command (-c 'SELECT 1')
# and once, the `corpus add` of all N (informative: the corpus is made once).
# Prints the median wall and CPU seconds and peak RSS of each, and sql/verify.
# Usage: bench/corpus_scale_bench.sh BUILD_DIR [ROUNDS=3]
#   BENCH_N="100 1000 10000"   the corpus sizes
set -euo pipefail
bench_name=corpus_scale_bench
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"
[[ $# -ge 1 ]] || usage_error "usage: bench/corpus_scale_bench.sh BUILD_DIR [ROUNDS=3]"
build=$(absolute "$1")
rounds=${2:-3}
sizes=${BENCH_N:-100 1000 10000}
src=$(cd "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
proctape=$build/cli/proctape
variants=$build/bench/corpus_variants
need_built "$proctape" "cmake --build $1 --target proctape"
need_built "$variants" "cmake --build $1 --target corpus_variants"
need_count ROUNDS "$rounds"
need_bench_n 1 100000 "$sizes"
start_work corpus-scale
trap 'rm -rf "$work"' EXIT
build_timeit "$work"

printf 'load average at start: %s; %d rounds (median)\n' "$load_start" "$rounds"
printf '%6s %-10s %9s %9s %9s\n' N command wall_s cpu_s rss_MiB
for n in $sizes; do
  dir=$work/c$n
  mkdir -p "$work/v$n"
  log "N=$n: $n recordings"
  "$variants" "$n" "$work/v$n" "$src"/corpus/*.ptape >/dev/null
  log "N=$n: corpus add"
  "$work/timeit" "$work/$n.add_all" "$proctape" corpus add "$work/v$n"/*.ptape \
    --corpus "$dir" >/dev/null
  files=("$dir"/*.ptape)
  again=$work/again.ptape
  cp -- "${files[0]}" "$again"
  for ((r = 1; r <= rounds; r++)); do
    log "N=$n: round $r/$rounds"
    "$work/timeit" "$work/$n.list" "$proctape" corpus list "$dir" >/dev/null
    "$work/timeit" "$work/$n.check" "$proctape" corpus check "$dir" >/dev/null
    "$work/timeit" "$work/$n.check1" "$proctape" corpus check "$dir" --jobs 1 >/dev/null
    "$work/timeit" "$work/$n.add-again" "$proctape" corpus add "$again" --corpus "$dir" \
      >/dev/null
    "$work/timeit" "$work/$n.verify" "$proctape" verify "${files[@]}" >/dev/null
    "$work/timeit" "$work/$n.sql" "$proctape" sql "${files[@]}" -c 'SELECT 1' >/dev/null
  done
  med() { awk -v f="$2" '{print (f == 0 ? $2 + $3 : $f)}' "$work/$n.$1" | median; }
  for c in add_all list check check1 add-again verify sql; do
    printf '%6d %-10s %9.3f %9.3f %9.1f\n' "$n" "$c" "$(med "$c" 1)" "$(med "$c" 0)" \
      "$(echo "$(med "$c" 4) / 1024" | bc -l)"
  done
  printf '%6d sql/verify wall %.2fx; corpus %s bytes in %d files\n' "$n" \
    "$(echo "$(med sql 1) / $(med verify 1)" | bc -l)" "$(cat "${files[@]}" | wc -c)" \
    "${#files[@]}"
  rm -rf -- "$work/v$n"
done
printf 'load average at end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
