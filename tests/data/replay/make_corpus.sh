#!/bin/sh
# Re-records the replay corpus: real recordings, on this kernel, of a real
# PID-namespace sandbox (`unshare --pid --fork`) running the tracked
# `/bin/sleep 120` beneath a stand-in app-server, with the real binary, and
# the output their replay must give on any machine (tests/data/replay/README.md:
# files committed to the repo that were captured on this kernel replay
# identically in CI on another machine).
#
#   resolved.ptape     proctape resolve --root APP --token T --record ...
#                      RESOLVED (the sleep's host pid, as seen from the
#                      recording's own pid namespace)
#   no-match-5s.ptape  the same with --argv /bin/sleep --argv 121: nothing
#                      matches, the real 5 s retry loop, NO_MATCH
#   alive.ptape        proctape liveness --pid SLEEP --start S --record ...
#   dead.ptape         the same after the sleep was killed: DEAD
#   NAME.replay.txt    `proctape replay NAME.ptape`, byte for byte
#   NAME.replay.json   `proctape replay NAME.ptape --json`, byte for byte
#
# Everything runs inside a fresh PID namespace with its own /proc
# (`unshare --pid --fork --mount-proc`), so the frames and the tape hold only
# the processes of this script (a few shells, unshare, the sleep, proctape),
# nothing else of the machine it ran on; the environment is minimal (env -i)
# and environ values are redacted by default anyway.
# Needs root (unshare). Usage, from anywhere:
#
#   tests/data/replay/make_corpus.sh build/cli/proctape
set -eu

if [ "${1:-}" != "--inside" ]; then
  [ $# -eq 1 ] || { echo "usage: $0 PROCTAPE_BINARY" >&2; exit 2; }
  out=$(cd "$(dirname "$0")" && pwd)
  # proctape and this script run from a temporary directory, by name: no
  # path of this machine reaches the recorded command lines.
  work=$(mktemp -d /tmp/proctape-replay-corpus-XXXXXX)
  trap 'rm -rf "$work"' EXIT
  cp "$1" "$work/proctape"
  cp "$0" "$work/make_corpus.sh"
  # A minimal environment: nothing of the caller's (not even its variable
  # names) reaches the recorded environ blocks.
  (cd "$work" && env -i PATH="$work:/usr/sbin:/usr/bin:/sbin:/bin" \
    unshare --pid --fork --mount-proc --kill-child /bin/sh ./make_corpus.sh --inside proctape .)
  for f in resolved no-match-5s alive dead; do
    cp "$work/$f.ptape" "$work/$f.replay.txt" "$work/$f.replay.json" "$out/"
  done
  exit 0
fi
proctape=$2
out=$3
token=corpus-7f3c9e0a5b1d4c26
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The app-server stand-in: a shell that starts the sandbox and stays its
# parent. The sandbox's shell exports the token, writes its namespace pid to
# the marker (`echo $$`, as the legacy check did) and execs the sleep.
sh -c "PROCTAPE_TOKEN=$token unshare --pid --fork --kill-child /bin/sh -c \
  'echo \$\$ > $work/marker; exec /bin/sleep 120'; :" &
app=$!

# The sleep: the process whose cmdline is exactly "/bin/sleep\0120\0".
sleep_pid=
for _ in $(seq 100); do
  for d in /proc/[0-9]*; do
    if [ "$(tr '\0' ' ' < "$d/cmdline" 2>/dev/null)" = "/bin/sleep 120 " ]; then
      sleep_pid=${d#/proc/}
    fi
  done
  [ -n "$sleep_pid" ] && break
  sleep 0.05
done
[ -n "$sleep_pid" ] || { echo "the sandboxed sleep did not start" >&2; exit 1; }
start=$(sed 's/.*) //' "/proc/$sleep_pid/stat" | cut -d' ' -f20)

cd "$out"
"$proctape" resolve --root "$app" --token "$token" --record resolved.ptape --force || true
"$proctape" resolve --root "$app" --token "$token" --argv /bin/sleep --argv 121 \
  --record no-match-5s.ptape --force || true
"$proctape" liveness --pid "$sleep_pid" --start "$start" --record alive.ptape --force || true
kill -9 "$sleep_pid"
while [ -e "/proc/$sleep_pid" ]; do sleep 0.05; done
"$proctape" liveness --pid "$sleep_pid" --start "$start" --record dead.ptape --force || true

for f in resolved no-match-5s alive dead; do
  "$proctape" replay "$f.ptape" > "$f.replay.txt" || true
  "$proctape" replay "$f.ptape" --json > "$f.replay.json" || true
done
for f in resolved no-match-5s alive dead; do "$proctape" verify "$f.ptape" || true; done
