# SPDX-License-Identifier: Apache-2.0
# What the tests of contrib/ci/proctape-ci.sh share (ci_script_test.sh,
# ci_arch_test.sh), sourced once the caller has set case_name, proctape and
# tmp (its scratch directory).
# shellcheck shell=bash

fail() {
  printf 'FAIL %s: %s\n' "$case_name" "$*" >&2
  exit 1
}
# run STATUS CMD...: CMD's status must be STATUS; its output in $tmp/out, $tmp/err.
run() {
  local want=$1 status=0
  shift
  "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
  ((status == want)) || fail "$* exited $status, not $want; stdout: $(cat "$tmp/out"); stderr: $(cat "$tmp/err")"
}
# The one line a refusal prints on standard error, naming WORDS.
one_error_line() {
  [[ $(wc -l <"$tmp/err") -eq 1 ]] || fail "not one line on stderr: $(cat "$tmp/err")"
  grep -q '^proctape-ci: ' "$tmp/err" || fail "stderr does not begin 'proctape-ci: ': $(cat "$tmp/err")"
  local word
  for word in "$@"; do grep -qF -- "$word" "$tmp/err" || fail "stderr does not name '$word': $(cat "$tmp/err")"; done
}
# The built binary, as the release's portable artifact.
portable_artifact() {
  mkdir -p "$tmp/dl"
  cp -- "$proctape" "$tmp/dl/proctape-0.1.0-linux-x86_64"
  printf '%s' "$tmp/dl/proctape-0.1.0-linux-x86_64"
}
# A PATH with no proctape on it but the one a case installs.
# shellcheck disable=SC2034  # used by the sourcing scripts
base_path=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin
# shellcheck disable=SC2034
ci_env=(env -u GITHUB_ACTIONS -u GITHUB_PATH -u GITHUB_STEP_SUMMARY -u GITLAB_CI "HOME=$tmp/home")
