#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Records the shipped regression corpus (corpus/): every `proctape lab`
# scenario, in both sandboxes, on this kernel, added with `proctape corpus
# add` (which replays each file and refuses one that does not reproduce, and
# notes what each scenario shows).
#
# The lab runs inside a fresh PID namespace with its own /proc
# (`unshare --pid --fork --mount-proc`) and a minimal environment, so the
# frames hold the lab's processes and nothing else of the machine it ran on;
# "host pid" in these files means a pid of that namespace. proctape runs from
# a temporary copy, by name, so no path of this machine is recorded.
# Needs root (unshare, and clone3 set_tid for pid-reuse and root-restarted).
#
#   scripts/record_corpus.sh build/cli/proctape [SCENARIO...]
#   (PROCTAPE_CORPUS=DIR adds to DIR instead of corpus/)
set -eu

if [ "${1:-}" != "--inside" ]; then
  [ $# -ge 1 ] || { echo "usage: $0 PROCTAPE_BINARY [SCENARIO...]" >&2; exit 2; }
  bin=$(realpath "$1")
  shift
  corpus=${PROCTAPE_CORPUS:-$(cd "$(dirname "$0")/.." && pwd)/corpus}
  work=$(mktemp -d /tmp/proctape-corpus-XXXXXX)
  trap 'rm -rf "$work"' EXIT
  cp "$bin" "$work/proctape"
  cp "$0" "$work/record.sh"
  scenarios=${*:-$("$bin" lab --list | awk '/^[a-z]/ {print $1}')}
  (cd "$work" && env -i PATH="$work:/usr/sbin:/usr/bin:/sbin:/bin" \
    unshare --pid --fork --mount-proc --kill-child /bin/sh ./record.sh --inside $scenarios)
  # Each entry's note is what its scenario shows (the lab's own description).
  "$bin" corpus add "$work"/*.ptape --corpus "$corpus"
  exit 0
fi
shift
for scenario in "$@"; do
  for sandbox in unshare bwrap; do
    proctape lab "$scenario" --sandbox "$sandbox" --record "$scenario-$sandbox.ptape"
  done
done
