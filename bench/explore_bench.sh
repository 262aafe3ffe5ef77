#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Explore's speed (BENCHMARKS.md, "Explore"), side by side with plain replay of
# the same files, rounds alternating the two so that a noisy host weighs on
# both:
#   one entry:   `explore ENTRY --depth 2` (histories run + pruned per second of
#                wall time) beside `replay ENTRY`;
#   the corpus:  `explore F --depth 2` and `--depth 1` for every corpus/*.ptape,
#                one after the other, beside `replay F` for every file; and
#                `--depth 2` with the files on two cores (xargs -P 2: the
#                target of BENCHMARKS.md, "Explore": under 60 s);
#   10,000:      a recording of 10,002 processes (tests' shape_file star
#                10000), `explore --depth 1 --budget 200` beside its replay.
# Prints the median of each over ROUNDS rounds and the ratios.
# Usage: bench/explore_bench.sh BUILD_DIR [ROUNDS=3] [ENTRY=corpus/051df0283b135a91.ptape]
set -euo pipefail
bench_name=explore_bench
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"
[[ $# -ge 1 ]] || usage_error "usage: bench/explore_bench.sh BUILD_DIR [ROUNDS=3] [ENTRY]"
build=$(absolute "$1")
rounds=${2:-3}
src=$(cd "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
entry=${3:-$src/corpus/051df0283b135a91.ptape}
proctape=$build/cli/proctape
need_built "$proctape" "cmake --build $1 --target proctape"
need_count ROUNDS "$rounds"
shape_file=$build/tests/shape_file
need_built "$shape_file" "cmake --build $1 --target shape_file"
start_work explore
trap 'rm -rf "$work"' EXIT
build_timeit "$work"
corpus=("$src"/corpus/*.ptape)
"$shape_file" star 10000 "$work/star10k.ptape"

all() { # MODE ARGS...: MODE on every corpus file
  local mode=$1; shift
  for f in "${corpus[@]}"; do "$proctape" "$mode" "$f" "$@" >/dev/null || [[ $? == 20 ]]; done
}
export -f all
export proctape
histories=$("$proctape" explore "$entry" --depth 2 --json |
            python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(c["run"]+c["pruned"]+c["not_applicable"] for c in d["checks"]))')
for ((r = 1; r <= rounds; r++)); do
  log "round $r/$rounds"
  "$work/timeit" "$work/entry_replay" "$proctape" replay "$entry" >/dev/null
  "$work/timeit" "$work/entry_explore2" "$proctape" explore "$entry" --depth 2 >/dev/null
  "$work/timeit" "$work/all_replay" bash -c "$(declare -f all); corpus=(${corpus[*]}); all replay"
  "$work/timeit" "$work/all_explore1" bash -c "$(declare -f all); corpus=(${corpus[*]}); all explore --depth 1"
  "$work/timeit" "$work/all_explore2" bash -c "$(declare -f all); corpus=(${corpus[*]}); all explore --depth 2"
  "$work/timeit" "$work/all_explore2_p2" bash -c \
    "printf '%s\\n' ${corpus[*]} | xargs -P 2 -n 1 $proctape explore --depth 2 >/dev/null; [[ \$? == 0 || \$? == 123 ]]"
  "$work/timeit" "$work/big_replay" "$proctape" replay "$work/star10k.ptape" >/dev/null
  "$work/timeit" "$work/big_explore" "$proctape" explore "$work/star10k.ptape" --depth 1 --budget 200 >/dev/null
done
med() { cut -d' ' -f"$2" "$work/$1" | median; }
printf 'load average at start: %s; %d rounds; %d corpus files\n' "$load_start" "$rounds" "${#corpus[@]}"
e2=$(med entry_explore2 1)
printf 'entry %s: explore --depth 2 %.3f s wall (%s histories: %.0f histories/s), replay %.3f s wall (ratio %.0fx)\n' \
  "$(basename "$entry")" "$e2" "$histories" "$(echo "$histories / $e2" | bc -l)" "$(med entry_replay 1)" \
  "$(echo "$e2 / $(med entry_replay 1)" | bc -l)"
b=$(med big_explore 1)
printf 'star10k (10,002 processes, 40,013 calls): explore --depth 1 --budget 200 %.3f s wall, %s KiB (200 histories: %.1f histories/s), replay %.3f s wall (ratio %.0fx)\n' \
  "$b" "$(med big_explore 4)" "$(echo "200 / $b" | bc -l)" "$(med big_replay 1)" "$(echo "$b / $(med big_replay 1)" | bc -l)"
for m in all_replay all_explore1 all_explore2 all_explore2_p2; do
  printf '%-13s corpus total: %.2f s wall, %.2f s user, %s KiB peak RSS\n' "$m" "$(med $m 1)" "$(med $m 2)" "$(med $m 4)"
done
