#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what proctape needs from Debian's packages, builds it, then either
# runs the main job on this host (`run`) or the whole test suite (`test`).
# Idempotent: packages already present are not fetched again, builds are
# incremental. Run as root on Debian 12.
#   bash scripts/setup.sh run    build the proctape binary, then resolve a real
#                                sandboxed sleep (scripts/demo.sh)
#   bash scripts/setup.sh test   build everything, run ctest and the corpus check, the
#                                shipping and library checks, the fuzzers for a bounded
#                                time (scripts/fuzz_check.sh), then the unit, live and
#                                fuzz-regression tests and the corpus checks again under
#                                ASan+UBSan; each stage's seconds are logged
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
case "$mode" in
  run|test) ;;
  *) echo "usage: bash scripts/setup.sh run|test" >&2; exit 2 ;;
esac

# What `run` needs: the build of the proctape binary, and the demo.
packages=(cmake make g++ pkg-config libprotobuf-dev protobuf-compiler libzstd-dev
          libcli11-dev libsqlite3-dev nettle-dev util-linux procps
          libseccomp-dev   # the CLI's seccomp jail (sandbox/sandbox.h)
          help2man         # configure looks for it: man pages from each command's --help
          ccache)          # every build below goes through it (a second run is incremental)
# What `test` needs besides: the tests, the shipping checks, the fuzzers.
if [[ $mode == test ]]; then
  packages+=(libgtest-dev libgmock-dev bubblewrap valgrind
            bash-completion  # the ship tests source the bash completion with it
            zsh              # the ship tests run the zsh completion
            dpkg-dev         # cpack's DEB generator: dpkg-shlibdeps for Depends
            lintian          # Debian's package checker (scripts/ship_check.sh)
            file             # cpack DEB's dpkg-shlibdeps step, ship_check.sh
            man-db           # man -l / man -w in the ship tests
            groff-base       # renders the man pages (man -l, groff -ww)
            strace           # the jail test traces a replay for /proc access
            clang               # the fuzz targets (tests/fuzz) are built with clang
            libclang-rt-14-dev  # libFuzzer and clang's ASan/UBSan runtimes
            clang-format        # the layout of every source (.clang-format, tests/ship/format_test.sh)
            python3-yaml     # contrib/ci's YAML parsed by tests/ship/ci_script_test.sh
            python3-pytest   # python/tests: the Python package over libproctape.so.0 (ctest python/pytest)
            postgresql-15    # a real server for docs/sql.md's PostgreSQL recipe (ctest postgres/recipe)
            python3-setuptools  # python/pyproject.toml: pip install --no-build-isolation ./python, offline
            rustc)           # examples/rust built against the installed C library (scripts/library_check.sh)
fi
# ---- the static aarch64 binary (scripts/cross_check.sh, `test` only) ----
# Debian's arm64 libraries beside the host's (Multi-Arch: same), so the
# architecture is added before the index is fetched below.
if [[ $mode == test ]]; then
  grep -qx arm64 <<<"$(dpkg --print-foreign-architectures)" || dpkg --add-architecture arm64
  packages+=(crossbuild-essential-arm64  # g++-aarch64-linux-gnu: the cross compiler
            qemu-user-static            # qemu-aarch64-static runs the aarch64 binary here
            libprotobuf-dev:arm64 libzstd-dev:arm64 libsqlite3-dev:arm64  # the aarch64
            libseccomp-dev:arm64 nettle-dev:arm64                         # static archives
            time)                       # /usr/bin/time: the cross build's CPU seconds
fi
# ---- end of the aarch64 block ----
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
configure() {  # configure DIR [cmake options...]
  local dir=$1; shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
}
compile() {  # compile DIR [TARGET...]   (no target: all of them)
  local dir=$1; shift
  cmake --build "$dir" -j"$jobs" ${1:+--target "$@"}
}
# stage NAME COMMAND [ARG...]: runs one stage and logs its seconds; on exit
# (a failure too) one line lists every stage's (BENCHMARKS.md, "Build and
# CI time").
stages=() current=
stage() {
  local name=$1 start=$SECONDS; shift
  current="$name $start"
  echo "setup: stage $name"
  "$@"
  current=
  stages+=("$name $((SECONDS - start)) s")
  echo "setup: stage $name: $((SECONDS - start)) s"
}
summary() {
  [[ -n $current ]] && stages+=("${current% *} FAILED after $((SECONDS - ${current##* })) s")
  ((${#stages[@]} == 0)) || echo "setup: stages: $(printf '%s, ' "${stages[@]}" | sed 's/, $//')"
}
trap summary EXIT

if [[ $mode == run ]]; then
  # The binary alone: no tests, benchmarks or man pages (152 of the some
  # 400 objects of `test`'s build).
  configure build -DPROCTAPE_TESTS=OFF -DPROCTAPE_BENCH=OFF
  stage build compile build proctape
  exec bash scripts/demo.sh build/cli/proctape
fi

configure build -DPROCTAPE_TESTS=ON -DPROCTAPE_BENCH=ON
stage build compile build
stage ctest ctest --test-dir build --output-on-failure -j"$jobs"
# The regression corpus, as a CI system would run it (JUnit for its report;
# --force: the report of an earlier run is replaced).
stage corpus build/cli/proctape corpus check corpus --junit build/corpus-junit.xml --force
stage ship bash scripts/ship_check.sh build  # the .deb + lintian (dpkg -i/-r on CI), the portable binary
stage aarch64 bash scripts/cross_check.sh  # the aarch64 static binary under qemu-user, the release artifacts
stage library bash scripts/library_check.sh build  # the installed library, examples/launcher built against it
stage fuzz bash scripts/fuzz_check.sh  # every fuzz target for a bounded time
# Again under AddressSanitizer + UndefinedBehaviorSanitizer, in the fuzz
# stage's tree (build-fuzz, configured by scripts/fuzz_check.sh: clang, -O1,
# the sanitizers), whose libraries the fuzzers and these tests share: they
# are compiled once for both. Only what gives the sanitizers code to watch
# that no other test reaches: the binary, the unit tests, the live tests
# (the real CLI on real processes: the release build's, run against the
# sanitized binary), the fuzz regressions, the corpus checks, the C library
# and its tests and example (the Python tests are not registered there: a
# sanitized library does not load into an unsanitized python3). Left out,
# each for a reason:
#   explore (label explore): explore/corpus and explore/mutants run the
#     resolver thousands of times over the corpus -- the same code the unit
#     tests and fuzz regressions run, slower by ASan's factor; mutant_hunt
#     (six more compiles of the resolver) holds code that never ships;
#   hostile: hostile/bounds is not run under the sanitizers at all
#     (tests/hostile/CMakeLists.txt: no address-space limit under ASan);
#     hostile_tests checks what the read commands print (no piece of the
#     token), as the release run does; the shapes reach the reader under
#     ASan as its fuzz regressions (tests/data/hostile) and fuzz seeds;
#   ship, bench: packaging, shell scripts and kernel limits, no code of ours
#     that the release build's run does not check.
# The live tests check the binary they run, not their own code: the release
# build's live_tests run again against the sanitized proctape
# (PROCTAPE_TEST_BINARY, tests/live/build_paths.h), so that the 90 sources
# of the live tests are not compiled a second time under the sanitizers
# (what they run in-process, the library on a real sandbox, is then not
# sanitized: the C library's own tests are, below).
asan() {
  echo "setup: again under AddressSanitizer + UndefinedBehaviorSanitizer (build-fuzz)"
  compile build-fuzz proctape unit_tests fuzz_regressions \
    proctape_c capi_pin_test capi_values_test proctape_c_example
  export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
  ctest --test-dir build-fuzz --output-on-failure -j"$jobs" -LE 'live|explore|hostile|ship|bench|churn' \
    -E '_NOT_BUILT$'  # gtest_discover_tests' stand-in for a test binary not built here
  PROCTAPE_TEST_BINARY=$PWD/build-fuzz/cli/proctape PROCTAPE_TEST_BINARY_SANITIZED=1 \
    ctest --test-dir build --output-on-failure -j"$jobs" -L live
}
stage asan asan
