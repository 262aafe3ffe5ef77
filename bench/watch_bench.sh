#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# watch_bench.sh: watching at 10 ms (BENCHMARKS.md, "Watching at 10 ms"): the
# achieved interval of `capture --root PID --interval MS` on a small subtree
# while the host runs N idle workers, side by side with a base binary in one
# run.
#
#   bash bench/watch_bench.sh PATH/TO/base/proctape PATH/TO/new/proctape   (repo root)
#
# Environment:
#   BENCH_N=10000        idle processes (bench/spawn_idle, bench/idle_worker)
#   BENCH_SUBTREE=10     processes of the watched subtree (a shell and its sleeps)
#   BENCH_INTERVAL=10    --interval MS
#   BENCH_FRAMES=300     --frames of each capture
#   BENCH_ROUNDS=3       rounds; each runs both binaries, the order alternating
#   BENCH_THREADS=       --threads N for both captures (default: theirs)
#   BENCH_TMP=/tmp       where the work directory is made
#
# With the workers up, a shell starts BENCH_SUBTREE - 1 sleeps and waits: the
# subtree. Each round runs `capture --root SHELL --interval MS --frames F` of
# each binary; from each file (`show --json`) it takes the frames' scan start
# times: the spacing of consecutive starts, the scan time of each frame, and
# the slots missed (slot k at the header's capture start + k × MS: slots up to
# the last frame's that hold no frame's start). Prints a markdown table
# (stdout) of the figures over all rounds of each binary; every process
# started is ended, by pid, on exit.
set -euo pipefail
bench_name=watch_bench
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

[[ $# -eq 2 ]] || usage_error "usage: bash bench/watch_bench.sh BASE/proctape NEW/proctape" \
  "       (BENCH_N=10000 BENCH_SUBTREE=10 BENCH_INTERVAL=10 BENCH_FRAMES=300 BENCH_ROUNDS=3)"
old=$(absolute "$1"); new=$(absolute "$2")
need_executable "$old"; need_executable "$new"
n=${BENCH_N:-10000}
subtree=${BENCH_SUBTREE:-10}
interval=${BENCH_INTERVAL:-10}
frames=${BENCH_FRAMES:-300}
rounds=${BENCH_ROUNDS:-3}
threads=()
[[ -n ${BENCH_THREADS:-} ]] && threads=(--threads "$BENCH_THREADS")
need_bench_n 0 30000 "$n"
need_count BENCH_SUBTREE "$subtree"
need_count BENCH_INTERVAL "$interval"
need_count BENCH_FRAMES "$frames"
need_count BENCH_ROUNDS "$rounds"
for tool in cc jq awk sort mkfifo; do need_tool "$tool"; done

here=$(cd "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
start_work watch
bin=$work/bin
spawner=
ctl_fd=
tree=
workers_dir=$bin
# shellcheck source=bench/idle_workers.sh
source "$here/idle_workers.sh"
# The subtree: its sleeps by pid (from the file the shell wrote), then the shell.
stop_tree() {
  [[ -n $tree ]] || return 0
  local p
  if [[ -f $work/tree.pids ]]; then
    while read -r p; do [[ $p =~ ^[0-9]+$ ]] && kill -TERM "$p" 2>/dev/null; done <"$work/tree.pids"
  fi
  kill -TERM "$tree" 2>/dev/null
  wait "$tree" 2>/dev/null || true
  tree=
}
cleanup() {
  local rc=$?
  set +e
  stop_tree
  stop_workers
  rm -rf -- "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 129' HUP

mkdir -p "$bin"
cc -O2 -Wall -Wextra -o "$bin/spawn_idle" "$here/spawn_idle.c"
cc -O2 -static -o "$bin/idle_worker" "$here/idle_worker.c" 2>/dev/null ||
  cc -O2 -o "$bin/idle_worker" "$here/idle_worker.c"

if ((n > 0)); then
  log "starting $n idle workers"
  start_workers "$n"
fi
# Each sleep's pid is written before the next starts; the shell waits for them.
sh -c 'i=1; while [ "$i" -lt "$1" ]; do sleep 3600 & echo $! >>"$2"; i=$((i + 1)); done; wait' \
  sh "$subtree" "$work/tree.pids" &
tree=$!
waited=0
until [[ -f $work/tree.pids && $(wc -l <"$work/tree.pids") -eq $((subtree - 1)) ]]; do
  ((waited++ < 1000)) || bench_fail "the subtree did not start"
  sleep 0.01
done
log "subtree: root $tree, $subtree processes; host: $(ls /proc | grep -c '^[0-9]') processes"

# One capture; appends "spacing_ms", "scan_ms" lines to $work/WHICH.spacing and
# $work/WHICH.scan, and the missed slots to $work/WHICH.missed.
run() { # WHICH EXE
  local out=$work/$1.ptape
  "$2" capture --root "$tree" --interval "$interval" --frames "$frames" "${threads[@]}" -o "$out" --force \
    >/dev/null 2>"$work/err" || bench_fail "$1 capture failed: $(head -1 "$work/err")"
  "$2" show "$out" --json >"$work/show.json" 2>"$work/err" ||
    "$new" show "$out" --json >"$work/show.json" 2>"$work/err" ||
    bench_fail "$1: show --json failed: $(head -1 "$work/err")"
  jq -r --argjson iv "$interval" '
    (.capture_start_mono_ns | tonumber) as $t0
    | [.frames[] | (.scan_start_mono_ns | tonumber)] as $s
    | (range(1; $s | length) | "spacing \(($s[.] - $s[. - 1]) / 1e6)"),
      (.frames[] | "scan \((.scan_ns // 0) / 1e6)"),
      ([$s[] | (((. - $t0) / ($iv * 1e6)) | floor)] | unique) as $slots
      | "missed \(($slots | max) + 1 - ($slots | length))",
      "frames \($s | length)"' "$work/show.json" >"$work/one"
  awk '$1 == "spacing" {print $2}' "$work/one" >>"$work/$1.spacing"
  awk '$1 == "scan" {print $2}' "$work/one" >>"$work/$1.scan"
  awk '$1 == "missed" {print $2}' "$work/one" >>"$work/$1.missed"
  awk '$1 == "frames" {print $2}' "$work/one" >>"$work/$1.frames"
  log "$1: $(awk '$1 == "frames" {f = $2} $1 == "missed" {m = $2} END {print f " frames, " m " slots missed"}' "$work/one")"
  rm -f "$out"
}

for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then order="old new"; else order="new old"; fi
  for which in $order; do
    exe=$old; [[ $which == new ]] && exe=$new
    run "$which" "$exe"
  done
done

quantile() { # Q: the Q-quantile (nearest rank) of the numbers on stdin
  sort -g | awk -v q="$1" '{v[NR] = $1} END {if (NR == 0) {print "nan"; exit} i = int(q * NR + 0.999999); if (i < 1) i = 1; if (i > NR) i = NR; print v[i]}'
}
sum() { awk '{s += $1} END {print s + 0}'; }
echo "| $subtree-process subtree, $n idle workers, --interval $interval${BENCH_THREADS:+ --threads $BENCH_THREADS}, $rounds × $frames frames | frames | spacing median ms | spacing p99 ms | spacing max ms | slots missed | frame scan median ms | scan p99 ms |"
echo "|---|---|---|---|---|---|---|---|"
for which in old new; do
  label=base; [[ $which == new ]] && label=new
  echo "| $label | $(sum <"$work/$which.frames") | $(median <"$work/$which.spacing") | $(quantile 0.99 <"$work/$which.spacing") | $(quantile 1 <"$work/$which.spacing") | $(sum <"$work/$which.missed") | $(median <"$work/$which.scan") | $(quantile 0.99 <"$work/$which.scan") |"
done
log "load: $load_start -> $(cut -d' ' -f1-3 /proc/loadavg)"
