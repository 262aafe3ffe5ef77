#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `proctape minimize` on every corpus entry (BENCHMARKS.md, "Minimize"): for
# each file and each of its checks, the reduction (processes, calls =
# observations of the tape, bytes) and the runs it took, as a markdown table for
# BENCHMARKS.md, with the length of `explain` of the minimized file beside the
# source's. Checks whose verdict the frame does not explain are listed as
# refused.
# Usage: bench/minimize_bench.sh BUILD_DIR
set -euo pipefail
bench_name=minimize_bench
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"
[[ $# -ge 1 ]] || usage_error "usage: bench/minimize_bench.sh BUILD_DIR"
build=$(absolute "$1")
src=$(cd "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
proctape=$build/cli/proctape
need_built "$proctape" "cmake --build $1 --target proctape"
start_work minimize
trap 'rm -rf "$work"' EXIT

echo "| entry | check | verdict kept | processes | calls | bytes | runs | explain lines | replay |"
echo "|---|---:|---|---|---|---|---:|---|---|"
for f in "$src"/corpus/*.ptape; do
  base=$(basename "$f")
  entry=$(awk -v f="$base" '$1 == "entry" {e = $2} $1 == "file" && $2 == f {print e}' "$src/corpus/MANIFEST")
  checks=$("$proctape" show "$f" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin).get("resolutions", [])))')
  for ((c = 0; c < checks; c++)); do
    out=$work/min.ptape
    if "$proctape" minimize "$f" -o "$out" --force --check "$c" --json >"$work/json" 2>"$work/err"; then
      full=$("$proctape" explain "$f" | wc -l)
      small=$("$proctape" explain "$out" | wc -l)
      replayed=$("$proctape" replay "$out" | grep -o -m1 'REPRODUCED\|VERDICT CHANGED\|DIVERGED')
      python3 - "$work/json" "$entry" "$c" "$full" "$small" "$replayed" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"| {sys.argv[2]} | {sys.argv[3]} | {d['verdict']} | {d['processes_before']} -> {d['processes_after']} "
      f"| {d['calls_before']} -> {d['calls_after']} | {d['bytes_before']:,} -> {d['bytes_after']:,} "
      f"| {d['runs']} | {sys.argv[4]} -> {sys.argv[5]} | {sys.argv[6]} |")
PY
    else
      status=$?
      why=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["error"])' "$work/err" |
            sed 's/.*check [0-9]*: the check re-run on the host model of its frame gives/the frame gives/; s/: the verdict came.*//')
      echo "| $entry | $c | refused (exit $status): $why | | | | | | |"
    fi
  done
done
