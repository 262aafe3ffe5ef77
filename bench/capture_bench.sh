#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# capture_bench.sh: proctape capture against the syscall floor, ps, and tar|zstd,
# measured side by side in one run (BENCHMARKS.md, "Capture").
#
#   bash bench/capture_bench.sh PATH/TO/proctape          (from the repo root, as root)
#
# Environment:
#   BENCH_N="100 1000 10000"  idle processes to start, one measurement per value
#   BENCH_ROUNDS=7            alternated rounds per N (medians are taken over them)
#   BENCH_WARMUP=1            rounds run first and discarded (cold /proc dentries)
#   BENCH_TMP=/tmp            where the work directory is made
#   BENCH_KEEP=0              1: keep the work directory (raw timings, .ptape files)
#   BENCH_BASELINE=PATH       another proctape binary (e.g. the previous commit's),
#                             run as `capture --threads 1` in the same rounds
#
# What it does, for each N:
#  1. bench/spawn_idle starts N idle workers (bench/idle_worker), each with a
#     distinct argv and a CI job's environment (most share one environment, a
#     few have variants), and waits until all have exec'd.
#  2. BENCH_WARMUP discarded rounds, then BENCH_ROUNDS rounds; each round runs
#     once each, in alternation (the starting tool rotates every round):
#       floor    bench/floor_reader (list /proc; per process openat+read stat
#                <=4096, cmdline <=65536, environ <=65536, status <=16384, and
#                fstatat exe; no parsing): the "syscall floor" of BENCHMARKS.md, "Capture"
#       floor+   bench/floor_reader --all: the same plus what a capture also
#                records, cgroup (<=4096) and fstatat ns/pid
#       floordir bench/floor_reader --all --dirfd: floor+ with every file opened
#                relative to one O_PATH descriptor of /proc/PID
#       capture  proctape capture -o WORK/capture.ptape --force (default threads)
#                (skipped, with a note, if the binary has no capture subcommand)
#       capture1 the same with --threads 1 (BENCHMARKS.md, "Capture near the floor")
#       base1    BENCH_BASELINE's capture --threads 1 (only when it is given)
#       ps       ps -eo pid,ppid,lstart,args >/dev/null
#     Each is run under bench/timeit: CLOCK_MONOTONIC wall time around
#     fork..wait4, and user/sys time and peak RSS from wait4's rusage.
#  3. Sizes, taken back to back while the workers are still up: bench/copy_raw
#     copies stat+cmdline+environ of every process (same bounds) into a
#     directory (on /dev/shm if present), measured as
#     `tar --sort=name -C DIR -cf - . | zstd -3 | wc -c`; then
#     `proctape capture --env keep -o WORK/keep.ptape --force` and its size.
#  4. Closes spawn_idle's stdin: it SIGKILLs exactly the pids it started and
#     reaps them; the script checks that none of them is left.
# Then prints a markdown table of medians and ratios (stdout; progress goes to
# stderr). Every process the script starts is ended on exit (trap EXIT); the
# workers also carry PR_SET_PDEATHSIG, so a killed harness leaves nothing.
set -euo pipefail
bench_name=capture_bench
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

[[ $# -eq 1 ]] || usage_error "usage: bash bench/capture_bench.sh PATH/TO/proctape" \
  "       (BENCH_N=\"100 1000 10000\" BENCH_ROUNDS=7 BENCH_WARMUP=1 BENCH_KEEP=0)"
proctape=$1
[[ $proctape == */* ]] || proctape=$(command -v -- "$proctape" || true)
need_executable "$proctape" "$1"
proctape=$(absolute "$proctape")

bench_n=${BENCH_N:-100 1000 10000}
rounds=${BENCH_ROUNDS:-7}
warmup=${BENCH_WARMUP:-1}
keep=${BENCH_KEEP:-0}
baseline=${BENCH_BASELINE:-}
if [[ -n $baseline ]]; then
  need_executable "$baseline"
  baseline=$(absolute "$baseline")
fi
need_count BENCH_ROUNDS "$rounds"
need_whole BENCH_WARMUP "$warmup"
need_bench_n 1 30000 "$bench_n"
for tool in cc tar zstd ps awk sort mkfifo; do need_tool "$tool"; done

here=$(cd "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
start_work bench
bin=$work/bin
spawner=
ctl_fd=
workers_dir=$bin
# shellcheck source=bench/idle_workers.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/idle_workers.sh"
raw=
# The raw copy for tar (30,000 small files at N=10,000) goes to tmpfs when there
# is one: on ext4 it takes ~15 s to write.
raw_parent=$work
[[ -d /dev/shm && -w /dev/shm ]] && raw_parent=/dev/shm

cleanup() {
  local rc=$?
  set +e
  stop_workers
  [[ -n $raw ]] && rm -rf -- "$raw"
  if [[ $keep == 1 ]]; then log "work directory kept: $work"; else rm -rf -- "$work"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 129' HUP

# --- Helpers: compiled here, nothing else is built. ---
mkdir -p "$bin"
cflags=(-O2 -Wall -Wextra)
for prog in spawn_idle floor_reader copy_raw timeit; do
  cc "${cflags[@]}" -o "$bin/$prog" "$here/$prog.c"
done
# A static idle worker is smaller and execs faster; fall back to a dynamic one.
cc "${cflags[@]}" -static -o "$bin/idle_worker" "$here/idle_worker.c" 2>/dev/null ||
  cc "${cflags[@]}" -o "$bin/idle_worker" "$here/idle_worker.c"

has_capture=0
if "$proctape" --help 2>&1 | grep -qE '^[[:space:]]+capture([[:space:]]|$)'; then
  has_capture=1
else
  log "NOTE: $proctape has no 'capture' subcommand yet: capture columns are skipped"
fi

# --- Statistics over one column of a timeit result file. ---
column_median() { awk -v c="$2" '{print $c}' "$1" | median; }  # FILE COLUMN
maximum() { awk -v c="$2" 'NR == 1 || $c > m {m = $c} END {print (NR ? m : "nan")}' "$1"; }
cpu_median() { awk '{print $2 + $3}' "$1" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
# Per-round ratio A/B (same round): "median [min-max]".
round_ratios() {
  paste -d ' ' "$1" "$2" | awk '{print $1 / $6}' | sort -g |
    awk '{a[NR] = $1} END {m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.2f [%.2f-%.2f]", m, a[1], a[NR]}'
}
# Per-round CPU (user+sys) ratio A/B: "median [min-max]".
round_cpu_ratios() {
  paste -d ' ' "$1" "$2" | awk '{print ($2 + $3) / ($7 + $8)}' | sort -g |
    awk '{a[NR] = $1} END {m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.2f [%.2f-%.2f]", m, a[1], a[NR]}'
}
cpu4() { printf '%.4f' "$(cpu_median "$1")"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0 && a == a + 0) printf "%.2f", a / b; else print "n/a"}'; }
nonzero_exits() { awk '$5 != 0 {print $5}' "$1" | sort -u | paste -sd ' ' -; }

# --- One tool, timed. ---
run_tool() { # TOOL RESULT_FILE
  case $1 in
    floor) "$bin/timeit" "$2" "$bin/floor_reader" >"$work/floor.out" || true ;;
    floorall) "$bin/timeit" "$2" "$bin/floor_reader" --all >/dev/null || true ;;
    floordir) "$bin/timeit" "$2" "$bin/floor_reader" --all --dirfd >/dev/null || true ;;
    capture) "$bin/timeit" "$2" "$proctape" capture -o "$work/capture.ptape" --force >"$work/capture.out" 2>&1 || true ;;
    capture1) "$bin/timeit" "$2" "$proctape" capture --threads 1 -o "$work/capture1.ptape" --force >/dev/null 2>&1 || true ;;
    base1) "$bin/timeit" "$2" "$baseline" capture --threads 1 -o "$work/base1.ptape" --force >/dev/null 2>&1 || true ;;
    ps) "$bin/timeit" "$2" ps -eo pid,ppid,lstart,args >/dev/null || true ;;
  esac
}

rows=()
near=()
details=()
raw_lines=()
for n in $bench_n; do
  log "N=$n: starting $n idle workers"
  start_workers "$n"
  log "N=$n: $(tail -1 "$work/spawn.log")"

  tools=(floor floorall floordir)
  ((has_capture)) && tools+=(capture capture1)
  [[ -n $baseline ]] && tools+=(base1)
  tools+=(ps)
  for tool in "${tools[@]}"; do : >"$work/n$n.$tool"; done
  total=$((warmup + rounds))
  for ((r = 0; r < total; r++)); do
    for ((k = 0; k < ${#tools[@]}; k++)); do
      tool=${tools[$(((r + k) % ${#tools[@]}))]}
      if ((r < warmup)); then run_tool "$tool" "$work/warmup"; else run_tool "$tool" "$work/n$n.$tool"; fi
    done
  done
  log "N=$n: $rounds alternated rounds done (after $warmup warm-up)"

  # Sizes, back to back, with the workers still up.
  raw=$(mktemp -d "$raw_parent/proctape-bench-raw.XXXXXX")
  copied=$("$bin/copy_raw" "$raw/procs")
  raw_procs=$(sed -n 's/.*processes=\([0-9]*\).*/\1/p' <<<"$copied")
  # Name order (= pid order, as a /proc scan sees them) keeps the result
  # independent of the file system's readdir order, which moves it by ~20 %.
  tar_bytes=$(tar --sort=name -C "$raw/procs" -cf - . | zstd -3 -q -c | wc -c)
  keep_bytes=n/a
  keep_note=
  if ((has_capture)); then
    rm -f "$work/keep.ptape"
    if "$bin/timeit" "$work/n$n.keep" "$proctape" capture --env keep -o "$work/keep.ptape" --force \
      >"$work/keep.out" 2>&1 && [[ -f $work/keep.ptape ]]; then
      keep_bytes=$(stat -c %s "$work/keep.ptape")
    else
      keep_note="capture --env keep failed: $(tail -1 "$work/keep.out")"
    fi
  fi
  rm -rf -- "$raw"
  raw=

  log "N=$n: ending the workers"
  stop_workers
  check_no_leftovers
  log "N=$n: all $n workers ended and reaped"

  procs=$(sed -n 's/.*processes=\([0-9]*\).*/\1/p' "$work/floor.out")
  floor_med=$(column_median "$work/n$n.floor" 1)
  ps_med=$(column_median "$work/n$n.ps" 1)
  floor_us=$(awk -v t="$floor_med" -v p="$procs" 'BEGIN {printf "%.1f", t / p * 1e6}')
  tar_per=$(awk -v b="$tar_bytes" -v p="$raw_procs" 'BEGIN {printf "%.0f", b / p}')
  floorall_med=$(column_median "$work/n$n.floorall" 1)
  cap_med=skipped cap_ratio=n/a cap_rss=n/a keep_ratio=n/a cap_rounds=n/a cap_cpu=n/a redacted_bytes=n/a
  cap_all_ratio=n/a
  if ((has_capture)); then
    bad=$(nonzero_exits "$work/n$n.capture")
    if [[ -n $bad ]]; then
      cap_med="FAILED (exit $bad)"
      log "N=$n: capture failed: $(tail -3 "$work/capture.out" | tr '\n' ' ')"
    else
      cap_raw=$(column_median "$work/n$n.capture" 1)
      cap_med=$(printf '%.4f' "$cap_raw")
      cap_ratio=$(ratio "$cap_raw" "$floor_med")
      cap_all_ratio=$(ratio "$cap_raw" "$floorall_med")
      cap_rss=$(awk -v k="$(maximum "$work/n$n.capture" 4)" 'BEGIN {printf "%.1f MiB", k / 1024}')
      cap_rounds=$(round_ratios "$work/n$n.capture" "$work/n$n.floor")
      cap_cpu=$(printf '%.4f' "$(cpu_median "$work/n$n.capture")")
      [[ -f $work/capture.ptape ]] && redacted_bytes=$(stat -c %s "$work/capture.ptape")
    fi
    [[ $keep_bytes != n/a ]] && keep_ratio=$(ratio "$keep_bytes" "$tar_bytes")
    [[ -n $keep_note ]] && { keep_bytes="failed"; log "N=$n: $keep_note"; }
  fi
  rows+=("| $n | $procs | $(printf '%.4f' "$floor_med") ($floor_us µs/proc) | $cap_med | $cap_ratio | $(printf '%.4f' "$ps_med") | $(ratio "$ps_med" "$floor_med") | $tar_bytes ($tar_per B/proc) | $keep_bytes | $keep_ratio | $cap_rss |")
  details+=("| $n | $(printf '%.4f' "$floorall_med") | $(ratio "$floorall_med" "$floor_med") | $cap_all_ratio | $(printf '%.4f' "$(cpu_median "$work/n$n.floor")") | $cap_cpu | $(printf '%.4f' "$(cpu_median "$work/n$n.ps")") | $cap_rounds | $(round_ratios "$work/n$n.ps" "$work/n$n.floor") | $(maximum "$work/n$n.floor" 4) KiB | $(maximum "$work/n$n.ps" 4) KiB | $redacted_bytes |")
  if ((has_capture)); then
    base_cells="n/a | n/a"
    [[ -n $baseline ]] && base_cells="$(cpu4 "$work/n$n.base1") | $(round_cpu_ratios "$work/n$n.base1" "$work/n$n.floorall")"
    near+=("| $n | $(cpu4 "$work/n$n.floor") | $(cpu4 "$work/n$n.floorall") | $(cpu4 "$work/n$n.floordir") | $(cpu4 "$work/n$n.capture1") | $(round_cpu_ratios "$work/n$n.capture1" "$work/n$n.floorall") | $(round_cpu_ratios "$work/n$n.capture1" "$work/n$n.floor") | $base_cells | $(printf '%.4f' "$(column_median "$work/n$n.capture" 1)") | $(ratio "$(column_median "$work/n$n.capture" 1)" "$floor_med") | $(cpu4 "$work/n$n.capture") | $(maximum "$work/n$n.capture1" 4) KiB |")
  fi
  for tool in "${tools[@]}"; do
    raw_lines+=("N=$n $tool wall s: $(awk '{printf "%s ", $1}' "$work/n$n.$tool")")
  done
  if ((has_capture)) && [[ -s $work/capture.out ]]; then
    raw_lines+=("N=$n last capture printed: $(tail -n 6 "$work/capture.out" | tr '\n' ' ')")
  fi
done

capture_note="proctape capture"
((has_capture)) || capture_note="proctape capture (not available in this binary: skipped)"
cat <<EOF

## proctape capture benchmark

- Host: $(uname -sr), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo) RAM, load average $load_start at the start, $(cut -d" " -f1-3 /proc/loadavg) at the end; $(date -u '+%Y-%m-%d %H:%M UTC')
- Binary: $proctape ($capture_note)
- Command: ${baseline:+BENCH_BASELINE=$baseline }BENCH_N="$bench_n" BENCH_ROUNDS=$rounds BENCH_WARMUP=$warmup bash bench/capture_bench.sh $1
- Each N: N idle workers (distinct argv, CI-like 38-variable environment shared by 98 % of them)
  on top of the host's own processes; $warmup warm-up round(s) discarded, then $rounds rounds
  in alternation (floor, floor --all, floor --all --dirfd, capture, capture --threads 1[, the baseline], ps; the first tool rotates every round). Times are
  wall-clock medians (CLOCK_MONOTONIC around fork..wait4, process start included);
  ratios are median/median. Sizes: stat+cmdline+environ of every process, as
  \`tar --sort=name -cf - . | zstd -3\` (name order: pid order, like a /proc scan),
  and the .ptape written by \`proctape capture --env keep\` (which also holds status, exe
  identity and the rest), taken back to back.

| N | processes scanned | floor median s | capture median s | capture/floor | ps median s | ps/floor | tar+zstd -3 bytes | ptape --env keep bytes | ptape/tar+zstd | capture peak RSS |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
$(printf '%s\n' "${rows[@]}")

Details. floor --all = the floor plus the two things a capture also records per process
(cgroup read <= 4096, fstatat ns/pid). CPU = user+sys median, s. Per-round ratios:
median [min-max] of the same round's pair.

| N | floor --all median s | floor --all / floor | capture / floor --all | floor CPU | capture CPU | ps CPU | capture/floor per round | ps/floor per round | floor peak RSS | ps peak RSS | ptape (default, redacted) bytes |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
$(printf '%s\n' "${details[@]}")

Near the floor: CPU = user+sys median, s; per-round CPU
ratios median [min-max]. floor+ dirfd = floor+ with each file opened relative to
an O_PATH descriptor of /proc/PID. capture 1T = \`capture --threads 1\`; base 1T =
BENCH_BASELINE's (${baseline:-not given}); capture 2T = the default (threads:
the cores, at most 4), its wall time against the one-thread floor's.

| N | floor CPU | floor+ CPU | floor+ dirfd CPU | capture 1T CPU | capture 1T / floor+ (CPU) | capture 1T / floor (CPU) | base 1T CPU | base 1T / floor+ (CPU) | capture 2T wall | capture 2T wall / floor wall | capture 2T CPU | capture 1T peak RSS |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
$(printf '%s\n' "${near[@]}")

Raw wall times (s), in round order:
\`\`\`
$(printf '%s\n' "${raw_lines[@]}")
\`\`\`
EOF
