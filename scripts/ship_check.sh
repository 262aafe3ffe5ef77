#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What is shipped, checked beyond ctest's label ship (README "Install"):
#   bash scripts/ship_check.sh [BUILD_DIR]     (default: build, already built)
# 1. the Debian packages: `cpack -G DEB` in BUILD_DIR makes
#    proctape_<version>_amd64.deb (the command), libproctape0_...,
#    libproctape-dev_... and python3-proctape_<version>_all.deb; lintian
#    reports no error for any (its warnings and notes are printed);
# 2. only as root with CI=true or PROCTAPE_SHIP_INSTALL=1 (it changes the
#    machine): dpkg -i of all four, the installed proctape --version and
#    man -w proctape, examples/c built with the installed pkg-config file,
#    the Python tests against the installed package, dpkg --purge (dpkg -r
#    leaves the library's postrm known to dpkg), and the machine as it was
#    (no package known to dpkg, none of their files left);
# 3. the portable binary: build-portable (-DPROCTAPE_PORTABLE=ON, only its
#    one target), statically linked (no interpreter, no shared object, no
#    dynamic section), linked from nothing of glibc that loads shared
#    objects at run time (NSS, dlopen: the linker's warnings of the last
#    link, and no such symbol in the binary), and it runs: --version says
#    portable, a capture of itself verifies; then in an empty root
#    (tests/ship/empty_root_test.sh: the binary, /proc and a tmpfs alone);
# 4. the CI recipes (README "Capturing on CI", contrib/ci) end to end with
#    both artifacts, by a stub runner (tests/ship/ci_recipes_test.sh).
# Called by `bash scripts/setup.sh test`; prints how long each part took.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
jobs=$(nproc)
work=$(mktemp -d /tmp/proctape-ship-check-XXXXXX)
trap 'rm -rf "$work"' EXIT

say() { echo "ship_check: $*"; }
fail() { echo "ship_check: FAIL: $*" >&2; exit 1; }
started=$SECONDS
lap() { say "$1 ($((SECONDS - started)) s)"; started=$SECONDS; }

version=$("$build/cli/proctape" --version | awk '{print $2}')
[[ -n $version ]] || fail "$build/cli/proctape --version printed no version"

# ---- 1. the Debian packages -------------------------------------------------
# One per install component (packaging/CMakeLists.txt): the command's keeps
# the name proctape_<version>_amd64.deb.
packages=(proctape libproctape0 libproctape-dev python3-proctape)
deb_of() {  # deb_of PACKAGE: its file in BUILD_DIR
  case $1 in
    python3-proctape) echo "$build/${1}_${version}_all.deb" ;;
    *) echo "$build/${1}_${version}_amd64.deb" ;;
  esac
}
(cd "$build" && cpack -G DEB >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log" >&2; fail "cpack -G DEB"; }
debs=()
for package in "${packages[@]}"; do
  deb=$(deb_of "$package")
  [[ -f $deb ]] || fail "cpack made no $deb"
  [[ $(dpkg-deb -f "$deb" Package) == "$package" ]] || fail "$deb is not the package $package"
  debs+=("$deb")
  # lintian says E: for errors; warnings (W:) and notes (I:) are printed,
  # not failed on.
  lintian_out=$(lintian --display-info "$deb" 2>&1 | grep -v 'running with root privileges' || true)
  [[ -n $lintian_out ]] && printf '%s\n' "$lintian_out"
  if grep -q '^E: ' <<<"$lintian_out"; then fail "lintian reports errors for $deb"; fi
done
lap "${packages[*]}: lintian reports no error"

# ---- 2. dpkg -i / --purge, only where asked ---------------------------------------
# All four installed; the command, a C program built with the -dev package's
# pkg-config, and the Python tests against python3-proctape (no
# PROCTAPE_LIBRARY: the package finds the installed library itself); all
# removed, and the machine is as it was: no package known to dpkg, none of
# their files left.
if [[ $(id -u) == 0 && (${CI:-} == true || ${PROCTAPE_SHIP_INSTALL:-} == 1) ]]; then
  for package in "${packages[@]}"; do
    if dpkg -s "$package" >/dev/null 2>&1; then fail "$package is already installed here: not installing over it"; fi
  done
  [[ ! -e /usr/bin/proctape ]] || fail "/usr/bin/proctape exists: not installing over it"
  files=$work/files
  for deb in "${debs[@]}"; do
    dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print substr($6, 2)}' >>"$files"
  done
  while IFS= read -r file; do
    [[ ! -e $file && ! -L $file ]] || fail "$file exists: not installing over it"
  done <"$files"
  remove_all() { dpkg --purge "${packages[@]}" >"$work/dpkg-r.log" 2>&1; }
  trap 'remove_all || true; rm -rf "$work"' EXIT
  dpkg -i "${debs[@]}" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log" >&2; fail "dpkg -i ${packages[*]}"; }
  got=$(/usr/bin/proctape --version)
  [[ $got == "$("$build/cli/proctape" --version)" ]] || fail "installed --version: $got"
  page=$(man -w proctape) || fail "man -w proctape finds no page"
  [[ $page == /usr/share/man/man1/proctape.1.gz ]] || fail "man -w proctape: $page"
  # libproctape-dev: examples/c built outside the tree by pkg-config alone
  # (no PKG_CONFIG_PATH), linked to the installed libproctape.so.0.
  mkdir "$work/c"
  cp examples/c/resolve.c examples/c/Makefile "$work/c/"
  env -u PKG_CONFIG_PATH make -s -C "$work/c" resolve CFLAGS="-O2 -Wall -Wextra -Werror" >"$work/c.log" 2>&1 ||
    { cat "$work/c.log" >&2; fail "examples/c against libproctape-dev"; }
  linked=$(env -u LD_LIBRARY_PATH ldd "$work/c/resolve" | awk '$1 == "libproctape.so.0" {print $3}')
  [[ $(realpath "$linked") == "$(realpath /usr/lib/$(gcc -dumpmachine)/libproctape.so.0)" ]] ||
    fail "examples/c links libproctape.so.0 from '$linked', not the package's"
  out=$(env -u LD_LIBRARY_PATH "$work/c/resolve") || fail "examples/c: exit $?: $out"
  [[ $out =~ ^RESOLVED\ host\ pid\ [0-9]+,\ start\ tick\ [0-9]+\ \(pinned:\ ALIVE,\ then\ DEAD\)$ ]] ||
    fail "examples/c printed: $out"
  # python3-proctape: Debian's python3 imports it from dist-packages; the
  # tests (the corpus replayed, live resolutions) run from a directory that
  # holds only them.
  mkdir "$work/py"
  cp python/tests/test_proctape.py "$work/py/"
  where=$(cd "$work/py" && env -u PROCTAPE_LIBRARY -u PYTHONPATH /usr/bin/python3 -c \
    'import proctape; print(proctape.__file__, proctape._lib._name)') || fail "import proctape"
  [[ $where == /usr/lib/python3/dist-packages/proctape/__init__.py\ /usr/lib/$(gcc -dumpmachine)/libproctape.so.0* ]] ||
    fail "python3 imports proctape and its library from: $where"
  (cd "$work/py" && env -u PROCTAPE_LIBRARY -u PYTHONPATH PROCTAPE_SOURCE_DIR="$OLDPWD" \
    PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -m pytest -q -p no:cacheprovider test_proctape.py \
    >"$work/pytest.log" 2>&1) || { cat "$work/pytest.log" >&2; fail "the Python tests against python3-proctape"; }
  tests=$(tail -n1 "$work/pytest.log")
  remove_all || { cat "$work/dpkg-r.log" >&2; fail "dpkg --purge ${packages[*]}"; }
  trap 'rm -rf "$work"' EXIT
  for package in "${packages[@]}"; do
    if dpkg -s "$package" >/dev/null 2>&1; then fail "dpkg still knows $package after dpkg --purge"; fi
  done
  while IFS= read -r file; do
    [[ ! -e $file && ! -L $file ]] || fail "$file is left after dpkg --purge"
  done <"$files"
  lap "dpkg -i of the four, proctape --version, man -w, examples/c by pkg-config, pytest ($tests), dpkg --purge: the machine is as it was"
else
  say "dpkg -i / --purge skipped (run as root with CI=true or PROCTAPE_SHIP_INSTALL=1)"
fi

# ---- 3. the portable binary -------------------------------------------------
# Only the binary's target is built (no tests, benchmarks or man pages: the
# portable build has none).
cmake -S . -B build-portable -DCMAKE_BUILD_TYPE=Release -DPROCTAPE_PORTABLE=ON >/dev/null
cmake --build build-portable -j"$jobs" --target proctape_portable >"$work/portable.log" 2>&1 ||
  { tail -20 "$work/portable.log" >&2; fail "the portable build"; }
portable=build-portable/proctape-${version}-linux-x86_64
[[ -x $portable ]] || fail "no $portable"
lap "$portable built ($(stat -c %s "$portable") bytes)"
# Fully static: `file` says so, no interpreter (PT_INTERP), no dynamic
# section, so no C library is needed where it runs.
what=$(file -b "$portable")
[[ $what == *"statically linked"* ]] || fail "$portable is not statically linked: $what"
headers=$(readelf -lW "$portable")
if grep -q 'INTERP\|DYNAMIC' <<<"$headers"; then
  fail "$portable has a program interpreter or a dynamic section: $(grep 'INTERP\|DYNAMIC' <<<"$headers" | xargs)"
fi
# Nothing of glibc that loads shared objects at run time: the portable link
# fails on the linker's warning of one (-Wl,--fatal-warnings: "Using
# 'getpwnam' in statically linked applications requires at runtime the
# shared libraries ..."), and SQLite's dlopen is replaced by a refusal
# (packaging/static_no_dlopen.cc). Checked again on the unstripped binary:
# no NSS lookup function, and the refusal linked in (glibc's own dlopen is in
# every static binary, unreferenced by proctape).
unstripped=build-portable/cli/proctape
symbols=$(nm "$unstripped")
nss=$(awk '$2 ~ /^[TtWw]$/ {print $3}' <<<"$symbols" |
  grep -xE 'getpw(nam|uid|ent)(_r)?|getgr(nam|gid|ent)(_r)?|getspnam(_r)?|getaddrinfo|gethostbyname[0-9]?(_r)?|getservbyname(_r)?' || true)
[[ -z $nss ]] || fail "$unstripped holds NSS lookups, which load shared objects at run time: $(xargs <<<"$nss")"
grep -q ' T __wrap_dlopen$' <<<"$symbols" || fail "$unstripped: SQLite's dlopen is not the refusal's"
# It runs: says it is the portable build, and a capture of its own process
# tree (this script's) is a file that verifies.
[[ $("$portable" --version) == *", portable) Apache-2.0" ]] || fail "$portable --version: $("$portable" --version)"
"$portable" capture --root $$ -o "$work/self.ptape" >/dev/null || fail "$portable capture --root $$"
"$portable" verify "$work/self.ptape" >/dev/null || fail "$portable verify of its own capture"
lap "$portable: statically linked, no NSS, no dlopen, capture + verify of itself"
# The empty root: 77 (skipped) where bwrap cannot make namespaces.
status=0
bash tests/ship/empty_root_test.sh "$portable" . >"$work/empty_root.log" 2>&1 || status=$?
((status == 0 || status == 77)) || { cat "$work/empty_root.log" >&2; fail "the portable binary in an empty root"; }
cat "$work/empty_root.log"
lap "$portable in an empty root (tests/ship/empty_root_test.sh)"

# ---- 4. the CI recipes end to end ---------------------------------------------
# README's and contrib/ci's recipes, each run by a stub GitHub or GitLab runner
# with the .deb of 1 and the portable binary of 3 (tests/ship/ci_recipes_test.sh:
# installed in a private mount namespace, the machine untouched; skipped, 77,
# without root or overlayfs).
for recipe in readme_github readme_gitlab github_steps github_action gitlab_ci; do
  for artifact in deb portable; do
    status=0
    bash tests/ship/ci_recipes_test.sh "$recipe-$artifact" "$build/cli/proctape" "$PWD" "$build" \
      >"$work/recipe.log" 2>&1 || status=$?
    ((status == 0 || status == 77)) || { cat "$work/recipe.log" >&2; fail "the CI recipe $recipe with the $artifact"; }
    ((status == 0)) || say "$(tail -n1 "$work/recipe.log")"
  done
done
lap "the CI recipes (README, contrib/ci) end to end with the .deb and the portable binary"
