#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/lib.sh's raise_process_limits (bench/scale_bench.sh): every value it
# raised goes back exactly as read, after a failing run and on INT and TERM,
# after the script's own EXIT trap; it refuses in one line when not root or
# when a value cannot be set. One ctest test per case (tests/CMakeLists.txt,
# label bench).
#   process_limits_test.sh CASE SOURCE_DIR
# The sysctls are plain files of a temporary BENCH_SYSCTL_ROOT, but for
# real_pid_max_after_a_failing_run, which raises the real kernel.pid_max by
# one (a harmless change: one more pid may be allocated) and checks that it
# reads as before. Each case runs a small bench script (bash) and ends it.
set -euo pipefail

case_name=${1:?case} source_dir=${2:?source dir}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/proctape-limits-test.XXXXXX")
chmod 755 "$tmp"
trap 'rm -rf -- "$tmp"' EXIT

fail() {
  printf 'FAIL %s: %s\n' "$case_name" "$*" >&2
  exit 1
}
skip() {
  printf 'SKIP %s: %s\n' "$case_name" "$*" >&2
  exit 77
}

# A fake /proc/sys whose values must be raised for 10 processes.
mkdir -p "$tmp/sys/kernel"
printf '300\n' >"$tmp/sys/kernel/pid_max"
printf '400\n' >"$tmp/sys/kernel/threads-max"
cp -a "$tmp/sys" "$tmp/sys.before"

# bench SCRIPT_BODY: runs, as a bench script, lib.sh, an EXIT trap that notes
# pid_max as it is when the trap runs (the limits must still be raised then),
# and SCRIPT_BODY. Its status in $status, its stderr in $tmp/err.
bench() {
  cat >"$tmp/bench.sh" <<EOF
set -euo pipefail
bench_name=limits_bench
source '$source_dir/bench/lib.sh'
trap 'cat "\${BENCH_SYSCTL_ROOT:-/proc/sys}/kernel/pid_max" >"$tmp/at_exit"' EXIT
$1
EOF
  chmod 644 "$tmp/bench.sh"
  : >"$tmp/at_exit"
  chmod 666 "$tmp/at_exit"
  status=0
  "${runner[@]}" bash "$tmp/bench.sh" >"$tmp/out" 2>"$tmp/err" || status=$?
}
runner=(env "BENCH_SYSCTL_ROOT=$tmp/sys")
# The fake sysctls read exactly as before the run.
restored() {
  diff -r "$tmp/sys.before" "$tmp/sys" >/dev/null || fail "not restored: $(grep -r . "$tmp/sys")"
  cmp -s "$tmp/sys.before/kernel/pid_max" "$tmp/sys/kernel/pid_max" || fail "pid_max bytes differ"
}
raised_at_exit() {
  [[ -s $tmp/at_exit ]] || fail "the script's EXIT trap did not run; stderr: $(cat "$tmp/err")"
  (($(<"$tmp/at_exit") > 300)) || fail "pid_max was $(<"$tmp/at_exit") in the script's EXIT trap: restored before it"
}
one_line() { # WORDS: stderr is one line "limits_bench: ..." naming each
  [[ $(wc -l <"$tmp/err") -eq 1 ]] || fail "not one line on stderr: $(cat "$tmp/err")"
  local word
  for word in "limits_bench: " "$@"; do
    grep -qF -- "$word" "$tmp/err" || fail "stderr does not name '$word': $(cat "$tmp/err")"
  done
}
need_root() { [[ $EUID -eq 0 ]] || skip "raise_process_limits needs root"; }

restored_after_a_failing_run() {
  need_root
  bench 'raise_process_limits 10
[[ $(<"$BENCH_SYSCTL_ROOT/kernel/pid_max") != 300 ]] || exit 9
false
echo not reached'
  ((status == 1)) || fail "exited $status, not 1 (set -e); stderr: $(cat "$tmp/err")"
  raised_at_exit
  restored
}

restored_on_term() { signalled TERM 143; }
restored_on_int() { signalled INT 130; }
# A run piped into `head`: its writes then fail with SIGPIPE, and so does
# the EXIT trap's own line; the limits must still go back.
restored_on_pipe() {
  need_root
  cat >"$tmp/bench.sh" <<EOF
set -euo pipefail
bench_name=limits_bench
source '$source_dir/bench/lib.sh'
trap 'echo "cleanup line" >&2; cat "\${BENCH_SYSCTL_ROOT}/kernel/pid_max" >"$tmp/at_exit"' EXIT
raise_process_limits 10
while :; do echo line >&2; sleep 0.01; done
EOF
  : >"$tmp/at_exit"
  "${runner[@]}" bash "$tmp/bench.sh" 2>&1 | head -1 >/dev/null || true  # head ends first: status 141
  sleep 0.5  # the script's EXIT trap runs after head has gone
  raised_at_exit
  restored
}
signalled() { # SIGNAL STATUS
  need_root
  bench "raise_process_limits 10
kill -$1 \$\$
sleep 5
echo not reached"
  ((status == $2)) || fail "exited $status, not $2 on SIG$1; stderr: $(cat "$tmp/err")"
  raised_at_exit
  restored
}

refuses_a_value_that_cannot_be_set() {
  need_root
  # Read-only even for root (mode 0444): pid_max is raised first, then
  # threads-max cannot be; pid_max must go back.
  rm "$tmp/sys/kernel/threads-max" "$tmp/sys.before/kernel/threads-max"
  ln -s /proc/sys/kernel/ngroups_max "$tmp/sys/kernel/threads-max"
  ln -s /proc/sys/kernel/ngroups_max "$tmp/sys.before/kernel/threads-max"
  bench 'raise_process_limits 100000
echo not reached'
  ((status == 2)) || fail "exited $status, not 2; stderr: $(cat "$tmp/err")"
  one_line "cannot set $tmp/sys/kernel/threads-max"
  grep -q 'not reached' "$tmp/out" && fail "went on after the refusal"
  restored
}

refuses_when_not_root() {
  if [[ $EUID -eq 0 ]]; then
    runner=(setpriv --reuid=65534 --regid=65534 --clear-groups env "BENCH_SYSCTL_ROOT=$tmp/sys")
  fi
  bench 'raise_process_limits 10
echo not reached'
  ((status == 2)) || fail "exited $status, not 2; stderr: $(cat "$tmp/err")"
  one_line "needs root"
  restored
}

real_pid_max_after_a_failing_run() {
  need_root
  local before
  before=$(cat /proc/sys/kernel/pid_max)
  ((before < 4194304)) || skip "pid_max is already the kernel's most (4194304)"
  [[ -w /proc/sys/kernel/pid_max ]] || skip "/proc/sys/kernel/pid_max is not writable here (a read-only /proc/sys)"
  runner=(env -u BENCH_SYSCTL_ROOT)
  bench "limits_trap
raise_sysctl kernel/pid_max $((before + 1))
[[ \$(cat /proc/sys/kernel/pid_max) == $((before + 1)) ]] || exit 9
false"
  ((status == 1)) || fail "exited $status, not 1; stderr: $(cat "$tmp/err")"
  [[ $(<"$tmp/at_exit") == $((before + 1)) ]] || fail "pid_max was not raised in the EXIT trap: $(<"$tmp/at_exit")"
  [[ $(cat /proc/sys/kernel/pid_max) == "$before" ]] ||
    fail "pid_max is $(cat /proc/sys/kernel/pid_max), was $before"
}

"$case_name"
echo "ok $case_name"
