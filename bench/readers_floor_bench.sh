#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# readers_floor_bench.sh: every reader against the decode floor (BENCHMARKS.md,
# "Readers against the decode floor"). bench/decode_floor only decompresses a
# file's chunks and parses their messages into an arena: the least any reader
# does. Each reader's CPU time (user + system) is given as a multiple of the
# floor's on the same file in the same run, with its peak RSS, beside the
# targets.
#
#   bash bench/readers_floor_bench.sh BUILD      (from the repo root)
#
# Needs, in BUILD: cli/proctape, bench/decode_floor, bench/replay_bench
# (cmake -DPROCTAPE_BENCH=ON) and tests/many_frames (-DPROCTAPE_TESTS=ON);
# and a C compiler (bench/timeit.c is compiled into the work dir) and jq.
#
# Environment:
#   BENCH_INPUTS="f1x10k f10x10k f50x10k f1x30k f10x30k rec1k rec10k"  the inputs (below)
#   BENCH_ROUNDS=5        alternated rounds (medians are taken over them)
#   BENCH_WARMUP=0        rounds run first and discarded
#   BENCH_PLAIN=0         1: the frame files are `many_frames` without --host
#                         (1.3 KB records sharing nothing, as "Streaming readers")
#   BENCH_PROC_DIR=0      1: `export --format proc-dir` too (5 files per process
#                         written and synced: bound by the disk, ~45 s per
#                         60,000 processes; BENCH_TMP on tmpfs takes the disk out)
#   BENCH_TIMEOUT=600     seconds a command may take
#   BENCH_COMMANDS=       only these commands (names as in the tables, space-
#                         separated, e.g. "floor verify explain"); all by default
#   BENCH_TMP=/tmp        where the work directory is made (removed at the end)
#
# The inputs, written in the work directory (nothing live is read, no
# process is started but these tools and proctape):
#   fFxN     `many_frames --host F N` (tests/shapes/many_frames.h): F frames of
#            N idle workers with a real capture's bytes, unchanged records
#            stored as references to the previous frame, as a version 2
#            capture of idle workers is (f1x10k f10x10k f50x10k f1x30k f10x30k, or
#            any F from 1 to 1000 and N up to 100000)
#   recN     `replay_bench --procs N --keep`'s retry.ptape: a never-exec'd
#            sandbox's 5 s retry loop (51 attempts, NO_MATCH) recorded on an
#            in-memory host of N idle workers, as `lab never-exec --record`
#            records it on a live host (two whole-host frames and the tape):
#            ~0.1 M observations at N=1000, ~1 M at N=10000
# On each, every round runs each command once under bench/timeit (user+system
# CPU and peak RSS from wait4, wall time), the first command rotating each
# round; each must exit 0 (a failure stops the run, with its message):
#   floor            bench/decode_floor F
#   verify, show, tree (frame L, the last), diff (frames 0 and L; a one-frame
#   file against a copy of itself: `diff F F` is refused there, one frame with
#   itself), export --format json|dot|csv|sqlite (proc-dir with
#   BENCH_PROC_DIR=1), sql -c 'SELECT count(*) FROM processes' without and
#   with --db; on recordings also replay, explain and corpus check (a corpus
#   directory holding the file, made by `corpus add`: only a recording can be
#   a corpus entry, a capture holds no resolution to replay).
# Prints (stdout; progress on stderr) markdown tables of medians: per input and
# command the CPU ms, × floor, the CPU target, peak RSS MiB, its target and
# whether both are met; then the inputs (bytes, what the floor decoded, the
# SQLite database's size and bytes per record).
set -euo pipefail
bench_name=readers_floor_bench
here=$(cd "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"

[[ $# -eq 1 ]] || usage_error "usage: bash bench/readers_floor_bench.sh BUILD" \
  "       (BENCH_INPUTS=\"f1x10k f10x10k f50x10k f1x30k f10x30k rec1k rec10k\" BENCH_ROUNDS=5 BENCH_TMP=/tmp)"
[[ -d $1 ]] || bench_fail "not a build directory: $1"
build=$(cd "$1" && pwd)
proctape=$build/cli/proctape
floor=$build/bench/decode_floor
many_frames=$build/tests/many_frames
replay_bench=$build/bench/replay_bench
need_built "$proctape" "cmake --build BUILD --target proctape"
need_built "$floor" "cmake --build BUILD --target decode_floor"
need_tool cc gcc
need_tool jq

inputs=${BENCH_INPUTS:-f1x10k f10x10k f50x10k f1x30k f10x30k rec1k rec10k}
rounds=${BENCH_ROUNDS:-5}
warmup=${BENCH_WARMUP:-0}
limit=${BENCH_TIMEOUT:-600}
need_count BENCH_ROUNDS "$rounds"
need_whole BENCH_WARMUP "$warmup"
need_count BENCH_TIMEOUT "$limit"
for input in $inputs; do
  if [[ $input =~ ^f([1-9][0-9]*)x([1-9][0-9]*)(k?)$ ]]; then
    need_built "$many_frames" "cmake --build BUILD --target many_frames"
  elif [[ $input =~ ^rec([1-9][0-9]*)(k?)$ ]]; then
    need_built "$replay_bench" "cmake --build BUILD --target replay_bench"
  else
    bench_fail "bad input in BENCH_INPUTS: $input (fFxN or recN, N may end in k)"
  fi
done

start_work readers-floor-bench
trap 'rm -rf -- "$work"' EXIT
build_timeit "$work"

query='SELECT count(*) FROM processes'
# Command names; each input runs those of its kind (frames: a capture file,
# rec: a recording).
frames_commands=(floor verify show tree diff "export json" "export dot" "export csv" "export sqlite")
[[ ${BENCH_PROC_DIR:-0} == 1 ]] && frames_commands+=("export proc-dir")
frames_commands+=(sql "sql --db")
rec_commands=(floor verify replay show tree diff explain "export json" "export dot" "export csv"
  "export sqlite")
[[ ${BENCH_PROC_DIR:-0} == 1 ]] && rec_commands+=("export proc-dir")
rec_commands+=("corpus check" sql "sql --db")
# only_commands NAME...: the names BENCH_COMMANDS keeps, in their order (floor always).
only_commands() {
  local name kept=()
  for name in "$@"; do
    if [[ -z ${BENCH_COMMANDS:-} || $name == floor || " $BENCH_COMMANDS " == *" $name "* ]]; then
      kept+=("$name")
    fi
  done
  printf '%s\n' "${kept[@]}"
}
mapfile -t frames_commands < <(only_commands "${frames_commands[@]}")
mapfile -t rec_commands < <(only_commands "${rec_commands[@]}")

# argv_of NAME: the command line of NAME on $file (frames $frames), in argv.
argv_of() {
  local last=$((frames - 1)) p=$proctape
  case $1 in
    floor) argv=("$floor" "$file") ;;
    verify) argv=("$p" verify "$file") ;;
    replay) argv=("$p" replay "$file") ;;
    show) argv=("$p" show "$file") ;;
    tree) argv=("$p" tree "$file" --frame "$last") ;;
    diff)
      if ((frames > 1)); then argv=("$p" diff "$file" --frames 0 "$last"); else argv=("$p" diff "$file" "$work/copy.ptape"); fi ;;
    explain) argv=("$p" explain "$file") ;;
    "export json") argv=("$p" export "$file" --format json -o "$work/out.json" --force) ;;
    "export dot") argv=("$p" export "$file" --format dot --frame "$last" -o "$work/out.dot" --force) ;;
    "export csv") argv=("$p" export "$file" --format csv -o "$work/csv" --force) ;;
    "export sqlite") argv=("$p" export "$file" --format sqlite -o "$work/out.sqlite" --force) ;;
    "export proc-dir") argv=("$p" export "$file" --format proc-dir --frame "$last" -o "$work/frame" --force) ;;
    "corpus check") argv=("$p" corpus check "$work/corpus") ;;
    sql) argv=("$p" sql "$file" -c "$query") ;;
    "sql --db") argv=("$p" sql "$file" --db "$work/db.sqlite" -c "$query") ;;
    *) bench_fail "unknown command $1" ;;
  esac
}
# The targets (the brief of this benchmark): CPU × floor, and peak RSS MiB.
cpu_target() {
  case $1 in
    verify) echo 1.5 ;; replay) echo 2 ;; show | tree | diff) echo 2.5 ;;
    explain | sql | "sql --db") echo 3 ;; *) echo - ;;
  esac
}
rss_target() {
  case $1 in
    floor) echo - ;; sql) echo "2x db" ;; "sql --db") echo 128 ;; *) echo 64 ;;
  esac
}
# Thousands: 10k is 10000.
count_of() { [[ $2 == k ]] && echo $(($1 * 1000)) || echo "$1"; }

rows=()
sizes=()
failures=()
for input in $inputs; do
  file=$work/$input.ptape
  if [[ $input =~ ^f([0-9]+)x([0-9]+)(k?)$ ]]; then
    frames=${BASH_REMATCH[1]}
    n=$(count_of "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}")
    host=--host
    [[ ${BENCH_PLAIN:-0} == 1 ]] && host=
    "$many_frames" $host "$frames" "$n" "$file"
    label="$frames × $n"
    commands=("${frames_commands[@]}")
  else
    [[ $input =~ ^rec([0-9]+)(k?)$ ]]
    n=$(count_of "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}")
    mkdir -p "$work/rb"
    "$replay_bench" --procs "$n" --rounds 1 --warmup 0 --dir "$work/rb" --keep >/dev/null
    mv -- "$work/rb/retry.ptape" "$file"
    rm -rf -- "$work/rb"
    frames=2
    label="rec $n"
    commands=("${rec_commands[@]}")
    rm -rf -- "$work/corpus"
    "$proctape" corpus add "$file" --corpus "$work/corpus" >/dev/null
  fi
  floor_line=$("$floor" "$file")
  # diff of a one-frame file: against a copy (`diff F F` of one frame is refused: no change to show)
  ((frames > 1)) || cp -- "$file" "$work/copy.ptape"
  db_bytes=0 db_rows=0
  got() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$floor_line"; }
  rm -f -- "$work/db.sqlite"
  if "$proctape" sql "$file" --db "$work/db.sqlite" -c "$query" >/dev/null 2>&1; then
    db_bytes=$(stat -c %s "$work/db.sqlite")
    db_rows=$(($(got records) + $(got observations)))
  fi
  sizes+=("$(awk -v l="$label" -v b="$(stat -c %s "$file")" -v r="$(got records)" -v o="$(got observations)" \
    -v d="$(got decoded_bytes)" -v db="$db_bytes" -v rows="$db_rows" \
    'BEGIN {
       if (db > 0) printf "| %s | %d | %d | %d | %.1f | %.1f | %.0f |", l, b, r, o, d / 1048576, db / 1048576, (rows > 0 ? db / rows : 0)
       else printf "| %s | %d | %d | %d | %.1f | refused | - |", l, b, r, o, d / 1048576
     }')")
  log "$label: $(stat -c %s "$file") bytes, $floor_line; $((warmup + rounds)) rounds"
  for ((i = 0; i < ${#commands[@]}; i++)); do : >"$work/t$i"; rm -f -- "$work/f$i"; done
  for ((r = 0; r < warmup + rounds; r++)); do
    for ((k = 0; k < ${#commands[@]}; k++)); do
      i=$(((k + r) % ${#commands[@]}))
      argv_of "${commands[$i]}"
      out=$work/t$i
      ((r < warmup)) && out=$work/discard
      rm -rf -- "$work/frame" "$work/csv"
      [[ ${commands[$i]} == "sql --db" ]] && rm -f -- "$work/db.sqlite"
      if ! "$work/timeit" "$out" timeout "$limit" "${argv[@]}" >/dev/null 2>"$work/err"; then
        ((i == 0)) && bench_fail "the floor failed on $label: $(head -1 "$work/err")"
        echo "\`${commands[$i]}\` on $label: exit $(tail -1 "$out" | cut -d' ' -f5): $(head -1 "$work/err" | cut -c1-300)" >"$work/f$i"
      fi
    done
    log "$label: round $((r + 1)) of $((warmup + rounds)); load $(cut -d' ' -f1-3 /proc/loadavg)"
  done
  floor_cpu=$(awk '{print ($2 + $3) * 1000}' "$work/t0" | median)
  for ((i = 0; i < ${#commands[@]}; i++)); do
    name=${commands[$i]}
    cpu=$(awk '{print ($2 + $3) * 1000}' "$work/t$i" | median)
    wall=$(awk '{print $1 * 1000}' "$work/t$i" | median)
    rss=$(awk '{print $4 / 1024}' "$work/t$i" | median)
    note=
    if [[ -e $work/f$i ]]; then
      failures+=("$(<"$work/f$i")")
      note=" (exit $(awk '{print $5}' "$work/t$i" | sort -u | tr '\n' ' ' | sed 's/ $//'))"
    fi
    rows+=("$(awk -v l="$label" -v c="$name" -v note="$note" -v u="$cpu" -v f="$floor_cpu" -v w="$wall" -v m="$rss" \
      -v ct="$(cpu_target "$name")" -v rt="$(rss_target "$name")" -v db="$db_bytes" \
      'BEGIN {
         x = u / (f > 0 ? f : 1)
         cpu_ok = (ct == "-") ? "" : (x <= ct + 0 ? "met" : "missed")
         if (rt == "-") rss_ok = ""
         else if (rt == "2x db" && db == 0) { rss_ok = ""; rt = "- (no db)" }
         else if (rt == "2x db") { rss_ok = (m * 1048576 <= 2 * db ? "met" : "missed"); rt = sprintf("%.0f (2× db)", 2 * db / 1048576) }
         else rss_ok = (m <= rt + 0 ? "met" : "missed")
         if (note != "") { cpu_ok = (ct == "-") ? "" : "refused"; rss_ok = (rt == "-") ? "" : "refused" }
         printf "| %s | `%s`%s | %.0f | %.2f× | %s %s | %.0f | %.0f | %s %s |", l, c, note, u, x, ct, cpu_ok, w, m, rt, rss_ok
       }')")
  done
done

echo
echo "readers_floor_bench: $(uname -sr), $(nproc) cores; medians of $rounds rounds ($warmup discarded);" \
  "load average $load_start at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end; $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "| input | command | CPU ms | × floor | CPU target | wall ms | peak RSS MiB | RSS target MiB |"
echo "|---|---|---:|---:|---|---:|---:|---|"
printf '%s\n' "${rows[@]}"
echo
echo "| input | file bytes | process records | observations | decoded MiB | \`sql --db\` file MiB | db bytes / record or observation |"
echo "|---|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${sizes[@]}"
if ((${#failures[@]})); then
  echo
  echo "Not exit 0 (the last failure of each command on each input):"
  echo
  printf '    %s\n' "${failures[@]}"
fi
