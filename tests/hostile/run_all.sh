#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What every read command costs on every hostile shape (tests/hostile/README.md).
#
#   run_all.sh [--check] PROCTAPE OUTDIR [CASE...]
#   run_all.sh --shapes PROCTAPE SHAPESDIR [CASE...]
#
# For each case (a shape of `hostile_file --list` at its defaults, or one of
# the variants below; CASE... runs only those), generates the file and a
# corpus of it, then runs each read command on it under
# `prlimit --as=$HOSTILE_AS` (512 MiB) and `timeout $HOSTILE_TIMEOUT` (120 s),
# one at a time, and prints a row: case, command, exit status, wall seconds,
# CPU seconds (user + system: what a busy host does not inflate), peak RSS
# (MiB, wait4's, by /usr/bin/time), bytes written (standard output and
# output files), flags, the first line of standard error. Every row is
# also in OUTDIR/table.tsv; OUTDIR/worst.tsv has the flagged rows, worst
# first. Flags:
#   TIME     over 30 s of CPU (explore: 60 s), the bound of docs/format.md
#            section 7: CPU, not wall, so that a busy host (ctest -j) does not
#            flag it; the wall clock is bounded by the timeout
#   MEM      peak RSS over 512 MiB (only without the address-space limit)
#   OOM      the command ran out of memory (its "out of memory" line, or
#            std::bad_alloc)
#   TIMEOUT  ended by the timeout;  SIGNAL  ended by another signal
#   TOKEN    an output (standard output or error, an output file; not export
#            --format json nor minimize's recording, lossless by design) holds
#            a 12-character piece of the recording's token as text, hex or
#            base64
#   MASK     a token shorter than that (too short to be a piece of anything)
#            was masked inside proctape's own words: a '*' between letters on
#            standard output or error ("hos*ile", "s*ar*ed a* *ick")
# --check exits 1 when any row is flagged (the ctests hostile/bounds and
# hostile/bounds/explore, tests/hostile/CMakeLists.txt).
# The token search: once per case the generator's --token-patterns (every
# piece as text, hex, base64 at each alignment); then one case-folded
# `grep -aiF -f` over a command's non-empty outputs (LC_ALL=C), a superset
# of `hostile_file --find-token`.
#
# --shapes generates the cases into SHAPESDIR and runs nothing (the ctest
# fixture hostile/shapes); with HOSTILE_SHAPES=SHAPESDIR a run reads each
# case from there when it was made by the same generator with the same
# parameters (its `stamp`), and makes it itself otherwise. Commands only
# read the shared file and corpus: their outputs stay in OUTDIR.
#
# Environment: HOSTILE_FILE (the generator; default: beside PROCTAPE's build,
# tests/hostile/hostile_file), HOSTILE_AS (bytes, or "unlimited"),
# HOSTILE_TIMEOUT (s), HOSTILE_SHAPES (above), HOSTILE_COMMANDS (a space-separated subset of the
# commands below). Outputs are removed after each command (OUTDIR keeps the
# shapes and the tables). The whole table takes some 6 minutes of CPU
# (explore 3 of them), as ctest's hostile/bounds and hostile/bounds/explore.
set -u
check=0 shapes_only=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
if [ "${1:-}" = "--shapes" ]; then shapes_only=1; shift; fi
if [ $# -lt 2 ]; then
  echo "usage: run_all.sh [--check] PROCTAPE OUTDIR [CASE...] | --shapes PROCTAPE SHAPESDIR [CASE...]" >&2
  exit 2
fi
proctape=$(realpath "$1") outdir=$2; shift 2
gen=${HOSTILE_FILE:-$(dirname "$proctape")/../tests/hostile/hostile_file}
as=${HOSTILE_AS:-$((512 << 20))}
limit_s=${HOSTILE_TIMEOUT:-120}
commands=${HOSTILE_COMMANDS:-"verify show tree diff replay replay-frames explain export-json
  export-dot export-proc-dir export-sqlite export-csv sql ownership corpus-check corpus-list explore
  minimize"}
search_cap=$((64 << 20))  # outputs larger than this are counted, not searched
export LC_ALL=C  # bytes, not characters, for grep
shared=${HOSTILE_SHAPES:-}
[ -n "$shared" ] && [ -d "$shared" ] && shared=$(realpath "$shared")
for tool in "$gen" /usr/bin/time /usr/bin/prlimit timeout; do
  command -v "$tool" >/dev/null || { echo "run_all.sh: $tool not found" >&2; exit 2; }
done
mkdir -p "$outdir" || exit 2
outdir=$(realpath "$outdir")

# Variants beside every shape at its defaults: name, shape, parameters.
# (Stars and chains of growing size: explore and minimize grow with the host;
# a chain's every process is an ancestor minimize must keep. Padded: the
# header holds 1,000,000 incompressible bytes more, so the reader's budget is
# 8 GiB before the costly chunk comes: what one chunk makes is bounded
# apart, docs/format.md section 7.)
variants="prev-frame-chain-1 prev-frame-chain records=1
prev-frame-uncounted-unknown prev-frame-uncounted field=unknown
prev-frame-fields-status prev-frame-fields read=status
blob-copy-limit-17 blob-copy-limit blobs=1 bytes=15728640 refs=17
record-limit-stat record-limit form=stat
many-chunks-parts many-chunks kind=parts
many-chunks-batches many-chunks kind=batches
star-250 star-recording n=250
star-500 star-recording n=500
star-2000 star-recording n=2000
chain-250 chain-recording n=250 frames=1
chain-500 chain-recording n=500 frames=1
chain-2000 chain-recording n=2000 frames=1
chain-cut chain-recording deadline_ms=1000 cut=1
same-as-listing-padded same-as-listing --pad 1000000
same-as-tape-padded same-as-tape --pad 1000000
huge-verdict-padded huge-verdict --pad 1000000
blob-copy-limit-padded blob-copy-limit --pad 1000000
prev-frame-chain-padded prev-frame-chain --pad 1000000
prev-frame-fields-padded prev-frame-fields --pad 1000000"
# Cases that check only the commands that hold every frame (what a command
# holds, docs/format.md section 7): the streaming readers read them as they
# read the same shapes unpadded (some 2 minutes more of CI for no new bound).
holders_cases=" prev-frame-chain-padded prev-frame-fields-padded "
holders_commands=" replay-frames export-sqlite export-csv sql ownership explore minimize "
all_cases=$("$gen" --list | awk -F'\t' '{print $1 " " $1}'; echo "$variants")
if [ $# -gt 0 ]; then
  all_cases=$(echo "$all_cases" | awk -v want=" $* " 'index(want, " " $1 " ") > 0')
fi

# The arguments of COMMAND on file F (case dir D, the generator's pid P and
# token T, R recorded resolutions), into the array run_args.
args_of() {
  local cmd=$1 f=$2 d=$3 p=$4 t=$5 r=$6
  case $cmd in
    verify | show | tree | diff | replay | explain) run_args=("$cmd" "$f") ;;
    replay-frames)
      run_args=(replay "$f" --model frames)
      [ "$r" = 0 ] && run_args+=(--root 1000 --root-start 50000 --token "${t:-x}"
        --exe-identity 2051:1311) ;;
    export-*) run_args=(export "$f" --format "${cmd#export-}" -o "$d/out/x.${cmd#export-}") ;;
    sql) run_args=(sql "$f" -c 'SELECT * FROM processes LIMIT 1000'
      -c 'SELECT * FROM observations LIMIT 1000' -c 'SELECT * FROM resolutions LIMIT 1000') ;;
    ownership)  # --self: a process of the file (1 when it holds none)
      [ -n "$p" ] && [ "$p" != 0 ] || p=1
      run_args=(ownership --baseline "$outdir/baseline.ptape" --current "$f" --uid 0 --cgroup /
        --self "$p") ;;
    corpus-check) run_args=(corpus check "$src/corpus") ;;
    corpus-list) run_args=(corpus list "$src/corpus") ;;
    explore) run_args=(explore "$f") ;;
    minimize) run_args=(minimize "$f" -o "$d/out/x.min.ptape") ;;
  esac
}

# Flags of one run (see above).
flags_of() {
  local cmd=$1 status=$2 cpu=$3 rss_kib=$4 err=$5 leak=$6 masked=$7 f=""
  local bound=30
  [ "$cmd" = explore ] && bound=60
  awk -v w="$cpu" -v b="$bound" 'BEGIN { exit !(w > b) }' && f="$f TIME"
  [ "$rss_kib" -gt $((512 * 1024)) ] && f="$f MEM"
  grep -q -e "out of memory" -e "bad_alloc" "$err" && f="$f OOM"
  if [ "$status" = 124 ] || [ "$status" = 137 ]; then
    f="$f TIMEOUT"
  elif [ "$status" -ge 128 ]; then
    f="$f SIGNAL"
  fi
  [ -n "$leak" ] && f="$f TOKEN"
  [ -n "$masked" ] && f="$f MASK"
  echo "${f# }"
}

# Makes case NAME (SHAPE, PARAMS) in directory D: file.ptape (token-environ:
# named with a piece of its token), corpus/, info, patterns, and last stamp.
make_case() {
  local name=$1 shape=$2 params=$3 d=$4 token
  rm -rf "$d" && mkdir -p "$d"
  # shellcheck disable=SC2086
  "$gen" "$shape" "$d/file.ptape" $params --corpus "$d/corpus" >"$d/info" 2>"$d/gen.err" || return 1
  token=$(sed -n 's/^token=//p' "$d/info")
  if [ "$name" = token-environ ]; then  # a file name holding a piece of the token
    mv "$d/file.ptape" "$d/${token:0:16}.ptape"
  fi
  "$gen" --token-patterns "$token" >"$d/patterns" 2>>"$d/gen.err" || return 1
  echo "$stamp" >"$d/stamp"
}

if [ "$shapes_only" = 1 ]; then
  while read -r name shape params; do
    [ -n "$name" ] || continue
    stamp="$shape $params $(stat -L -c '%s %Y' "$(command -v "$gen")")"
    # A case that fails here is made (and its failure printed) by each run.
    make_case "$name" "$shape" "$params" "$outdir/$name" ||
      echo "run_all.sh: generator failed on $name: $(head -1 "$outdir/$name/gen.err")" >&2
  done <<<"$all_cases"
  echo "run_all.sh: $(echo "$all_cases" | grep -c .) cases in $outdir"
  exit 0
fi

# ownership's baseline: another capture (a small recording), so that the
# plan reads the hostile file as its current snapshot.
"$gen" star-recording "$outdir/baseline.ptape" n=3 clock=1 >/dev/null || exit 2

table=$outdir/table.tsv
printf 'case\tcommand\texit\twall_s\tcpu_s\trss_MiB\tout_bytes\tflags\tstderr\n' >"$table"
printf '%-28s %-15s %4s %7s %7s %7s %11s  %-14s %s\n' case command exit wall_s cpu_s rss_MiB \
  out_bytes flags stderr
while read -r name shape params; do
  [ -n "$name" ] || continue
  d=$outdir/$name
  stamp="$shape $params $(stat -L -c '%s %Y' "$(command -v "$gen")")"
  src=$d  # where the file, its corpus, info and patterns are
  if [ -n "$shared" ] && [ "$(cat "$shared/$name/stamp" 2>/dev/null)" = "$stamp" ]; then
    src=$shared/$name
    rm -rf "$d" && mkdir -p "$d"
  elif ! make_case "$name" "$shape" "$params" "$d"; then
    printf '%-28s %-15s generator failed: %s\n' "$name" - "$(head -1 "$d/gen.err")"
    continue
  fi
  token=$(sed -n 's/^token=//p' "$src/info") pid=$(sed -n 's/^pid=//p' "$src/info")
  resolutions=$(sed -n 's/^resolutions=//p' "$src/info")
  f=$src/file.ptape
  [ "$name" = token-environ ] && f=$src/${token:0:16}.ptape
  for cmd in $commands; do
    case "$holders_cases" in *" $name "*)
      case "$holders_commands" in *" $cmd "*) ;; *) continue ;; esac ;;
    esac
    args_of "$cmd" "$f" "$d" "$pid" "$token" "$resolutions"
    rm -rf "$d/out" && mkdir -p "$d/out"
    limit=(prlimit "--as=$as" --)
    [ "$as" = unlimited ] && limit=()
    /usr/bin/time -o "$d/time" -f '%M %e %U %S' timeout -k 5 "$limit_s" "${limit[@]}" "$proctape" "${run_args[@]}" \
      >"$d/stdout" 2>"$d/stderr" </dev/null
    status=$?
    read -r rss_kib wall user sys < <(tail -1 "$d/time")
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    out_bytes=$(find "$d/stdout" "$d/out" -type f -printf '%s\n' | awk '{n += $1} END {print n}')
    leak=""
    if [ "${#token}" -ge 12 ]; then  # the non-empty outputs up to the cap, in one pass
      # (a proc-dir export is thousands of files: xargs, not one process each)
      leak=$(find "$d/stdout" "$d/stderr" "$d/out" -type f -size +0 -size -$((search_cap + 1))c \
        ! -name 'x.json*' ! -name '*.ptape*' -print0 |
        xargs -0 -r grep -aoiF -H -m1 -f "$src/patterns" -- 2>/dev/null | head -1)
    fi
    masked=""
    if [ -n "$token" ] && [ "${#token}" -lt 12 ]; then
      mapfile -t outs < <(find "$d/stdout" "$d/stderr" -size +0)
      [ "${#outs[@]}" -gt 0 ] &&
        masked=$(grep -ah -m1 -o '[A-Za-z]\*\**[A-Za-z]' -- "${outs[@]}" | head -1)
    fi
    flags=$(flags_of "$cmd" "$status" "$cpu" "${rss_kib:-0}" "$d/stderr" "$leak" "$masked")
    first=$(head -1 "$d/stderr" | cut -c1-110)
    [ -n "$leak" ] && first="$first [${leak#"$d/"}]"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$cmd" "$status" "$wall" "$cpu" \
      $((${rss_kib:-0} / 1024)) "$out_bytes" "$flags" "$first" >>"$table"
    printf '%-28s %-15s %4s %7s %7s %7s %11s  %-14s %s\n' "$name" "$cmd" "$status" "$wall" "$cpu" \
      $((${rss_kib:-0} / 1024)) "$out_bytes" "${flags:--}" "$first"
  done
  rm -rf "$d/out" "$d/stdout" "$d/stderr"
done <<<"$all_cases"

# The flagged rows, worst first: timeouts, then out of memory, then by wall
# time and memory.
awk -F'\t' 'NR > 1 && $8 != "" {
  rank = ($8 ~ /TIMEOUT/) * 4 + ($8 ~ /OOM|MEM|SIGNAL/) * 2 + ($8 ~ /TIME/) + ($8 ~ /TOKEN|MASK/)
  print rank "\t" $0 }' "$table" | sort -t$'\t' -k1,1nr -k5,5gr -k7,7nr | cut -f2- >"$outdir/worst.tsv"
flagged=$(wc -l <"$outdir/worst.tsv")
echo "run_all.sh: $(($(wc -l <"$table") - 1)) runs, $flagged flagged: $table, $outdir/worst.tsv"
[ "$check" = 1 ] && [ "$flagged" -gt 0 ] && exit 1
exit 0
