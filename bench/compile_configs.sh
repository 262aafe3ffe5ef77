#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What one source costs to compile under each configuration CI builds
# (BENCHMARKS.md, "Build and CI time"): CPU seconds (user + system) of the
# compiler for each source, side by side, and the sum per configuration.
#   bash bench/compile_configs.sh BUILD SOURCE...
# BUILD is a configured release tree (its generated headers: BUILD/proto,
# BUILD/analyze/sql/include). No ccache: every compile is real.
# Configurations:
#   release      g++ -O3            the libraries and the binary
#   tests-O1     g++ -O1            the tests' own sources (tests/CMakeLists.txt)
#   tests-O3     g++ -O3            the same, as they were compiled before
#   gcc-asan     g++ -O1 ASan+UBSan the former sanitizer tree (-DPROCTAPE_SANITIZE=ON)
#   clang-asan   clang++ -O1 ASan+UBSan+fuzzer-no-link  the fuzz tree, now also
#                                   the sanitizer tree of CI
set -euo pipefail
(($# >= 2)) || { echo "usage: compile_configs.sh BUILD SOURCE..." >&2; exit 2; }
build=$(realpath "$1"); shift
root=$(cd "$(dirname "$0")/.." && pwd)
common=(-std=c++20 -DNDEBUG -DGTEST_HAS_PTHREAD=1 "-DPROCTAPE_SOURCE_DIR=\"$root\""
        '-DPROCTAPE_VERSION="0"' "-I$root" "-I$build/proto" "-I$build/analyze/sql/include"
        "-I$root/include")
declare -A flags=(
  [release]="g++ -O3"
  [tests-O1]="g++ -O1"
  [tests-O3]="g++ -O3"
  [gcc-asan]="g++ -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
  [clang-asan]="clang++ -O1 -gline-tables-only -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
)
order=(tests-O3 tests-O1 release gcc-asan clang-asan)
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
declare -A sum
printf '%-50s' source; printf '%12s' "${order[@]}"; echo
for src in "$@"; do
  printf '%-50s' "$src"
  for c in "${order[@]}"; do
    read -r -a cc <<<"${flags[$c]}"
    /usr/bin/time -f '%U %S' -o "$out/t" "${cc[@]}" "${common[@]}" -c "$root/$src" -o "$out/o.o"
    read -r u s <"$out/t"
    t=$(echo "$u + $s" | bc)
    sum[$c]=$(echo "${sum[$c]:-0} + $t" | bc)
    printf '%12.2f' "$t"
  done
  echo
done
printf '%-50s' "sum (CPU s)"; for c in "${order[@]}"; do printf '%12.2f' "${sum[$c]}"; done; echo
