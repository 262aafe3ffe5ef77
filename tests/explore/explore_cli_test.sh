#!/usr/bin/env bash
# `proctape explore` from the command line (issue 15 §1), one case per ctest
# test (tests/CMakeLists.txt):
#   corpus FILE   every shipped corpus entry, depth 1: zero violations, exit 0
#   bad_inputs    missing file, not a recording, --depth 0 and huge, --out not
#                 a directory: one line on standard error, the documented status
#   json          --json gives the same totals as the text
# Usage: explore_cli_test.sh CASE PROCTAPE SOURCE_DIR [FILE]
set -u
case_name=$1 proctape=$2 src=$3 file=${4:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/proctape-explore-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect STATUS ARGS...: the status, nothing on stdout, one line on stderr.
expect() {
  local want=$1; shift
  "$proctape" explore "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  [ "$got" = "$want" ] || fail "explore $*: exit $got, want $want: $(cat "$tmp/err")"
  [ ! -s "$tmp/out" ] || fail "explore $*: printed on standard output"
  [ "$(wc -l <"$tmp/err")" = 1 ] || fail "explore $*: not one line: $(cat "$tmp/err")"
}

case $case_name in
  corpus)
    "$proctape" explore "$file" --depth 1 >"$tmp/out" 2>"$tmp/err" || fail "exit $?: $(cat "$tmp/out" "$tmp/err")"
    grep -q '^total: .* 0 violations$' "$tmp/out" || fail "no clean total: $(cat "$tmp/out")"
    ;;
  bad_inputs)
    expect 10 "$tmp/missing.ptape"
    printf 'not a snapshot\n' >"$tmp/text.ptape"
    expect 11 "$tmp/text.ptape"
    # A capture holds frames but no recorded check: not a recording.
    "$proctape" capture --root $$ -o "$tmp/capture.ptape" >/dev/null 2>&1 || fail "capture failed"
    expect 2 "$tmp/capture.ptape"
    grep -q 'holds no recorded resolution' "$tmp/err" || fail "capture: $(cat "$tmp/err")"
    good=$src/corpus/051df0283b135a91.ptape
    expect 2 "$good" --depth 0
    expect 2 "$good" --depth 99999999999
    expect 2 "$good" --budget 0
    expect 2 "$good" --out "$tmp/text.ptape"
    expect 2 "$good" --out "$tmp/no-such-dir"
    # A directory no one may create files in is refused before the search.
    expect 2 "$good" --out /proc/self
    grep -q 'cannot write' "$tmp/err" || fail "--out /proc/self: $(cat "$tmp/err")"
    ;;
  json)
    good=$src/corpus/051df0283b135a91.ptape
    "$proctape" explore "$good" --depth 1 --json >"$tmp/json" || fail "json: exit $?"
    "$proctape" explore "$good" --depth 1 >"$tmp/text" || fail "text: exit $?"
    run=$(sed -n 's/^total: \([0-9]*\) histories run.*/\1/p' "$tmp/text")
    python3 - "$tmp/json" "$run" <<'PY' || fail "json totals differ from the text"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["histories_run"] == int(sys.argv[2]), (d["histories_run"], sys.argv[2])
assert d["violations"] == 0 and len(d["checks"]) == 3
for c in d["checks"]:
    # Every history run is counted under its event kind, once.
    assert sum(o["histories"] for k in c["by_kind"] for o in k["outcomes"]) == c["run"], c
    assert c["budget_used"] <= d["budget"] and c["pruned_without_run"] <= c["pruned"], c
PY
    # The same file and options: the same bytes (no hash order leaks out).
    "$proctape" explore "$good" --depth 2 --budget 300 --json >"$tmp/a" || fail "json a: exit $?"
    "$proctape" explore "$good" --depth 2 --budget 300 --json >"$tmp/b" || fail "json b: exit $?"
    cmp -s "$tmp/a" "$tmp/b" || fail "two runs printed different JSON"
    python3 - "$tmp/a" <<'PY' || fail "the budget is not kept"
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["checks"]:
    assert c["budget_used"] <= 300, c
    assert c["budget_used"] == 300 or (c["left"] == 0 and c["unextended"] == 0), c
PY
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo "ok: $case_name"
