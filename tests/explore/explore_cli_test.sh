#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `proctape explore` from the command line (docs/explore.md), one case per ctest
# test (tests/CMakeLists.txt):
#   corpus FILE   every shipped corpus entry, depth 2 with a budget of 5,000
#                 runs per check (bounded for CI: docs/explore.md, "In the
#                 corpus and in CI"): zero
#                 violations, exit 0
#   bad_inputs    missing file, not a recording, --depth 0 and huge, --out not
#                 a directory: one line on standard error, the documented status
#   json          --json gives the same totals as the text
#   examples      --examples N writes the N rarest outcomes' first histories,
#                 which replay reproduces; without --out it is refused
#   several       several FILEs: each file's report alone, in order (text,
#                 {"files": [...]} of --json), the same for --jobs 1 and 2,
#                 --out files included; a missing FILE among them, --jobs 0,
#                 two FILEs of one stem with --out: one line, the status
#   minimize      `minimize` of a corpus entry: the reduction, a file replay
#                 reproduces and explain shows in a screen, --json, bad inputs
# Usage: explore_cli_test.sh CASE PROCTAPE SOURCE_DIR [FILE]
set -u
case_name=$1 proctape=$2 src=$3 file=${4:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/proctape-explore-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_of COMMAND STATUS ARGS...: the status, nothing on stdout, one line on stderr.
expect_of() {
  local cmd=$1 want=$2; shift 2
  "$proctape" "$cmd" "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  [ "$got" = "$want" ] || fail "$cmd $*: exit $got, want $want: $(cat "$tmp/err")"
  [ ! -s "$tmp/out" ] || fail "$cmd $*: printed on standard output"
  [ "$(wc -l <"$tmp/err")" = 1 ] || fail "$cmd $*: not one line: $(cat "$tmp/err")"
}
expect() { expect_of explore "$@"; }

case $case_name in
  corpus)
    "$proctape" explore "$file" --depth 2 --budget 5000 >"$tmp/out" 2>"$tmp/err" || fail "exit $?: $(cat "$tmp/out" "$tmp/err")"
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
    expect 2 "$good" --total-budget 0
    expect 2 "$good" --work-budget 0
    expect 2 "$good" --time-limit 86401
    expect_of minimize 2 "$good" -o "$tmp/m.ptape" --budget 0
    # --out DIR follows the output rule (docs/cli/outputs.md): a file, a
    # missing directory or one no one may create files in is refused, 10,
    # before the search.
    expect 10 "$good" --out "$tmp/text.ptape"
    grep -q 'is not a directory' "$tmp/err" || fail "--out FILE: $(cat "$tmp/err")"
    expect 10 "$good" --out "$tmp/no-such-dir"
    expect 10 "$good" --out /proc/self
    grep -q 'cannot write' "$tmp/err" || fail "--out /proc/self: $(cat "$tmp/err")"
    ;;
  examples)
    good=$src/corpus/f46add6575430d19.ptape  # plain-unshare
    expect 2 "$good" --examples 2
    grep -q 'needs --out' "$tmp/err" || fail "--examples without --out: $(cat "$tmp/err")"
    mkdir "$tmp/ex"
    "$proctape" explore "$good" --depth 1 --out "$tmp/ex" --examples 2 --json >"$tmp/json" ||
      fail "examples: exit $?"
    python3 - "$tmp/json" <<'PY' || fail "examples --json: $(cat "$tmp/json")"
import json, sys
d = json.load(open(sys.argv[1]))
ex = d["checks"][0]["examples"]
assert len(ex) == 2 and d["written"] == 2, d
totals = {}
for k in d["checks"][0]["by_kind"]:
    for o in k["outcomes"]:
        totals[o["outcome"]] = totals.get(o["outcome"], 0) + o["histories"]
# The rarest, fewest first: no outcome has fewer histories than the first.
assert ex[0]["histories"] == min(totals.values()), (ex, totals)
assert ex[0]["histories"] <= ex[1]["histories"], ex
for e in ex:
    assert totals[e["outcome"]] == e["histories"], (e, totals)
    print(e["file"])
PY
    for f in "$tmp"/ex/*.ptape; do
      "$proctape" replay "$f" >"$tmp/replay" 2>&1
      grep -q 'REPRODUCED' "$tmp/replay" || fail "replay $f: $(cat "$tmp/replay")"
    done
    [ "$(ls "$tmp"/ex/*.ptape | wc -l)" = 2 ] || fail "not two files: $(ls "$tmp/ex")"
    # A liveness check's example is modelled, as written, on the host before
    # its event (frame 0): minimize keeps its verdict, explore says whence.
    mkdir "$tmp/live"
    "$proctape" explore "$src/corpus/90f88ffa55b074b2.ptape" --check 1 --depth 1 --out "$tmp/live" \
      --examples 1 >/dev/null || fail "liveness examples: exit $?"
    live=$(ls "$tmp"/live/*.ptape)
    "$proctape" minimize "$live" -o "$tmp/live-small.ptape" >"$tmp/out" 2>"$tmp/err" ||
      fail "minimize $live: exit $?: $(cat "$tmp/err")"
    "$proctape" explore "$live" --depth 1 >"$tmp/out" || fail "explore $live: exit $?"
    grep -q '^  note: this file was derived with 1 kernel event' "$tmp/out" || fail "no note: $(cat "$tmp/out")"
    "$proctape" explain "$live" | sed -n 2p | grep -q '^derived by explore from a host model' ||
      fail "explain: $("$proctape" explain "$live" | head -3)"
    ;;
  minimize)
    good=$src/corpus/90f88ffa55b074b2.ptape  # exited-unshare
    "$proctape" minimize "$good" -o "$tmp/small.ptape" >"$tmp/out" 2>"$tmp/err" ||
      fail "minimize: exit $?: $(cat "$tmp/err")"
    grep -q '^minimize .*check 0 (resolve): RESOLVED pid 241, start tick 1310670, kept$' "$tmp/out" ||
      fail "minimize: $(cat "$tmp/out")"
    grep -q '^  processes 5 -> 3, calls 25 -> 23, ' "$tmp/out" || fail "minimize: $(cat "$tmp/out")"
    "$proctape" replay "$tmp/small.ptape" >"$tmp/replay" || fail "replay: exit $?: $(cat "$tmp/replay")"
    grep -q 'REPRODUCED RESOLVED host pid 241' "$tmp/replay" || fail "replay: $(cat "$tmp/replay")"
    lines=$("$proctape" explain "$tmp/small.ptape" | wc -l)
    [ "$lines" -le 24 ] || fail "explain of the minimized file: $lines lines"
    # Minimizing it again keeps it as it is.
    "$proctape" minimize "$tmp/small.ptape" -o "$tmp/again.ptape" --json >"$tmp/json" ||
      fail "minimize again: exit $?"
    python3 - "$tmp/json" <<'PY' || fail "minimize --json: $(cat "$tmp/json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "RESOLVED" and d["kind"] == "resolve", d
assert d["processes_before"] == d["processes_after"] == 3, d
assert d["calls_before"] == d["calls_after"] == 23, d
PY
    expect_of minimize 2 "$good"                                    # no -o
    expect_of minimize 10 "$good" -o "$tmp/small.ptape"             # exists, no --force
    expect_of minimize 2 "$good" -o "$tmp/x.ptape" --check 3
    expect_of minimize 2 "$good" -o "$good" --force                 # the input itself
    # A pre-exec entry: its verdict came from a retry that saw the exec done.
    expect_of minimize 20 "$src/corpus/03c2b776b0e839d3.ptape" -o "$tmp/pre.ptape"
    grep -q 'not the recorded RESOLVED' "$tmp/err" || fail "pre-exec: $(cat "$tmp/err")"
    [ ! -e "$tmp/pre.ptape" ] || fail "pre-exec: an output was left"
    ;;
  several)
    a=$src/corpus/051df0283b135a91.ptape b=$src/corpus/021e7cdf322033a4.ptape
    opts=(--depth 2 --budget 200)
    "$proctape" explore "$a" "${opts[@]}" --jobs 1 >"$tmp/a" || fail "a: exit $?"
    "$proctape" explore "$b" "${opts[@]}" --jobs 1 >"$tmp/b" || fail "b: exit $?"
    cat "$tmp/a" "$tmp/b" >"$tmp/ab"
    for jobs in 1 2; do
      "$proctape" explore "$a" "$b" "${opts[@]}" -j $jobs >"$tmp/both" || fail "both -j $jobs: exit $?"
      cmp -s "$tmp/ab" "$tmp/both" || fail "-j $jobs: not each file's report in turn: $(diff "$tmp/ab" "$tmp/both")"
    done
    "$proctape" explore "$a" "${opts[@]}" --json >"$tmp/a.json" || fail "a json: exit $?"
    "$proctape" explore "$b" "${opts[@]}" --json >"$tmp/b.json" || fail "b json: exit $?"
    "$proctape" explore "$a" "$b" "${opts[@]}" --json -j 2 >"$tmp/both.json" || fail "both json: exit $?"
    python3 - "$tmp/a.json" "$tmp/b.json" "$tmp/both.json" <<'PY' || fail "--json of several FILEs"
import sys
a, b, both = (open(f).read() for f in sys.argv[1:])
assert both == '{"files":[' + a.rstrip("\n") + "," + b.rstrip("\n") + "]}\n", both[:200]
PY
    mkdir "$tmp/one" "$tmp/two"
    "$proctape" explore "$a" "$b" "${opts[@]}" --out "$tmp/one" --examples 2 -j 1 >"$tmp/one.txt" || fail "out -j 1: exit $?"
    "$proctape" explore "$a" "$b" "${opts[@]}" --out "$tmp/two" --examples 2 -j 2 >"$tmp/two.txt" || fail "out -j 2: exit $?"
    diff <(sed "s|$tmp/one|DIR|g" "$tmp/one.txt") <(sed "s|$tmp/two|DIR|g" "$tmp/two.txt") >/dev/null || fail "--out: -j 1 and -j 2 said different things"
    [ "$(ls "$tmp/one" | wc -l)" -gt 2 ] || fail "--out: nothing written"
    (cd "$tmp/one" && for f in *; do cmp -s "$f" "../two/$f" || exit 1; done) || fail "--out: -j 1 and -j 2 wrote different files"
    expect 10 "$a" "$tmp/missing.ptape" "$b"
    expect 2 "$a" "$b" --jobs 0
    mkdir "$tmp/other" && cp "$a" "$tmp/other/"
    expect 2 "$a" "$tmp/other/$(basename "$a")" --out "$tmp/one" --force
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
