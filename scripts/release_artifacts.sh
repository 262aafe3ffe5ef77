#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The release's static binaries (README "Install"), one per architecture,
# each with its checksum file:
#   bash scripts/release_artifacts.sh BUILD_X86 BUILD_ARM OUTDIR
# BUILD_X86 and BUILD_ARM are -DPROCTAPE_PORTABLE=ON build directories
# (the second cross-built with cmake/aarch64-linux-gnu.cmake), their
# proctape_portable target built. OUTDIR receives
#   proctape-VERSION-linux-x86_64   proctape-VERSION-linux-x86_64.sha256
#   proctape-VERSION-linux-aarch64  proctape-VERSION-linux-aarch64.sha256
# each .sha256 one line in sha256sum's format ("HEX  NAME", the name alone:
# `sha256sum -c` in OUTDIR checks it). Each binary must be a static ELF of
# its architecture, of the same version; anything else is refused.
# Exit: 0 written, 2 usage, 3 a binary missing or not what it should be,
# 4 OUTDIR cannot be written.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {  # STATUS MESSAGE
  echo "release_artifacts: $2" >&2
  exit "$1"
}
(($# == 3)) || fail 2 "usage: bash scripts/release_artifacts.sh BUILD_X86 BUILD_ARM OUTDIR"
build_x86=$1 build_arm=$2 out=$3

# The version: the project's (CMakeLists.txt), which both builds' file names carry.
version=$(sed -n 's/^project(proctape VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
[[ -n $version ]] || fail 3 "no project version in CMakeLists.txt"

# BUILD ARCH MACHINE: the binary of BUILD for ARCH, checked by `file`
# (MACHINE: how file names the architecture).
binary_of() {
  local build=$1 arch=$2 machine=$3 bin what
  bin=$build/proctape-$version-linux-$arch
  [[ -f $bin ]] || fail 3 "$bin: no such file (build its proctape_portable target)"
  what=$(file -b "$bin")
  [[ $what == *"ELF 64-bit LSB"*"$machine"* ]] || fail 3 "$bin is not a $arch binary: $what"
  [[ $what == *"statically linked"* ]] || fail 3 "$bin is not statically linked: $what"
  printf '%s' "$bin"
}
x86=$(binary_of "$build_x86" x86_64 x86-64)
arm=$(binary_of "$build_arm" aarch64 aarch64)

mkdir -p -- "$out" 2>/dev/null || fail 4 "cannot make $out"
for bin in "$x86" "$arm"; do
  name=${bin##*/}
  # Written beside under a temporary name, renamed once complete.
  cp -- "$bin" "$out/.$name.tmp" && chmod 0755 "$out/.$name.tmp" &&
    mv -f -- "$out/.$name.tmp" "$out/$name" || fail 4 "cannot write $out/$name"
  (cd "$out" && sha256sum -- "$name" >".$name.sha256.tmp" && mv -f -- ".$name.sha256.tmp" "$name.sha256") ||
    fail 4 "cannot write $out/$name.sha256"
  echo "release_artifacts: $out/$name ($(stat -c %s "$out/$name") bytes), $out/$name.sha256"
done
(cd "$out" && sha256sum --quiet -c -- "${x86##*/}.sha256" "${arm##*/}.sha256") || fail 4 "the checksums do not check in $out"
