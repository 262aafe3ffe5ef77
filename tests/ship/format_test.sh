#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every tracked C and C++ source is laid out as .clang-format says (Debian's
# clang-format): `clang-format --dry-run --Werror` on each, the first
# differences of a file that is not named with file:line. Fix with
#   git ls-files '*.cc' '*.h' '*.c' | xargs clang-format -i
#   bash tests/ship/format_test.sh SOURCE_DIR
# Skipped (exit 77, said) outside a git checkout or without clang-format.
set -euo pipefail
src=${1:?usage: format_test.sh SOURCE_DIR}
cd "$src"
command -v clang-format >/dev/null || { echo "format_test: no clang-format (Debian: clang-format): skipped"; exit 77; }
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "format_test: not a git checkout: skipped"; exit 77; }
[[ -f .clang-format ]] || { echo "format_test: FAIL: no .clang-format" >&2; exit 1; }

# The check can fail: a badly laid out file is refused.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp .clang-format "$tmp/"
printf 'int  f( int x ){return x;}\n' >"$tmp/bad.cc"
if clang-format --dry-run --Werror "$tmp/bad.cc" >/dev/null 2>&1; then
  echo "format_test: FAIL: clang-format accepted a badly laid out file" >&2; exit 1
fi

mapfile -t files < <(git ls-files '*.cc' '*.h' '*.c')
((${#files[@]} > 100)) || { echo "format_test: FAIL: only ${#files[@]} sources listed" >&2; exit 1; }
bad=0
for f in "${files[@]}"; do
  if ! clang-format --dry-run --Werror "$f" >"$tmp/out" 2>&1; then
    bad=$((bad + 1))
    head -6 "$tmp/out" >&2
  fi
done
((bad == 0)) || { echo "format_test: FAIL: $bad of ${#files[@]} sources not as .clang-format says" >&2; exit 1; }
echo "format_test: ${#files[@]} sources as .clang-format says"
