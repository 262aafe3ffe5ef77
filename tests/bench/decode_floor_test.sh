#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/decode_floor (the floor bench/readers_floor_bench.sh measures every
# reader against) decodes what the real reader sees: on every file of the
# corpus, its counts of chunks, process records, observations and resolutions
# equal `proctape verify --json`'s, and it decoded some bytes. So the floor
# cannot silently decode nothing (and look fast). No timing. ctest
# bench/decode_floor (tests/CMakeLists.txt, label bench).
#   decode_floor_test.sh DECODE_FLOOR PROCTAPE CORPUS_DIR
set -euo pipefail

floor=${1:?decode_floor} proctape=${2:?proctape} corpus=${3:?corpus dir}
fail() {
  printf 'FAIL decode_floor: %s\n' "$*" >&2
  exit 1
}

files=0 records=0 observations=0
for file in "$corpus"/*.ptape; do
  line=$("$floor" "$file") || fail "$file: exit $?"
  # key=value pairs of the floor's one line; verify --json omits a zero count
  # (proto3 JSON), so a missing key is 0 there.
  got() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$line"; }
  report=$("$proctape" verify "$file" --json) || fail "$file: proctape verify exit $?"
  want() { jq -r ".$1 // 0" <<<"$report"; }
  [[ $(jq -r .intact <<<"$report") == true ]] || fail "$file: verify says it is not intact"
  for pair in chunks:chunks records:processes observations:observations resolutions:resolutions; do
    mine=$(got "${pair%%:*}")
    theirs=$(want "${pair#*:}")
    [[ $mine == "$theirs" ]] ||
      fail "$(basename -- "$file"): the floor decoded ${pair%%:*}=$mine, verify --json says ${pair#*:} $theirs ($line)"
  done
  (($(got decoded_bytes) > $(got chunks))) || fail "$file: decoded_bytes $(got decoded_bytes): nothing decoded ($line)"
  ((files += 1, records += $(got records), observations += $(got observations)))
done
((files > 0)) || fail "no .ptape file in $corpus"
((records > 0 && observations > 0)) ||
  fail "the corpus gave $records records and $observations observations: the check compared nothing"
echo "decode_floor: $files files, $records process records and $observations observations as the reader counts them"
