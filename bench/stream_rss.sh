#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# stream_rss.sh: peak RSS and wall time of the commands that read a file item by
# item (BENCHMARKS.md, "Streaming readers": verify, show, tree, export, diff),
# on files of more and more frames, side by side with a binary from before the
# streaming readers. The target: at most 64 MiB for every command on 20 frames
# of 10,000 processes, and flat as the frames grow.
#
#   bash bench/stream_rss.sh OLD/cli/proctape NEW/cli/proctape   (from the repo root)
#
# OLD is any proctape built before the streaming readers, e.g. of commit
# b69f457 (the last one before them):
#   mkdir /tmp/old && git archive b69f457 | tar -x -C /tmp/old
#   cmake -S /tmp/old -B /tmp/old/build >/dev/null && cmake --build /tmp/old/build -j2 --target proctape
# NEW/../tests/many_frames must be built (cmake --build BUILD --target many_frames),
# and a C compiler (bench/timeit.c is compiled into the work dir).
#
# Environment:
#   BENCH_FRAMES="1 5 20 50"  frames of the files, one file each
#   BENCH_N=10000             process records per frame
#   BENCH_ROUNDS=1            rounds (medians are taken over them)
#   BENCH_TIMEOUT=600         seconds a command may take
#   BENCH_PROC_DIR=0          1: export --format proc-dir --frame 0 too (it writes
#                             and syncs 5 files per process: ~50 s per run of
#                             10,000 processes on a 2-core machine)
#   BENCH_TMP=/tmp            where the work directory is made
#
# The files are written by the real writer (tests/shapes/many_frames.h: a
# quiet host, each record ~1.3 KB of /proc text with a kilobyte environ,
# nothing shared between frames), not captured from live workers: 10,000
# idle workers' captures differ little from these in size and shape, and a
# written file takes a second where a 50-frame capture takes minutes. Each
# command runs once per round under bench/timeit (wall time, wait4's peak
# RSS), old and new alternating; each must exit 0. Prints a markdown table
# of medians. It starts no process but proctape's; the work dir is removed.
set -euo pipefail
bench_name=stream_rss
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

[[ $# -eq 2 ]] || usage_error "usage: bash bench/stream_rss.sh OLD/cli/proctape NEW/cli/proctape" \
  "       (BENCH_FRAMES=\"1 5 20 50\" BENCH_N=10000 BENCH_ROUNDS=1 BENCH_TMP=/tmp)"
for b in "$1" "$2"; do need_executable "$b"; done
old=$(absolute "$1")
new=$(absolute "$2")
many_frames=$(cd "$(dirname -- "$new")/.." && pwd)/tests/many_frames
need_built "$many_frames" "cmake --build BUILD --target many_frames"
need_tool cc gcc

frames_list=${BENCH_FRAMES:-1 5 20 50}
n=${BENCH_N:-10000}
rounds=${BENCH_ROUNDS:-1}
limit=${BENCH_TIMEOUT:-600}
for f in $frames_list; do
  [[ $f =~ ^[1-9][0-9]*$ ]] || bench_fail "BENCH_FRAMES must be numbers >= 1"
done
need_count BENCH_N "$n"
need_count BENCH_ROUNDS "$rounds"
need_count BENCH_TIMEOUT "$limit"

start_work stream-rss
trap 'rm -rf -- "$work"' EXIT
build_timeit "$work"

# name | arguments (after the binary); F is the file, W/ the work dir, L the
# last frame's index.
commands=(
  "verify|verify F"
  "show|show F"
  "show --json|show F --json"
  "tree --frame L --json|tree F --frame L --json"
  "export json|export F --format json --out W/out.json --force"
  "export dot --frame 0|export F --format dot --frame 0 --out W/out.dot --force"
  "diff F F|diff F F"
  "diff F F --frame-a 0 --json|diff F F --frame-a 0 --json"
)
[[ ${BENCH_PROC_DIR:-0} == 1 ]] &&
  commands+=("export proc-dir --frame 0|export F --format proc-dir --frame 0 --out W/frame --force")

rows=()
for frames in $frames_list; do
  file=$work/f$frames.ptape
  "$many_frames" "$frames" "$n" "$file"
  log "$frames x $n: $(stat -c %s "$file") bytes; $rounds rounds"
  for ((i = 0; i < ${#commands[@]}; i++)); do : >"$work/old$i"; : >"$work/new$i"; done
  for ((r = 0; r < rounds; r++)); do
    for ((i = 0; i < ${#commands[@]}; i++)); do
      IFS='|' read -r name args <<<"${commands[$i]}"
      args=${args//F/$file}
      args=${args//L/$((frames - 1))}
      read -ra argv <<<"${args//W\//$work/}"
      order="old new"
      ((r % 2)) && order="new old"
      for which in $order; do
        bin=$old
        [[ $which == new ]] && bin=$new
        rm -rf -- "$work/frame"
        if ! "$work/timeit" "$work/$which$i" timeout "$limit" "$bin" "${argv[@]}" >/dev/null 2>"$work/err"; then
          echo "stream_rss: $which proctape $name on $frames frames failed or passed ${limit} s: $(head -1 "$work/err")" >&2
          exit 1
        fi
      done
    done
    log "$frames frames: round $((r + 1)) of $rounds"
  done
  for ((i = 0; i < ${#commands[@]}; i++)); do
    IFS='|' read -r name _ <<<"${commands[$i]}"
    med() { awk -v c="$2" '{print $c}' "$work/$1$i" | median; }
    rows+=("$(awk -v f="$frames × $n" -v c="$name" -v ow="$(med old 1)" -v nw="$(med new 1)" \
      -v om="$(med old 4)" -v nm="$(med new 4)" -v s="$(stat -c %s "$file")" \
      'BEGIN {printf "| %s (%.1f MB) | `%s` | %.0f | %.0f | %.2f | %.2f |", f, s / 1e6, c, om / 1024, nm / 1024, ow, nw}')")
  done
done

echo
echo "stream_rss: medians of $rounds rounds, load average at start $load_start," \
  "at end $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| file | command | old peak RSS MiB | new peak RSS MiB | old wall s | new wall s |"
echo "|---|---|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
