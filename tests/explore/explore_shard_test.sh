#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# explore FILE... --shard K/N (docs/explore.md, "Shards") on the repository's
# corpus files: for N = 1..7 the N shards explore every FILE exactly once
# (by the `file` of each report of their --json), each FILE in the shard the
# SHA-256 of its content names whatever path names it; a shard of none
# exits 0 with {"files":[]}; standard input and a bad K/N are usage errors.
#   explore_shard_test.sh PROCTAPE SOURCE_DIR
set -euo pipefail

proctape=${1:?proctape binary} source_dir=${2:?source dir}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/proctape-explore-shard.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT
fail() {
  printf 'FAIL explore --shard: %s\n' "$*" >&2
  exit 1
}

cd "$source_dir"
files=(corpus/*.ptape)
quick=(--depth 1 --budget 1)
# The FILEs a shard explored, one a line.
explored() { python3 -c 'import json,sys; [print(f["file"]) for f in json.load(sys.stdin)["files"]]'; }

printf '%s\n' "${files[@]}" | sort >"$tmp/all"
for ((n = 1; n <= 7; n++)); do
  : >"$tmp/union"
  for ((k = 1; k <= n; k++)); do
    status=0
    "$proctape" explore "${files[@]}" "${quick[@]}" --shard "$k/$n" --json >"$tmp/out" 2>"$tmp/err" || status=$?
    ((status == 0)) || fail "shard $k/$n exited $status: $(cat "$tmp/err")"
    explored <"$tmp/out" >>"$tmp/union"
  done
  sort "$tmp/union" | diff "$tmp/all" - >&2 || fail "the $n shards do not explore every FILE exactly once"
done

# The shard of a FILE is its content's: another path to it, the same shard.
one=${files[0]}
cp -- "$one" "$tmp/copy.ptape"
for ((k = 1; k <= 3; k++)); do
  a=$("$proctape" explore "$one" "${quick[@]}" --shard "$k/3" --json | explored | wc -l)
  b=$("$proctape" explore "$tmp/copy.ptape" "${quick[@]}" --shard "$k/3" --json | explored | wc -l)
  [[ $a == "$b" ]] || fail "$one and its copy are in different shards of 3"
done

# A shard of none: exit 0, an empty list, one line on standard error.
for ((k = 1; k <= 7; k++)); do
  status=0
  "$proctape" explore "$one" "${quick[@]}" --shard "$k/7" --json >"$tmp/out" 2>"$tmp/err" || status=$?
  ((status == 0)) || fail "shard $k/7 of one FILE exited $status"
  if [[ $(cat "$tmp/out") == '{"files":[]}' ]]; then
    [[ $(cat "$tmp/err") == "proctape: explore: shard $k/7 holds none of the 1 FILE" ]] ||
      fail "an empty shard says: $(cat "$tmp/err")"
  fi
done

# Usage errors, one line naming --shard or the FILE, exit 2.
for bad in 0/3 4/3 1/0 3 a/b; do
  status=0
  "$proctape" explore "$one" --shard "$bad" >"$tmp/out" 2>"$tmp/err" || status=$?
  ((status == 2)) || fail "--shard $bad exited $status"
  [[ $(wc -l <"$tmp/err") == 1 ]] && grep -q -- "--shard: '$bad'" "$tmp/err" || fail "--shard $bad says: $(cat "$tmp/err")"
done
status=0
"$proctape" explore - --shard 1/2 <"$one" >"$tmp/out" 2>"$tmp/err" || status=$?
((status == 2)) && grep -q "FILE '-' is not a regular file" "$tmp/err" || fail "--shard of standard input: $status $(cat "$tmp/err")"
echo "ok: explore --shard"
