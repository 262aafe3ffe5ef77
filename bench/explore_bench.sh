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
#   one command: `explore --depth 2 corpus/*.ptape` as ONE run, `--jobs 1`
#                beside `--jobs 2`, alternating (the whole-run bounds raised
#                past what the corpus needs: --total-budget 100000000
#                --work-budget 10000000000 --time-limit 0, so that both do
#                all the work the files alone do); their outputs compared;
#   10,000:      a recording of 10,002 processes (tests' shape_file star
#                10000), `explore --depth 1 --budget 200` beside its replay.
# Prints the median of each over ROUNDS rounds and the ratios.
# Usage: bench/explore_bench.sh BUILD_DIR [ROUNDS=3] [ENTRY=corpus/051df0283b135a91.ptape]
# EXPLORE_BENCH_ONLY=jobs: only the one-command runs (--jobs 1 beside --jobs 2).
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
only=${EXPLORE_BENCH_ONLY:-}
[[ -z $only || $only == jobs ]] || usage_error "EXPLORE_BENCH_ONLY must be 'jobs' or empty"
shape_file=$build/tests/shape_file
[[ $only == jobs ]] || need_built "$shape_file" "cmake --build $1 --target shape_file"
start_work explore
trap 'rm -rf "$work"' EXIT
build_timeit "$work"
corpus=("$src"/corpus/*.ptape)

all() { # MODE ARGS...: MODE on every corpus file
  local mode=$1; shift
  for f in "${corpus[@]}"; do "$proctape" "$mode" "$f" "$@" >/dev/null || [[ $? == 20 ]]; done
}
export -f all
export proctape
whole=(--depth 2 --total-budget 100000000 --work-budget 10000000000 --time-limit 0)
one_command() { # JOBS OUT: the whole corpus as one explore
  "$work/timeit" "$work/one_j$1" "$proctape" explore "${corpus[@]}" "${whole[@]}" --jobs "$1" >"$2" ||
    [[ $? == 20 ]]
}
if [[ $only == jobs ]]; then
  for ((r = 1; r <= rounds; r++)); do
    log "round $r/$rounds"
    if ((r % 2)); then order=(1 2); else order=(2 1); fi
    for j in "${order[@]}"; do one_command "$j" "$work/one_j$j.out"; done
    cmp -s "$work/one_j1.out" "$work/one_j2.out" || bench_fail "--jobs 1 and --jobs 2 printed different reports"
  done
  printf 'load average at start: %s, at end: %s; %d rounds; %d corpus files as one command\n' \
    "$load_start" "$(cut -d' ' -f1-3 /proc/loadavg)" "$rounds" "${#corpus[@]}"
  for j in 1 2; do
    printf 'explore --depth 2 corpus/*.ptape --jobs %s: %.2f s wall, %.2f s user, %s KiB peak RSS\n' \
      "$j" "$(cut -d' ' -f1 "$work/one_j$j" | median)" "$(cut -d' ' -f2 "$work/one_j$j" | median)" \
      "$(cut -d' ' -f4 "$work/one_j$j" | median)"
  done
  printf 'ratio --jobs 1 / --jobs 2: %.2f; the same report: yes\n' \
    "$(echo "$(cut -d' ' -f1 "$work/one_j1" | median) / $(cut -d' ' -f1 "$work/one_j2" | median)" | bc -l)"
  exit 0
fi
"$shape_file" star 10000 "$work/star10k.ptape"
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
  if ((r % 2)); then order=(1 2); else order=(2 1); fi
  for j in "${order[@]}"; do one_command "$j" "$work/one_j$j.out"; done
  cmp -s "$work/one_j1.out" "$work/one_j2.out" || bench_fail "--jobs 1 and --jobs 2 printed different reports"
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
for m in all_replay all_explore1 all_explore2 all_explore2_p2 one_j1 one_j2; do
  printf '%-13s corpus total: %.2f s wall, %.2f s user, %s KiB peak RSS\n' "$m" "$(med $m 1)" "$(med $m 2)" "$(med $m 4)"
done
