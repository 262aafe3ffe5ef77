#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The churn stress (docs/testing.md), the full run: BENCHMARKS.md "Churn".
#
#   cmake --build build -j2 --target proctape churner churn_bench
#   bash bench/churn_bench.sh build [SECONDS]       # as root; default 60 s
#
# tests/churn/churn_bench.cc says what it runs, checks and prints. It exits 0
# when every property held, 1 otherwise, 77 when it cannot run here.
set -euo pipefail
build=${1:?usage: churn_bench.sh BUILD_DIR [SECONDS]}
seconds=${2:-60}
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -r), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
exec "$build/tests/churn_bench" --proctape "$build/cli/proctape" --churner "$build/tests/churner" \
  --seconds "$seconds"
