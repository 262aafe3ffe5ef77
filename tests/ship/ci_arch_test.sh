#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# contrib/ci/proctape-ci.sh install takes this machine's binary (README
# "Install"): `uname -m` (a stub on PATH) says x86_64, aarch64 or another
# machine; the release's two binaries lie side by side.
#   ci_arch_test.sh PROCTAPE SOURCE_DIR [AARCH64_PROCTAPE]
# PROCTAPE is an x86-64 proctape (the x86_64 artifact); AARCH64_PROCTAPE the
# cross-built one (scripts/cross_check.sh gives it), else a file of an
# AArch64 ELF header stands for it. Ctest's case
# ship/ci/install_takes_the_binary_of_this_machine (tests/ship/ci_tests.cmake).
set -euo pipefail

proctape=${1:?proctape binary} source_dir=${2:?source dir} arm_binary=${3:-}
case_name=install_takes_the_binary_of_this_machine
script=$source_dir/contrib/ci/proctape-ci.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/proctape-ci-arch-test.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT

# shellcheck source=tests/ship/ci_test_lib.sh
source "$(dirname "$0")/ci_test_lib.sh"

# {arch} in ARTIFACT picks this machine's binary. On an x86-64 host without
# binfmt the aarch64 one cannot run, so its install is refused at the run
# check, and the refusal names the -aarch64 file: the one that was picked.
stub_uname() {  # MACHINE
  mkdir -p "$tmp/uname-$1" "$tmp/bin"
  printf '#!/bin/sh
[ "$1" = -m ] && { echo %s; exit 0; }
exec /bin/uname "$@"
' "$1" >"$tmp/uname-$1/uname"
  chmod +x "$tmp/uname-$1/uname"
  printf '%s' "$tmp/uname-$1"
}
install_takes_the_binary_of_this_machine() {
  local x86 arm on_x86 on_arm on_riscv
  x86=$(portable_artifact)
  arm=$tmp/dl/proctape-0.1.0-linux-aarch64
  if [[ -n ${arm_binary:-} ]]; then
    cp -- "$arm_binary" "$arm"
  else
    printf '\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00' >"$arm"
  fi
  on_x86=$(stub_uname x86_64) on_arm=$(stub_uname aarch64) on_riscv=$(stub_uname riscv64)
  # x86_64: {arch} is x86_64, the x86-64 binary installed; the aarch64 one refused.
  run 0 "${ci_env[@]}" "PATH=$on_x86:$base_path" bash "$script" install --dir "$tmp/bin" \
    "$tmp/dl/proctape-0.1.0-linux-{arch}"
  cmp -s "$x86" "$tmp/bin/proctape" || fail "{arch} on x86_64 did not install the x86_64 binary"
  rm -f "$tmp/bin/proctape"
  run 4 "${ci_env[@]}" "PATH=$on_x86:$base_path" bash "$script" install --dir "$tmp/bin" "$arm"
  one_error_line "$arm" "a binary for aarch64, not this x86_64 machine"
  # aarch64: {arch} is aarch64; the x86-64 binary refused.
  run 4 "${ci_env[@]}" "PATH=$on_arm:$base_path" bash "$script" install --dir "$tmp/bin" "$x86"
  one_error_line "$x86" "a binary for x86_64, not this aarch64 machine"
  local status=0
  "${ci_env[@]}" "PATH=$on_arm:$base_path" bash "$script" install --dir "$tmp/bin" \
    "$tmp/dl/proctape-0.1.0-linux-{arch}" >"$tmp/out" 2>"$tmp/err" || status=$?
  if ((status == 0)); then  # a host that runs AArch64 binaries (binfmt + qemu-user)
    [[ -n $arm_binary ]] || fail "the AArch64 header alone installed"
    cmp -s "$arm" "$tmp/bin/proctape" || fail "{arch} on aarch64 did not install the aarch64 binary"
    rm -f "$tmp/bin/proctape"
  else
    ((status == 4)) || fail "{arch} on aarch64 exited $status: $(cat "$tmp/err")"
    one_error_line "$arm" "does not run here"
    [[ $(ls -A "$tmp/bin") == "" ]] || fail "left in the directory: $(ls -A "$tmp/bin")"
  fi
  # Any other machine: one line, exit 7, before anything is fetched.
  run 7 "${ci_env[@]}" "PATH=$on_riscv:$base_path" bash "$script" install --dir "$tmp/bin" \
    "$tmp/dl/proctape-0.1.0-linux-{arch}"
  one_error_line "riscv64" "only x86_64 and aarch64"
  [[ ! -e $tmp/bin/proctape ]] || fail "installed on riscv64"
}

install_takes_the_binary_of_this_machine
