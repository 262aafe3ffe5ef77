#!/bin/sh
# Records the shipped regression corpus (corpus/): every `proctape lab`
# scenario, in both sandboxes, on this kernel, added with `proctape corpus
# add` (which replays each file and refuses one that does not reproduce).
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

note() {
  case "$1" in
    plain) echo "the marker (the sandbox's \$\$) names another process; the resolver finds the true host pid beneath the app-server" ;;
    stale-token) echo "an older exact /bin/sleep 120 with another token under the same app-server is not taken: the new invocation's token decides" ;;
    impostor-exe) echo "argv /bin/sleep 120 and the token, but the executable is a copy of sleep at another inode: EXE_MISMATCH" ;;
    misleading-name) echo "a different program named sleep (tail via a link), started first with the token, is ignored: argv and exe decide, never the name" ;;
    zombie) echo "the resolved sleep becomes a zombie: liveness says DEAD, and a new resolve finds no candidate (a zombie's cmdline reads empty)" ;;
    pre-exec) echo "the resolver starts when the marker is written, 300 ms before exec: it retries every 100 ms, then resolves" ;;
    ambiguous) echo "two sleeps carry the token: MULTIPLE_MATCHES, fails closed" ;;
    root-restarted) echo "the app-server restarted at the same pid (clone3 set_tid): its start tick differs from the fingerprint, ROOT_RESTARTED" ;;
    pid-reuse) echo "after the resolve the sleep dies and a same-argv, same-token sleep takes its pid (clone3 set_tid): liveness says PID_REUSED" ;;
    exited) echo "the resolved sleep is ALIVE, then ends: DEAD" ;;
    hostile-comm) echo "the sleep's command name holds \") \" and a newline: stat is split at the final \") \", the resolver is not fooled" ;;
    never-exec) echo "the shell writes the marker and never execs: the resolver retries until the 5 s deadline" ;;
  esac
}

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
  for f in "$work"/*.ptape; do
    name=$(basename "$f" .ptape)
    "$bin" corpus add "$f" --corpus "$corpus" --note "$(note "${name%-*}")"
  done
  exit 0
fi
shift
for scenario in "$@"; do
  for sandbox in unshare bwrap; do
    proctape lab "$scenario" --sandbox "$sandbox" --record "$scenario-$sandbox.ptape"
  done
done
