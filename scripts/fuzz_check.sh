#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The fuzz stage of CI (tests/fuzz/README.md): builds the libFuzzer
# targets in build-fuzz (clang, ASan, UBSan; only the targets and what they
# link), makes each target's seed corpus from the repository's data, and runs
# every target for a bounded time with the dictionary. A crash, a sanitizer
# report, a timeout (-timeout) or an out-of-memory (-rss_limit_mb) fails the
# stage; the line "fuzz_check: TARGET FAILED: crasher PATH" names the input
# libFuzzer saved (copy it to tests/fuzz/regressions/TARGET/).
#   bash scripts/fuzz_check.sh [SECONDS_PER_TARGET]   (default 10)
# Budget: the whole stage (build from scratch + 6 targets x 10 s) takes about
# 4 minutes on 2 cores (BENCHMARKS.md, "Fuzzing").
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-10}
dir=build-fuzz
jobs=$(nproc)
targets=(reader proc_parse replay views proc_root manifest)

# The tests are configured here too (not built): scripts/setup.sh's
# sanitizer stage builds them in this tree, on the libraries built here.
cmake -S . -B "$dir" -DPROCTAPE_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang -DPROCTAPE_BENCH=OFF \
      -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -gline-tables-only" >/dev/null
cmake --build "$dir" -j"$jobs" --target fuzzers

run="$dir/fuzz-run"
rm -rf "$run"
mkdir -p "$run/tmp"
# The targets' scratch directories (tests/fuzz/fuzz_support.h) go here: a
# target that libFuzzer ends without exit handlers (a crash, a timeout)
# cannot remove its own.
export TMPDIR="$PWD/$run/tmp"
"$dir/tests/fuzz/fuzz_seeds" . "$run/seeds"

failed=0
for t in "${targets[@]}"; do
  mkdir -p "$run/corpus/$t" "$run/artifacts/$t"
  log="$run/$t.log"
  # The seeds are read, new inputs go to corpus/TARGET (the seeds stay as
  # made); -jobs=1: one process, the machine is shared.
  if "$dir/tests/fuzz/fuzz_$t" "$run/corpus/$t" "$run/seeds/$t" \
       -dict=tests/fuzz/proctape.dict -max_total_time="$seconds" -timeout=10 \
       -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$run/artifacts/$t/" >"$log" 2>&1; then
    echo "fuzz_check: $t ok: $(grep -E '^#[0-9]+.*DONE' "$log" | tail -1)"
  else
    failed=1
    tail -40 "$log"
    crasher=$(grep -oE "(Test unit written to|written to) [^ ]+" "$log" | tail -1 | awk '{print $NF}')
    echo "fuzz_check: $t FAILED: crasher ${crasher:-"(none saved: see $log)"}"
  fi
done
exit "$failed"
