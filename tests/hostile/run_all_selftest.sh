#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run_all.sh's token flags can fail: run_all.sh --check on fake "proctape"
# scripts that print a piece of the token (as text, hex, base64, in an
# output file) must flag TOKEN, one that masks a short token inside its own
# words must flag MASK, and one that prints 11 characters of the token and
# unmasked words must flag nothing (tests/hostile/README.md, "Tests").
#
#   run_all_selftest.sh HOSTILE_FILE WORKDIR
set -u
if [ $# -ne 2 ]; then
  echo "usage: run_all_selftest.sh HOSTILE_FILE WORKDIR" >&2
  exit 2
fi
here=$(dirname "$(realpath "$0")")
export HOSTILE_FILE=$1
unset HOSTILE_SHAPES
work=$2
rm -rf "$work" && mkdir -p "$work" || exit 2
work=$(realpath "$work")
failures=0

# A fake proctape printing FORM of the token of every shape
# (tests/hostile/README.md, "The shapes": recording.h's kToken); `export`
# writes it to its -o file instead.
fake() {
  local form=$1 script=$work/proctape-$1
  cat >"$script" <<FAKE
#!/usr/bin/env bash
piece=e9a4b3d2c58e  # 12 characters of 7c1f0e9a4b3d2c58e6a1f0b9d8c7e6a5
case $form in
  text) out="pid 12 \$piece" ;;
  hex) out="A\$(printf %s "\$piece" | od -An -tx1 | tr -d ' \\n' | tr a-f A-F)" ;;
  base64) out="\$(printf 'Q%s' "\$piece" | base64 -w0 | tr '+/' '-_')" ;;
  file) out="" ;;
  masked) out="hos*ile s*ar*ed a* *ick" ;;
  clean) out="hostile started 7c1f0e9a4b3 e9a4b3d2c58" ;;
esac
if [ "\$1" = export ] && [ $form = file ]; then
  printf 'a,%s\\n' "\$piece" >"\${@: -1}"
fi
echo "\$out"
FAKE
  chmod +x "$script"
  echo "$script"
}

# run FORM CASE WANT [COMMANDS]: run_all.sh --check on CASE with the fake
# of FORM (COMMANDS: show and export csv); WANT is the flag every row must
# hold, or "" for none.
run() {
  local form=$1 case=$2 want=$3 out=$work/out-$1-$2-${3:-none} status
  HOSTILE_COMMANDS=${4:-show export-csv} bash "$here/run_all.sh" --check "$(fake "$form")" "$out" "$case" >"$out.log" 2>&1
  status=$?
  local rows flagged
  rows=$(awk -F'\t' 'NR > 1' "$out/table.tsv" | wc -l)
  if [ -n "$want" ]; then
    flagged=$(awk -F'\t' -v w="$want" 'NR > 1 && index(" " $8 " ", " " w " ")' "$out/table.tsv" | wc -l)
    if [ "$status" != 1 ] || [ "$rows" = 0 ] || [ "$flagged" != "$rows" ]; then
      echo "run_all_selftest.sh: $form on $case: exit $status, $flagged of $rows rows $want (want all)" >&2
      failures=$((failures + 1))
    fi
  elif [ "$status" != 0 ] || [ "$rows" = 0 ] || [ -s "$out/worst.tsv" ]; then
    echo "run_all_selftest.sh: $form on $case: exit $status, $rows rows, flagged: $(head -1 "$out/worst.tsv")" >&2
    failures=$((failures + 1))
  fi
}

run text token-comm TOKEN
run hex token-comm TOKEN
run base64 token-comm TOKEN
run clean token-comm ""
run masked token-short MASK
run clean token-short ""
run file token-comm TOKEN export-csv  # the piece in export's -o file alone
run file token-comm "" show
[ "$failures" = 0 ] && echo "run_all_selftest.sh: every flag where it belongs"
[ "$failures" = 0 ]
