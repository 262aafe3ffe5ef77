#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The installed library (docs/library.md, "Building against it"), checked from
# the outside as a user meets it:
#   1. `cmake --install BUILD --prefix TMP` (a temporary prefix);
#   2. every installed header compiles alone against TMP/include, and none
#      includes a header that is not installed;
#   3. examples/launcher built against TMP twice: find_package(proctape) and
#      pkg-config --static;
#   4. each run: RESOLVED with its identity (exit 0), unshare and bwrap;
#   5. a forced failure (--wrong-token): TOKEN_MISMATCH (exit 1) leaves a
#      .ptape, which the installed proctape replays: REPRODUCED;
#   6. the C ABI: include/proctape.h alone as C99, examples/c built with
#      pkg-config proctape-c and run (resolved, pinned, DEAD once ended);
#   7. Rust: examples/rust built by Debian's rustc against the install, run;
#   8. Python: the installed package loads the installed library by itself;
#      pip installs ./python offline (where pip is).
# Everything is made in one temporary directory, removed at the end. The
# launcher ends the sandbox it starts, by its pid.
#
#   bash scripts/library_check.sh [BUILD]      (BUILD: default build; as root)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
started=$(date +%s)
log() { printf 'library_check: %s\n' "$*"; }
fail() { printf 'library_check: FAILED: %s\n' "$*" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/proctape-library-XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
log "installed into a temporary prefix"
# lib/ or lib/<multiarch>/ (GNUInstallDirs' CMAKE_INSTALL_LIBDIR)
[[ -n $(find "$prefix" -path '*/lib*/cmake/proctape/proctapeConfig.cmake') ]] ||
  fail "no lib/cmake/proctape/proctapeConfig.cmake installed"
pc=$(find "$prefix" -path '*/lib*/pkgconfig/proctape.pc')
[[ -n $pc ]] || fail "no lib/pkgconfig/proctape.pc installed"

for header in "$prefix"/include/proctape/*.h; do
  name=${header##*/}
  if grep -n '#include "' "$header" | grep -v '"proctape/' >&2; then
    fail "$name includes a header that is not installed"
  fi
  # Compiled in the temporary directory: nothing of the repository is on
  # the include path, only the prefix.
  printf '#include <proctape/%s>\nint main() { return 0; }\n' "$name" >"$tmp/alone.cc"
  (cd "$tmp" && c++ -std=c++20 -Wall -Wextra -Werror -fsyntax-only -I"$prefix/include" alone.cc) ||
    fail "$name does not compile alone against the install"
done
log "every installed header compiles alone"

launcher=$PWD/examples/launcher
launcher_cmake=()
command -v ccache >/dev/null && launcher_cmake+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$launcher" -B "$tmp/with-cmake" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" "${launcher_cmake[@]}" >/dev/null
cmake --build "$tmp/with-cmake" >/dev/null
log "examples/launcher built with find_package(proctape)"
mkdir "$tmp/with-pkg-config"
cp "$launcher/launcher.cc" "$launcher/Makefile" "$tmp/with-pkg-config/"
PKG_CONFIG_PATH=$(dirname "$pc") \
  make -s -C "$tmp/with-pkg-config" launcher CXXFLAGS="-O2 -Wall -Wextra -Werror" >/dev/null
log "examples/launcher built with pkg-config --static"

expect_resolved() {  # BINARY SANDBOX
  local out rc=0
  out=$("$1" --sandbox "$2" --record "$tmp/unused.ptape") || rc=$?
  [[ $rc == 0 ]] || fail "$1 --sandbox $2: exit $rc: $out"
  [[ $out =~ ^RESOLVED\ host\ pid\ [0-9]+,\ start\ tick\ [0-9]+\ \(ALIVE\)$ ]] ||
    fail "$1 --sandbox $2 printed: $out"
  [[ ! -e $tmp/unused.ptape ]] || fail "$1 --sandbox $2 left a recording of a RESOLVED verdict"
  log "$2: $out"
}
expect_resolved "$tmp/with-cmake/launcher" unshare
if command -v bwrap >/dev/null; then
  expect_resolved "$tmp/with-pkg-config/launcher" bwrap
else
  expect_resolved "$tmp/with-pkg-config/launcher" unshare
fi

rc=0
out=$("$tmp/with-cmake/launcher" --wrong-token --record "$tmp/failure.ptape") || rc=$?
[[ $rc == 1 && $out == TOKEN_MISMATCH:* && -f $tmp/failure.ptape ]] ||
  fail "a wrong token: exit $rc, printed: $out"
log "a wrong token: ${out%%$'\n'*}"
# The installed proctape (P1 installs bin/); the build's until it does.
proctape=$prefix/bin/proctape
[[ -x $proctape ]] || proctape=$build/cli/proctape
replayed=$("$proctape" replay "$tmp/failure.ptape") || fail "replay: exit $?: $replayed"
[[ $replayed == "resolution 0: REPRODUCED TOKEN_MISMATCH"* ]] || fail "replay printed: $replayed"
log "${proctape#"$prefix"/} replay: ${replayed%% (*}"

# The C ABI (docs/library.md, "The C ABI"): libproctape.so.0, include/proctape.h
# (C99, alone against the prefix), proctape-c.pc; examples/c built with it and
# run: RESOLVED, pinned ALIVE, then DEAD once its sandbox ended.
so=$(find "$prefix" -name libproctape.so.0)
[[ -n $so && -f $prefix/include/proctape.h ]] || fail "no libproctape.so.0 or include/proctape.h installed"
[[ -f $(dirname "$pc")/proctape-c.pc ]] || fail "no lib/pkgconfig/proctape-c.pc installed"
printf '#include <proctape.h>\nint main(void) { return PROCTAPE_OK; }\n' >"$tmp/alone.c"
(cd "$tmp" && cc -std=c99 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$prefix/include" alone.c) ||
  fail "proctape.h does not compile alone as C99 against the install"
mkdir "$tmp/c"
cp examples/c/resolve.c examples/c/Makefile "$tmp/c/"
PKG_CONFIG_PATH=$(dirname "$pc") make -s -C "$tmp/c" resolve CFLAGS="-O2 -Wall -Wextra -Werror" >/dev/null
out=$(LD_LIBRARY_PATH=$(dirname "$so") "$tmp/c/resolve") || fail "examples/c: exit $?: $out"
[[ $out =~ ^RESOLVED\ host\ pid\ [0-9]+,\ start\ tick\ [0-9]+\ \(pinned:\ ALIVE,\ then\ DEAD\)$ ]] ||
  fail "examples/c printed: $out"
log "examples/c with pkg-config proctape-c: $out"

# Rust (docs/library.md, "Rust"): examples/rust, extern "C" over the header
# with no crates, built by Debian's rustc (1.63) against the installed
# library; its counts of a corpus file are verify's, a truncated copy is
# TRUNCATED with exit 1.
if [[ -x /usr/bin/rustc ]]; then
  mkdir "$tmp/rust"
  /usr/bin/rustc -O --edition 2021 -o "$tmp/rust/summary" examples/rust/summary.rs \
    -L "$(dirname "$so")" -l proctape 2>"$tmp/rust/rustc.log" ||
    fail "examples/rust: rustc: $(head -5 "$tmp/rust/rustc.log")"
  entries=(corpus/*.ptape)
  entry=${entries[0]}
  head -c 2000 "$entry" >"$tmp/rust/cut.ptape"
  rc=0
  out=$(LD_LIBRARY_PATH=$(dirname "$so") "$tmp/rust/summary" "$entry" "$tmp/rust/cut.ptape" 2>&1) || rc=$?
  [[ $rc == 1 ]] || fail "examples/rust: exit $rc (1 expected: one file truncated): $out"
  counts=$("$build/cli/proctape" verify "$entry" | sed -E 's/.*intact: ([0-9]+) chunks?, ([0-9]+) frames?, ([0-9]+) process records?.*/\1 chunks, \2 frames, \3 process records/')
  grep -qF "$entry: $counts" <<<"$out" || fail "examples/rust printed (verify says $counts): $out"
  grep -q "cut.ptape: TRUNCATED: " <<<"$out" || fail "examples/rust on a truncated file printed: $out"
  log "examples/rust with Debian's rustc: $(grep -F "$entry" <<<"$out")"
else
  log "rust: no /usr/bin/rustc (Debian's rustc): examples/rust not checked"
fi

# Python (docs/library.md, "Python"): the installed package finds the library
# installed beside it, with no PROCTAPE_LIBRARY; pip installs ./python offline.
python=/usr/bin/python3  # Debian's: scripts/setup.sh installs its packages
site=$prefix/lib/python3/dist-packages
found=$(env -u PROCTAPE_LIBRARY PYTHONPATH="$site" PYTHONDONTWRITEBYTECODE=1 "$python" -c \
  'import proctape; print(proctape._lib._name, proctape.version())') || fail "import proctape from the prefix"
[[ $found == "$(realpath "$so") "* ]] || fail "the installed package loaded: $found"
log "python: the installed package loads ${found#"$prefix"/}"
if "$python" -m pip --version >/dev/null 2>&1; then
  cp -r python "$tmp/python-src"
  "$python" -m pip install -q --no-build-isolation --no-index --target "$tmp/pip" "$tmp/python-src" \
    >/dev/null 2>&1 || fail "pip install --no-build-isolation ./python"
  got=$(PROCTAPE_LIBRARY=$so PYTHONPATH="$tmp/pip" "$python" -c 'import proctape; print(proctape.version())')
  log "python: pip install --no-build-isolation ./python: proctape $got"
else
  log "python: no pip here (python3-pip): pip install not checked"
fi
log "passed in $(($(date +%s) - started)) s"
