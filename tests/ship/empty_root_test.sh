#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The static binary in an empty root (README "Install"): bwrap gives it a
# root holding the binary alone (/proctape, read-only), a fresh /proc and a
# tmpfs /tmp -- no /dev, no /etc, no C library, no shell -- and it must work
# there:
#   1. --version (it says portable);
#   2. capture of what it can see (its own PID namespace: bwrap and itself)
#      to standard output, and verify of that file from standard input;
#   3. fingerprint + resolve of a sandboxed sleep the test starts outside:
#      this root shares the host's PID namespace (every namespace bwrap
#      offers is unshared but that one), so its /proc is the host's. The
#      expected executable is named through the root process's own root
#      directory (/proc/ROOT/root/bin/sleep: the host's /bin/sleep, its
#      device and inode, from a root that has no /bin); the fingerprint
#      file is bound read-only. The verdict must name the sleep's host pid;
#   4. verify, replay --json of each corpus file, and corpus check of the
#      whole corpus (bound read-only at /corpus): each output and exit
#      status the same as the same binary's outside, on the host.
#   empty_root_test.sh PROCTAPE SOURCE_DIR [RUNNER]
# RUNNER: a static emulator for a binary of another architecture
# (qemu-aarch64-static for the aarch64 binary, scripts/cross_check.sh): it
# is bound into the root beside the binary (/runner) and runs it, inside
# and outside alike; the root holds nothing else.
# Exit 77 (skipped) where bwrap cannot make the namespaces. Every process
# the test starts is ended by its pid when it ends.
set -euo pipefail

bin=$(realpath "${1:?usage: empty_root_test.sh PROCTAPE SOURCE_DIR}")
source_dir=$(realpath "${2:?usage: empty_root_test.sh PROCTAPE SOURCE_DIR}")
runner=${3:+$(realpath "$(command -v "$3")")}
if [[ -n $runner ]]; then
  run_in=(/runner /proctape) run_out=("$runner" "$bin") bind_runner=(--ro-bind "$runner" /runner)
else
  run_in=(/proctape) run_out=("$bin") bind_runner=()
fi
corpus=$source_dir/corpus
tmp=$(mktemp -d "${TMPDIR:-/tmp}/proctape-empty-root.XXXXXX")
sandbox=
cleanup() {
  if [[ -n $sandbox ]]; then kill -KILL "$sandbox" 2>/dev/null || true; wait "$sandbox" 2>/dev/null || true; fi
  rm -rf -- "$tmp"
}
trap cleanup EXIT

fail() {
  echo "empty_root_test: FAIL: $*" >&2
  exit 1
}
say() { echo "empty_root_test: $*"; }

# The root: the binary, /proc, /tmp. `alone` unshares every namespace;
# `host_pids` every one but the PID namespace, and the user namespace: the
# host's PID namespace belongs to the host's user namespace, so mounting its
# procfs and reading /proc/PID/root of a host process need root's
# capabilities there (root only: part 3 is skipped otherwise).
alone=(bwrap --unshare-all --die-with-parent --proc /proc --tmpfs /tmp --ro-bind "$bin" /proctape
  "${bind_runner[@]}")
host_pids=(bwrap --unshare-ipc --unshare-net --unshare-uts --unshare-cgroup-try
  --die-with-parent --proc /proc --tmpfs /tmp --ro-bind "$bin" /proctape "${bind_runner[@]}")

command -v bwrap >/dev/null || { say "skipped: no bwrap"; exit 77; }
if ! bwrap --unshare-all --ro-bind / / --proc /proc true 2>"$tmp/err"; then
  say "skipped: bwrap cannot make the namespaces here: $(head -n1 "$tmp/err")"
  exit 77
fi

# ---- 1. --version -------------------------------------------------------------
version=$("${alone[@]}" "${run_in[@]}" --version) || fail "--version in the empty root"
[[ $version == *", portable) "* ]] || fail "--version in the empty root: $version"
[[ $version == "$("${run_out[@]}" --version)" ]] || fail "--version differs in the empty root: $version"
say "--version: $version"

# ---- 2. capture + verify --------------------------------------------------------
"${alone[@]}" "${run_in[@]}" capture -o - >"$tmp/self.ptape" 2>"$tmp/err" || fail "capture: $(cat "$tmp/err")"
"${alone[@]}" "${run_in[@]}" verify - <"$tmp/self.ptape" >"$tmp/out" 2>"$tmp/err" ||
  fail "verify of its own capture: $(cat "$tmp/out" "$tmp/err")"
# What it saw: its own PID namespace, pid 1 (bwrap) among it.
"${run_out[@]}" show --pid 1 "$tmp/self.ptape" >/dev/null || fail "the capture holds no pid 1 of its namespace"
say "capture of its own namespace ($(stat -c %s "$tmp/self.ptape") bytes), verified: $(head -n1 "$tmp/out")"

# ---- 3. fingerprint + resolve of a sandboxed sleep --------------------------------
resolve_in_the_empty_root() {
# Before the turn: this shell (the root, the "app-server") fingerprinted from inside.
"${host_pids[@]}" "${run_in[@]}" fingerprint --root $$ --exe "/proc/$$/root/bin/sleep" -o - \
  >"$tmp/root.ptape" 2>"$tmp/err" || fail "fingerprint in the empty root: $(cat "$tmp/err")"
# The turn: a PID-namespace sandbox exporting a token, exec'ing /bin/sleep 120.
token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
unshare --pid --fork --kill-child \
  sh -c "export PROCTAPE_TOKEN=$token; echo \$\$ >'$tmp/marker'; exec /bin/sleep 120" &
sandbox=$!
for _ in $(seq 200); do [[ -s $tmp/marker ]] && break; sleep 0.05; done
[[ -s $tmp/marker ]] || fail "the sandbox wrote no marker"
# Its sleep, as the host sees it: the child of unshare (the marker is the
# sandbox's own pid 1, not a host pid).
sleep_pid=
for _ in $(seq 200); do
  sleep_pid=$(pgrep -P "$sandbox" -x sleep || true)
  [[ -n $sleep_pid ]] && break
  sleep 0.05
done
[[ -n $sleep_pid ]] || fail "no sleep beneath the sandbox $sandbox"
status=0
"${host_pids[@]}" --ro-bind "$tmp/root.ptape" /root.ptape \
  "${run_in[@]}" resolve --fingerprint /root.ptape --token "$token" --json >"$tmp/verdict" 2>"$tmp/err" || status=$?
((status == 0)) || fail "resolve in the empty root exited $status: $(cat "$tmp/verdict" "$tmp/err")"
grep -q '"status":"RESOLVED"' "$tmp/verdict" || fail "resolve did not resolve: $(cat "$tmp/verdict")"
grep -q "\"pid\":$sleep_pid[,}]" "$tmp/verdict" || fail "resolve named another pid than the sleep's $sleep_pid: $(cat "$tmp/verdict")"
kill -KILL "$sandbox" 2>/dev/null || true
wait "$sandbox" 2>/dev/null || true
sandbox=
say "fingerprint + resolve from the empty root: RESOLVED host pid $sleep_pid"
}
if ((EUID == 0)); then
  resolve_in_the_empty_root
else
  say "fingerprint + resolve skipped: a root sharing the host's PID namespace needs root"
fi

# ---- 4. the corpus: verify, replay, corpus check -----------------------------------
# The same binary outside (the host) and inside, each in the corpus's
# directory (the files by the same relative names): the same output and status.
inside=("${alone[@]}" --ro-bind "$corpus" /corpus --chdir /corpus "${run_in[@]}")
same() {  # WHAT ARGS...: inside and outside agree
  local what=$1 in_status=0 out_status=0
  shift
  "${inside[@]}" "$@" >"$tmp/in" 2>"$tmp/in.err" || in_status=$?
  (cd "$corpus" && "${run_out[@]}" "$@") >"$tmp/outside" 2>"$tmp/outside.err" || out_status=$?
  # The time a command took ("(0.009 s)") is no verdict.
  sed -i -E 's/\([0-9.]+ s\)/(TIME)/g' "$tmp/in" "$tmp/outside" "$tmp/in.err" "$tmp/outside.err"
  ((in_status == out_status)) || fail "$what: exit $in_status in the empty root, $out_status outside: $(head -n3 "$tmp/in.err")"
  cmp -s "$tmp/in" "$tmp/outside" || fail "$what: the output differs in the empty root: $(diff "$tmp/in" "$tmp/outside" | head -n5)"
  cmp -s "$tmp/in.err" "$tmp/outside.err" || fail "$what: standard error differs in the empty root: $(diff "$tmp/in.err" "$tmp/outside.err" | head -n5)"
  [[ -s $tmp/in ]] || fail "$what printed nothing"
  last_status=$in_status
}
mapfile -t files < <(cd "$corpus" && ls -- *.ptape)
((${#files[@]} > 0)) || fail "no corpus files in $corpus"
same "verify of the corpus" verify -- "${files[@]}"
((last_status == 0)) || fail "verify of the corpus exited $last_status"
replayed=0
for file in "${files[@]}"; do
  same "replay --json $file" replay --json -- "$file"
  replayed=$((replayed + 1))
done
same "corpus check" corpus check .
((last_status == 0)) || fail "corpus check exited $last_status"
say "verify of ${#files[@]} corpus files, replay --json of $replayed, corpus check: as on the host"
