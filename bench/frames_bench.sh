#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# frames_bench.sh: what N frames of an idle host cost, side by side with a base
# binary in one run (BENCHMARKS.md, "Frames in version 2").
#
#   bash bench/frames_bench.sh PATH/TO/base/proctape PATH/TO/new/proctape   (repo root, as root)
#
# Environment:
#   BENCH_N=10000             idle processes (bench/spawn_idle, bench/idle_worker)
#   BENCH_FRAMES="1 10 50"    frames of each capture, one file each
#   BENCH_INTERVAL=100        --interval MS between frames
#   BENCH_TMP=/tmp            where the work directory is made
#
# With the workers up, each binary (in alternation, per frame count) runs
# `capture --frames F --interval MS` and the file's size is taken; then `capture
# --env keep` (one frame) of each binary and `tar --sort=name | zstd -3` of the
# same stat+cmdline+environ (bench/copy_raw). Target (BENCHMARKS.md, "Frames in
# version 2"): F frames <= (1 + 0.15 (F-1)) x one frame; --env keep <= 0.6 x
# tar|zstd. Prints a markdown table (stdout); every process started is ended on
# exit.
set -euo pipefail
bench_name=frames_bench
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

[[ $# -eq 2 ]] || usage_error "usage: bash bench/frames_bench.sh BASE/proctape NEW/proctape"
old=$(absolute "$1"); new=$(absolute "$2")
need_executable "$old"; need_executable "$new"
n=${BENCH_N:-10000}
frames_list=${BENCH_FRAMES:-1 10 50}
interval=${BENCH_INTERVAL:-100}
need_bench_n 1 30000 "$n"
for tool in cc tar zstd awk mkfifo; do need_tool "$tool"; done

here=$(cd "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
start_work frames
bin=$work/bin
spawner=
ctl_fd=
workers_dir=$bin
# shellcheck source=bench/idle_workers.sh
source "$here/idle_workers.sh"
raw=
raw_parent=$work
[[ -d /dev/shm && -w /dev/shm ]] && raw_parent=/dev/shm
cleanup() {
  local rc=$?
  set +e
  stop_workers
  [[ -n $raw ]] && rm -rf -- "$raw"
  rm -rf -- "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 129' HUP

mkdir -p "$bin"
for prog in spawn_idle copy_raw; do cc -O2 -Wall -Wextra -o "$bin/$prog" "$here/$prog.c"; done
cc -O2 -static -o "$bin/idle_worker" "$here/idle_worker.c" 2>/dev/null ||
  cc -O2 -o "$bin/idle_worker" "$here/idle_worker.c"

log "starting $n idle workers"
start_workers "$n"

declare -A size
for f in $frames_list; do
  for which in old new; do
    exe=$old; [[ $which == new ]] && exe=$new
    out=$work/$which.f$f.ptape
    iv=(); ((f > 1)) && iv=(--interval "$interval")
    "$exe" capture --frames "$f" "${iv[@]}" -o "$out" --force >/dev/null 2>"$work/err" ||
      bench_fail "$which capture --frames $f failed: $(head -1 "$work/err")"
    size[$which.$f]=$(stat -c %s "$out")
    log "$which: $f frames, ${size[$which.$f]} bytes"
    rm -f "$out"
  done
done
raw=$(mktemp -d "$raw_parent/proctape-bench-raw.XXXXXX")
"$bin/copy_raw" "$raw/procs" >/dev/null
tar_bytes=$(tar --sort=name -C "$raw/procs" -cf - . | zstd -3 -q -c | wc -c)
for which in old new; do
  exe=$old; [[ $which == new ]] && exe=$new
  "$exe" capture --env keep -o "$work/keep.ptape" --force >/dev/null 2>&1 ||
    bench_fail "$which capture --env keep failed"
  size[$which.keep]=$(stat -c %s "$work/keep.ptape")
  rm -f "$work/keep.ptape"
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
first=${frames_list%% *}
echo "| frames ($n idle processes, --interval $interval) | base bytes | base × one frame | new bytes | new × one frame | target × |"
echo "|---|---|---|---|---|---|"
for f in $frames_list; do
  echo "| $f | ${size[old.$f]} | $(ratio "${size[old.$f]}" "${size[old.$first]}") | ${size[new.$f]} | $(ratio "${size[new.$f]}" "${size[new.$first]}") | $(awk -v f="$f" 'BEGIN {printf "%.2f", 1 + 0.15 * (f - 1)}') |"
done
echo
echo "| one frame --env keep | bytes | × tar\\|zstd -3 ($tar_bytes bytes) |"
echo "|---|---|---|"
echo "| base | ${size[old.keep]} | $(ratio "${size[old.keep]}" "$tar_bytes") |"
echo "| new | ${size[new.keep]} | $(ratio "${size[new.keep]}" "$tar_bytes") |"
log "load: $load_start -> $(cut -d' ' -f1-3 /proc/loadavg)"
