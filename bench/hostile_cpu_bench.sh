#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CPU seconds of the hostile check as ctest runs it (tests/hostile/CMakeLists.txt:
# the read commands and explore apart), for an old run_all.sh beside this one.
#
#   bench/hostile_cpu_bench.sh before|after RUN_ALL BUILD OUTDIR CASE...
#
# before: RUN_ALL makes each case in each of its two runs (a run_all.sh
# without --shapes); after: RUN_ALL --shapes once, both runs through
# HOSTILE_SHAPES. Prints each phase's user and system seconds (all of its
# processes), and what of them the proctape commands took (table.tsv).
set -u
if [ $# -lt 5 ]; then
  echo "usage: hostile_cpu_bench.sh before|after RUN_ALL BUILD OUTDIR CASE..." >&2
  exit 2
fi
mode=$1 run_all=$2 build=$3 out=$4
shift 4
export HOSTILE_FILE=$build/tests/hostile/hostile_file
readers="verify show tree diff replay replay-frames explain export-json export-dot export-proc-dir
  export-sqlite export-csv sql ownership corpus-check corpus-list minimize"
rm -rf "$out" && mkdir -p "$out" || exit 2
phase() {  # phase NAME ENV...: run_all.sh ARGS (the array args), timed
  local name=$1; shift
  env "$@" /usr/bin/time -o "$out/$name.cpu" -f '%U %S' bash "$run_all" "${args[@]}" >"$out/$name.log"
  read -r u s <"$out/$name.cpu"
  local cmds=0
  [ -f "$out/$name/table.tsv" ] && cmds=$(awk -F'\t' 'NR > 1 {n += $5} END {printf "%.1f", n}' "$out/$name/table.tsv")
  printf '%-8s %-7s cpu_s %6.1f  commands %6.1f\n' "$mode" "$name" "$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')" "$cmds"
}
shapes=()
if [ "$mode" = after ]; then
  args=(--shapes "$build/cli/proctape" "$out/shapes" "$@")
  phase shapes
  shapes=("HOSTILE_SHAPES=$out/shapes")
fi
args=(--check "$build/cli/proctape" "$out/readers" "$@")
phase readers "${shapes[@]}" "HOSTILE_COMMANDS=$readers"
args=(--check "$build/cli/proctape" "$out/explore" "$@")
phase explore "${shapes[@]}" HOSTILE_COMMANDS=explore
