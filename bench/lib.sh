# Pieces the bench scripts share; sourced, never run. The sourcing script
# sets bench_name (its name, for messages) before it calls them.
#   median          the median of the numbers on standard input ("nan" for none)
#   build_timeit D  compiles bench/timeit.c (wall time and peak RSS of a
#                   command) into D/timeit
#   log TEXT        a progress line on standard error, stamped with the time
#   absolute PATH   PATH from the root
#   start_work NAME makes the work directory $work, BENCH_TMP/proctape-NAME.XXXXXX
#                   (/tmp by default), notes the load average now in $load_start,
#                   and ends the script on INT (130) and TERM (143), so that its
#                   EXIT trap (set by the script) runs
#
# Argument checks: each passes, or says what is wrong in one line
# "bench_name: ..." on standard error and exits 2 (bench_fail).
#   usage_error LINE...           says LINEs (the script's usage) and exits 2
#   need_executable PATH [SHOWN]  PATH is an executable regular file
#                                 ("not an executable: SHOWN", PATH by default)
#   need_built PATH HOW           PATH is executable ("PATH not built (HOW)")
#   need_tool TOOL [PACKAGE]      TOOL is on the PATH ("'TOOL' is required
#                                 (Debian: apt-get install PACKAGE)", TOOL by default)
#   need_count NAME VALUE         a whole number >= 1 ("NAME must be >= 1")
#   need_whole NAME VALUE         a whole number >= 0 ("NAME must be >= 0")
#   need_bench_n LOW HIGH LIST    each of LIST a whole number from LOW (0 or 1)
#                                 to HIGH ("bad N in BENCH_N: N")
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
build_timeit() { cc -O2 -Wall -Wextra -o "$1/timeit" "$(dirname -- "${BASH_SOURCE[0]}")/timeit.c"; }
log() { printf '[%(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
absolute() { echo "$(cd "$(dirname -- "$1")" && pwd)/$(basename -- "$1")"; }
start_work() {
  work=$(mktemp -d "${BENCH_TMP:-/tmp}/proctape-$1.XXXXXX")
  load_start=$(cut -d' ' -f1-3 /proc/loadavg)
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

bench_fail() { echo "$bench_name: $*" >&2; exit 2; }
usage_error() { printf '%s\n' "$@" >&2; exit 2; }
need_executable() { [[ -x $1 && -f $1 ]] || bench_fail "not an executable: ${2-$1}"; }
need_built() { [[ -x $1 ]] || bench_fail "$1 not built ($2)"; }
need_tool() { command -v "$1" >/dev/null || bench_fail "'$1' is required (Debian: apt-get install ${2:-$1})"; }
need_count() { [[ $2 =~ ^[1-9][0-9]*$ ]] || bench_fail "$1 must be >= 1"; }
need_whole() { [[ $2 =~ ^[0-9]+$ ]] || bench_fail "$1 must be >= 0"; }
need_bench_n() {
  local first='[0-9]' n
  [[ $1 == 1 ]] && first='[1-9]'
  for n in $3; do
    [[ $n =~ ^$first[0-9]*$ && $n -le $2 ]] || bench_fail "bad N in BENCH_N: $n"
  done
}
