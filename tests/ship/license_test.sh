#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# proctape is licensed under the Apache License 2.0 (LICENSE): LICENSE is
# that text, every tracked source file says so in an SPDX line among its
# first two lines (the second only after a `#!` or `#compdef` line), and the
# Debian package's copyright file names the same license.
#   bash tests/ship/license_test.sh SOURCE_DIR
# Source files: C, C++, protobuf, shell, Python, CMake, SQL, YAML, Makefiles
# and their .in templates; data (tests/data, tests/golden, corpus, fuzz
# regressions) and prose are not source. Outside a git checkout there is no
# list of tracked files: the test is skipped (exit 77) and says so.
set -euo pipefail
src=${1:?usage: license_test.sh SOURCE_DIR}
fail() { echo "license_test: FAIL: $*" >&2; exit 1; }

# is_source PATH: whether PATH (relative to the checkout) is a source file.
is_source() {
  case $1 in
    tests/data/*|tests/golden/*|corpus/*|tests/fuzz/regressions/*) return 1 ;;
    packaging/debian/changelog.in) return 1 ;;  # Debian's changelog format has no comments
    *.cc|*.h|*.c|*.proto|*.sh|*.py|*.cmake|*.yml|*.sql|*.in) return 0 ;;
    */CMakeLists.txt|CMakeLists.txt|*/Makefile|.ci/run) return 0 ;;
  esac
  return 1
}
# has_spdx FILE: the SPDX line is line 1, or line 2 after a `#!`/`#compdef`.
has_spdx() {
  local first second
  { IFS= read -r first || true; IFS= read -r second || true; } <"$1"
  [[ $first == *"SPDX-License-Identifier: Apache-2.0" ]] && return 0
  [[ $first == "#!"* || $first == "#compdef"* ]] &&
    [[ $second == *"SPDX-License-Identifier: Apache-2.0" ]]
}

# The check can fail: a file without the line, or with it further down, is
# refused.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '// a header\n// SPDX-License-Identifier: Apache-2.0\n' >"$tmp/late.h"
printf '#include <x>\n' >"$tmp/none.cc"
printf '#!/bin/sh\n# SPDX-License-Identifier: Apache-2.0\n' >"$tmp/ok.sh"
has_spdx "$tmp/late.h" && fail "a file whose SPDX line is not first was accepted"
has_spdx "$tmp/none.cc" && fail "a file without an SPDX line was accepted"
has_spdx "$tmp/ok.sh" || fail "a script with the line after its #! was refused"

grep -q 'Apache License' "$src/LICENSE" && grep -q 'Version 2.0, January 2004' "$src/LICENSE" ||
  fail "LICENSE is not the Apache License 2.0"
grep -q '^License: Apache-2.0$' "$src/packaging/debian/copyright" ||
  fail "packaging/debian/copyright does not name Apache-2.0"

if ! files=$(git -C "$src" ls-files 2>/dev/null) || [[ -z $files ]]; then
  echo "license_test: SKIP: $src is not a git checkout, no list of tracked files"
  exit 77
fi
checked=0 missing=()
while IFS= read -r f; do
  is_source "$f" || continue
  checked=$((checked + 1))
  has_spdx "$src/$f" || missing+=("$f")
done <<<"$files"
((checked > 100)) || fail "only $checked source files found in $src: the file list is wrong"
if ((${#missing[@]})); then
  printf 'license_test: no SPDX line atop %s\n' "${missing[@]}" >&2
  fail "${#missing[@]} of $checked source files have no SPDX-License-Identifier: Apache-2.0 line"
fi
echo "license_test: $checked source files, each with its SPDX line; LICENSE and the package's copyright say Apache-2.0"
