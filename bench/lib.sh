# SPDX-License-Identifier: Apache-2.0
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
#   need_idle_helpers PROCTAPE    BUILD/bench/spawn_idle and idle_worker beside
#                                 BUILD/cli/PROCTAPE are built; sets bindir
#   need_tool TOOL [PACKAGE]      TOOL is on the PATH ("'TOOL' is required
#                                 (Debian: apt-get install PACKAGE)", TOOL by default)
#   need_count NAME VALUE         a whole number >= 1 ("NAME must be >= 1")
#   need_whole NAME VALUE         a whole number >= 0 ("NAME must be >= 0")
#   need_bench_n LOW HIGH LIST    each of LIST a whole number from LOW (0 or 1)
#                                 to HIGH ("bad N in BENCH_N: N")
#
# Room for many processes (bench/scale_bench.sh), root only:
#   raise_process_limits N  makes room for N processes more than the host runs
#       now (T tasks, /proc/loadavg's count of threads): kernel.pid_max and
#       kernel.threads-max are raised, never lowered, to at least T + N + 32768
#       (the kernel's default pid space stays free for everything else on the
#       host), and this shell's ulimit -u (RLIMIT_NPROC, soft and if need be
#       hard) to at least T + N. (The kernel does not hold root to RLIMIT_NPROC,
#       so for root only the two sysctls matter; ulimit -u is raised anyway so
#       that it is never what stops a run.) Every value is read before it is
#       written and restored exactly as read, in reverse order, by
#       restore_process_limits, which a trap runs: on EXIT after the EXIT trap
#       the script set before the call (so its workers are ended while the
#       limits still hold them; that trap must not call exit: bash keeps the
#       exit status without it), and INT, TERM, HUP, PIPE exit 130, 143, 129, 141 (and so
#       run the EXIT trap) unless the script trapped them already. Refuses in
#       one line, exit 2 (bench_fail, after restoring what it changed), when not
#       root, when T + N + 32768 is past the kernel's 4194304, or when a value
#       cannot be written or does not read back as written.
#       BENCH_SYSCTL_ROOT (default /proc/sys) is where the sysctls are: the
#       test of the restore (tests/bench/process_limits_test.sh) points it at
#       plain files.
#   restore_process_limits  writes back what raise_process_limits changed
#       (a line on standard error for a value that did not go back); keeps $?
#   limits_trap, raise_sysctl KEY MINIMUM, raise_nproc MINIMUM  its steps
#       (the test raises the real pid_max by one with the first two)
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
# The idle workers' programs built beside BUILD/cli/proctape ($1), in
# BUILD/bench: sets bindir, refuses when one is not built.
need_idle_helpers() {
  bindir=$(cd "$(dirname -- "$1")/../bench" && pwd)
  local helper
  for helper in spawn_idle idle_worker; do
    need_built "$bindir/$helper" "cmake --build BUILD --target $helper"
  done
}
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

limits_saved=()  # what raise_process_limits changed, in order: "sysctl VALUE PATH" or "nproc SOFT HARD"
limits_trapped=
raise_process_limits() { # N
  [[ $EUID -eq 0 ]] || bench_fail "raising pid_max for $1 processes needs root (EUID $EUID)"
  local tasks want
  tasks=$(cut -d' ' -f4 /proc/loadavg)
  tasks=${tasks#*/}
  want=$((tasks + $1 + 32768))
  ((want <= 4194304)) || bench_fail "$1 processes need pid_max $want, past the kernel's 4194304"
  limits_trap
  raise_sysctl kernel/pid_max "$want"
  raise_sysctl kernel/threads-max "$want"
  raise_nproc $((tasks + $1))
}
limits_trap() {
  [[ -n $limits_trapped ]] && return 0
  limits_trapped=1
  local before sig code
  before=$(trap -p EXIT)   # trap -- 'COMMANDS' EXIT, quoted for eval
  before=${before#"trap -- "}
  before=${before%" EXIT"}
  [[ -n $before ]] && eval "before=$before"
  # SIGPIPE ignored and errexit off first: a run piped into `head` whose
  # EXIT trap writes a line would otherwise die of it, or of the failed
  # write, before the limits are restored.
  trap -- "trap '' PIPE; set +e"$'\n'"$before"$'\n''restore_process_limits' EXIT
  # PIPE too: a run piped into `head` dies of it, which would skip the
  # EXIT trap and leave the limits raised.
  for sig in INT:130 TERM:143 HUP:129 PIPE:141; do
    code=${sig#*:}
    sig=${sig%:*}
    [[ -n $(trap -p "$sig") ]] || trap -- "exit $code" "$sig"
  done
}
raise_sysctl() { # KEY (as under /proc/sys) MINIMUM
  local path=${BENCH_SYSCTL_ROOT:-/proc/sys}/$1 old now
  { old=$(<"$path"); } 2>/dev/null || bench_fail "cannot read $path"
  [[ $old =~ ^[0-9]+$ ]] || bench_fail "$path holds '$old', not a number"
  ((old >= $2)) && return 0
  limits_saved+=("sysctl $old $path")
  { printf '%s\n' "$2" >"$path"; } 2>/dev/null || bench_fail "cannot set $path to $2 (it holds $old)"
  { now=$(<"$path"); } 2>/dev/null || now=
  [[ $now == "$2" ]] || bench_fail "set $path to $2, it reads back '$now'"
}
raise_nproc() { # MINIMUM
  local soft hard
  soft=$(ulimit -S -u)
  hard=$(ulimit -H -u)
  [[ $soft == unlimited ]] || ((soft >= $1)) && return 0
  limits_saved+=("nproc $soft $hard")
  if [[ $hard != unlimited ]] && ((hard < $1)); then
    ulimit -H -u "$1" 2>/dev/null || bench_fail "cannot raise ulimit -u (hard) from $hard to $1"
  fi
  ulimit -S -u "$1" 2>/dev/null || bench_fail "cannot raise ulimit -u from $soft to $1"
}
restore_process_limits() {
  local rc=$? i kind path value now
  for ((i = ${#limits_saved[@]} - 1; i >= 0; i--)); do
    read -r kind value path <<<"${limits_saved[$i]}"
    if [[ $kind == nproc ]]; then   # value: the soft limit, path: the hard one
      { ulimit -S -u "$value" && ulimit -H -u "$path"; } 2>/dev/null ||
        echo "$bench_name: could not restore ulimit -u to $value (hard $path)" >&2
      continue
    fi
    { printf '%s\n' "$value" >"$path"; } 2>/dev/null || true
    { now=$(<"$path"); } 2>/dev/null || now=
    [[ $now == "$value" ]] || echo "$bench_name: could not restore $path to $value (it reads '$now')" >&2
  done
  limits_saved=()
  return "$rc"
}
