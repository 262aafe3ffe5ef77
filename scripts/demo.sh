#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job, on this host: capture the host into a snapshot file;
# fingerprint this shell (the "app-server") before the turn; start a
# PID-namespace sandbox that exports a token, writes its $$ to a marker and
# execs /bin/sleep 120 (what a CI checker does); let proctape find the sleep's
# true host pid beneath this shell against the fingerprint, recording the
# resolution (frames before and after, every /proc read it made) into a
# second file; check the files. The files go to ./proctape-demo/. Ends the
# sandbox it started, by pid, on every exit path.
#   bash scripts/demo.sh PATH-TO-PROCTAPE
set -euo pipefail
proctape=${1:?usage: demo.sh PATH-TO-PROCTAPE}
out=proctape-demo
mkdir -p "$out"
echo "demo: proctape capture -o $out/host.ptape"
"$proctape" capture -o "$out/host.ptape" --force
# docs/resolver.md, "The eight steps", step 1, before the turn: the root's pid
# and start time, /bin/sleep's device and inode, this boot.
echo "demo: proctape fingerprint --root $$ -o $out/root.ptape"
"$proctape" fingerprint --root $$ -o "$out/root.ptape" --force
token=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
dir=$(mktemp -d)
sandbox=
cleanup() {
  if [[ -n $sandbox ]]; then kill -KILL "$sandbox" 2>/dev/null || true; wait "$sandbox" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT

# --kill-child: the sleep (pid 1 of the new namespace) dies with unshare.
unshare --pid --fork --kill-child \
  sh -c "export PROCTAPE_TOKEN=$token; echo \$\$ > $dir/marker; exec /bin/sleep 120" &
sandbox=$!
for _ in $(seq 100); do [[ -s $dir/marker ]] && break; sleep 0.05; done
marker=$(cat "$dir/marker")
echo "demo: the sandbox wrote \$\$ = $marker, a pid of its own namespace."
echo "demo: as a host pid, $marker names: $(ps -o comm= -p "$marker" || echo 'no process')"
echo "demo: proctape resolve --fingerprint $out/root.ptape --token $token --record $out/resolution.ptape"
"$proctape" resolve --fingerprint "$out/root.ptape" --token "$token" \
  --record "$out/resolution.ptape" --force | tee "$dir/verdict"
read -r pid start < <(sed -n 's/^RESOLVED host pid \([0-9]*\), start tick \([0-9]*\).*/\1 \2/p' "$dir/verdict")
echo "demo: the sleep's own status says: $(grep NSpid /proc/"$pid"/status)"
echo "demo: proctape liveness --pid $pid --start $start"
"$proctape" liveness --pid "$pid" --start "$start"
echo "demo: proctape verify $out/host.ptape $out/root.ptape $out/resolution.ptape"
"$proctape" verify "$out/host.ptape" "$out/root.ptape" "$out/resolution.ptape"
