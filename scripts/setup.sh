#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what proctape needs from Debian's packages, builds it, then either
# runs the main job on this host (`run`) or the whole test suite (`test`).
# Idempotent: packages already present are not fetched again, builds are
# incremental. Run as root on Debian 12.
#   bash scripts/setup.sh run    build, then resolve a real sandboxed sleep
#   bash scripts/setup.sh test   build, run ctest and the corpus check, the fuzzers for
#                                a bounded time (scripts/fuzz_check.sh), then ctest
#                                again under ASan+UBSan
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
case "$mode" in
  run|test) ;;
  *) echo "usage: bash scripts/setup.sh run|test" >&2; exit 2 ;;
esac

packages=(cmake make g++ pkg-config libprotobuf-dev protobuf-compiler libzstd-dev
          libcli11-dev libsqlite3-dev nettle-dev libgtest-dev libgmock-dev bubblewrap util-linux procps valgrind
          help2man         # man pages from each command's --help, at build time
          bash-completion  # the ship tests source the bash completion with it
          zsh              # the ship tests run the zsh completion
          dpkg-dev         # cpack's DEB generator: dpkg-shlibdeps for Depends
          lintian          # Debian's package checker (scripts/ship_check.sh)
          file             # cpack DEB's dpkg-shlibdeps step, ship_check.sh
          man-db           # man -l / man -w in the ship tests
          groff-base)      # renders the man pages (man -l, groff -ww)
packages+=(libseccomp-dev   # issue 13: the CLI's seccomp jail (cli/jail.h)
          strace)          # issue 13: the jail test traces a replay for /proc access
packages+=(ccache)  # the portable build (ship_check.sh) reuses the plain build's objects: ~2.5 min of CI
packages+=(clang               # issue 13: the fuzz targets (tests/fuzz) are built with clang
          libclang-rt-14-dev) # issue 13: libFuzzer and clang's ASan/UBSan runtimes
packages+=(python3-yaml)  # issue 12 P3: contrib/ci's YAML parsed by tests/ship/ci_script_test.sh
packages+=(python3-pytest       # python/tests: the Python package over libproctape.so.0 (ctest python/pytest)
          python3-setuptools)  # python/pyproject.toml: pip install --no-build-isolation ./python, offline
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

jobs=$(nproc)
# Every build below (and in the scripts it calls) goes through Debian's
# ccache, with paths taken relative to this checkout, so that build trees
# differing only in their options share the objects they have in common.
export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER-ccache}
export CCACHE_BASEDIR=${CCACHE_BASEDIR-$PWD}
build() {  # build DIR [cmake options...]
  local dir=$1; shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
  cmake --build "$dir" -j"$jobs"
}

build build
if [[ $mode == run ]]; then
  exec bash scripts/demo.sh build/cli/proctape
fi

ctest --test-dir build --output-on-failure -j"$jobs"
# The regression corpus, as a CI system would run it (JUnit for its report;
# --force: the report of an earlier run is replaced).
build/cli/proctape corpus check corpus --junit build/corpus-junit.xml --force
bash scripts/ship_check.sh build  # issue 12: the .deb + lintian (dpkg -i/-r on CI), the portable binary
bash scripts/library_check.sh build  # issue 12 P2: the installed library, examples/launcher built against it
# Issue 13: every fuzz target for a bounded time (build + run about 4 min).
bash scripts/fuzz_check.sh
echo "setup: again under AddressSanitizer + UndefinedBehaviorSanitizer"
# -O1, not Release's -O3: ASan's own advice for speed, and half the compile
# time (replay_command.cc: 22 s against 44 s) -- this build was most of CI's time.
build build-asan -DPROCTAPE_SANITIZE=ON -DPROCTAPE_BENCH=OFF "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"
