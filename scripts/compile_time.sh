#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Where a build's compile time goes (BENCHMARKS.md, "Build and CI time").
# As a CMake compiler launcher it runs the compile it is given and appends
# one line to $COMPILE_TIME_LOG: user and system CPU seconds (the
# compiler's own processes), wall seconds, the object, tab-separated. With --top it reads such a log
# and prints the N slowest objects and the CPU seconds of each target.
#   CMAKE_CXX_COMPILER_LAUNCHER="$PWD/scripts/compile_time.sh;ccache" \
#     COMPILE_TIME_LOG=/tmp/compiles.log cmake -S . -B build ...
#   bash scripts/compile_time.sh --top 15 /tmp/compiles.log
set -euo pipefail
if [[ ${1:-} == --top ]]; then
  (($# == 3)) || { echo "usage: compile_time.sh --top N LOG" >&2; exit 2; }
  n=$2 log=$3
  [[ -r $log ]] || { echo "compile_time.sh: cannot read $log" >&2; exit 2; }
  echo "cpu_s	wall_s	object"
  awk -F'\t' '{ printf "%.1f\t%.0f\t%s\n", $1 + $2, $3, $4 }' "$log" | sort -gr | head -n "$n"
  echo
  echo "cpu_s	objects	target"
  awk -F'\t' '{ t = $4; sub(/\.dir\/.*/, "", t); sub(/.*\//, "", t); cpu[t] += $1 + $2; n[t]++ }
    END { for (t in cpu) printf "%.1f\t%d\t%s\n", cpu[t], n[t], t }' "$log" | sort -gr
  exit 0
fi
log=${COMPILE_TIME_LOG:?compile_time.sh: set COMPILE_TIME_LOG to the log file}
object=unknown prev=
for arg in "$@"; do
  [[ $prev == -o ]] && object=$arg
  prev=$arg
done
exec /usr/bin/time -q -a -o "$log" -f "%U\t%S\t%e\t$object" "$@"
