#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The aarch64 binary (README "Install"), cross-built and run under qemu-user:
#   bash scripts/cross_check.sh    (after scripts/ship_check.sh, which builds
#                                    build-portable, the x86_64 binary)
# 1. build-arm64: cmake/aarch64-linux-gnu.cmake, -DPROCTAPE_PORTABLE=ON, only
#    the proctape_portable target; prints the CPU seconds and wall time it took;
# 2. under qemu-aarch64-static: --version (portable), verify of the corpus,
#    corpus check, and replay --json of each corpus file byte-identical to
#    the x86_64 static binary's (build-portable, made by ship_check.sh);
#    then tests/ship/empty_root_test.sh with qemu-aarch64-static as its
#    runner: the binary in an empty root, as ship_check.sh runs the x86_64 one;
# 3. the jail under qemu-user (docs/security.md, "Under qemu-user"): qemu
#    refuses its guest seccomp and knows no Landlock, so the probe shows
#    nothing refused; checked to be exactly what that section says, and the
#    x86_64 binary's probe on this kernel for contrast;
# 4. scripts/release_artifacts.sh into build-release/: both binaries with
#    their .sha256; contrib/ci/proctape-ci.sh's machine choice is tested with
#    the aarch64 binary (tests/ship/ci_arch_test.sh).
# Called by `bash scripts/setup.sh test` after ship_check.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
work=$(mktemp -d /tmp/proctape-cross-check-XXXXXX)
trap 'rm -rf "$work"' EXIT

say() { echo "cross_check: $*"; }
fail() { echo "cross_check: FAIL: $*" >&2; exit 1; }
started=$SECONDS
lap() { say "$1 ($((SECONDS - started)) s)"; started=$SECONDS; }

version=$(sed -n 's/^project(proctape VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
x86=build-portable/proctape-$version-linux-x86_64
[[ -x $x86 ]] || fail "no $x86 (scripts/ship_check.sh builds it)"
command -v qemu-aarch64-static >/dev/null || fail "no qemu-aarch64-static (Debian: qemu-user-static)"

# ---- 1. the cross build --------------------------------------------------------
# The toolchain is given once: a configured tree keeps it (CMake warns of a
# toolchain file given again).
toolchain=(--toolchain cmake/aarch64-linux-gnu.cmake)
[[ -f build-arm64/CMakeCache.txt ]] && toolchain=()
cmake -S . -B build-arm64 -DCMAKE_BUILD_TYPE=Release "${toolchain[@]}" -DPROCTAPE_PORTABLE=ON >/dev/null
/usr/bin/time -f '%U %S %e' -o "$work/time" \
  cmake --build build-arm64 -j"$jobs" --target proctape_portable >"$work/build.log" 2>&1 ||
  { tail -20 "$work/build.log" >&2; fail "the aarch64 build"; }
read -r user sys wall <"$work/time"
arm=build-arm64/proctape-$version-linux-aarch64
[[ -f $arm ]] || fail "no $arm"
what=$(file -b "$arm")
[[ $what == *"ARM aarch64"*"statically linked"* ]] || fail "$arm: $what"
lap "$arm built: $(stat -c %s "$arm") bytes; CPU ${user} s user + ${sys} s system, wall ${wall} s"

# ---- 2. under qemu-user ------------------------------------------------------------
qemu() { qemu-aarch64-static "$arm" "$@"; }
got=$(qemu --version) || fail "$arm --version under qemu"
[[ $got == "$("$x86" --version)" ]] || fail "$arm --version: $got"
mapfile -t files < <(cd corpus && ls -- *.ptape)
status=0
qemu verify -- "${files[@]/#/corpus/}" >"$work/verify" 2>&1 || status=$?
((status == 0)) || { cat "$work/verify" >&2; fail "verify of the corpus under qemu exited $status"; }
status=0
qemu corpus check corpus >"$work/check" 2>&1 || status=$?
((status == 0)) || { cat "$work/check" >&2; fail "corpus check under qemu exited $status"; }
for file in "${files[@]}"; do
  x_status=0 a_status=0
  "$x86" replay --json -- "corpus/$file" >"$work/x86.json" 2>&1 || x_status=$?
  qemu replay --json -- "corpus/$file" >"$work/arm.json" 2>&1 || a_status=$?
  ((x_status == a_status)) || fail "replay of $file: exit $a_status on aarch64, $x_status on x86_64"
  cmp -s "$work/x86.json" "$work/arm.json" ||
    fail "replay --json of $file differs: $(diff "$work/x86.json" "$work/arm.json" | head -n5)"
done
lap "under qemu: --version, verify and corpus check of ${#files[@]} files, replay --json of each byte-identical to x86_64's"

# ---- 2b. in an empty root under qemu-user ------------------------------------------
# tests/ship/empty_root_test.sh, as ship_check.sh runs it for x86_64: the
# root holds the binary and qemu-aarch64-static (a static binary) alone,
# with /proc and a tmpfs: --version, capture + verify, fingerprint + resolve
# of a sandboxed sleep, and the corpus as outside.
status=0
bash tests/ship/empty_root_test.sh "$arm" . qemu-aarch64-static >"$work/root.log" 2>&1 || status=$?
((status == 0 || status == 77)) || { cat "$work/root.log" >&2; fail "the aarch64 binary in an empty root"; }
lap "in an empty root under qemu: $(grep -c '^empty_root_test: ' "$work/root.log") steps, $(tail -n1 "$work/root.log")"

# ---- 3. the jail under qemu-user ---------------------------------------------------
probe() {  # BINARY-RUNNER...: the probe line of a jailed verify
  PROCTAPE_JAIL_PROBE=1 "$@" verify "corpus/${files[0]}" 2>&1 >/dev/null | grep '^proctape: jail probe: '
}
on_host=$(probe "$x86") || fail "no jail probe line from $x86"
[[ $on_host == "proctape: jail probe: kill EPERM, ptrace EPERM, proc EACCES, self 0" ||
   $on_host == "proctape: jail probe: kill EPERM, ptrace EPERM, proc 0, self 0" ]] ||
  fail "the x86_64 jail on this kernel: $on_host"
under_qemu=$(probe qemu) || fail "no jail probe line under qemu"
[[ $under_qemu == "proctape: jail probe: kill 0, ptrace ENOSYS, proc 0, self 0" ]] ||
  fail "the jail under qemu is not what docs/security.md, \"Under qemu-user\" says: $under_qemu"
jail=$(qemu --print-jail)
grep -q '^seccomp (every command but lab): not available here' <<<"$jail" ||
  fail "--print-jail under qemu does not say seccomp is unavailable"
lap "jail probe: on this kernel '${on_host#proctape: jail probe: }'; under qemu '${under_qemu#proctape: jail probe: }'"

# ---- 4. the release artifacts ------------------------------------------------------
bash scripts/release_artifacts.sh build-portable build-arm64 build-release
status=0
bash tests/ship/ci_arch_test.sh "$PWD/$x86" "$PWD" "$PWD/$arm" \
  >"$work/ci.log" 2>&1 || status=$?
((status == 0)) || { cat "$work/ci.log" >&2; fail "proctape-ci.sh install's machine choice with the aarch64 binary"; }
lap "build-release: both binaries and their .sha256; proctape-ci.sh install takes this machine's"
