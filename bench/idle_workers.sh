# SPDX-License-Identifier: Apache-2.0
# idle_workers.sh: the N idle processes of the benchmarks, sourced by
# capture_bench.sh, record_bench.sh and analyze_bench.sh.
#
# The sourcing script sets, before calling these functions:
#   bench_name    its name, for messages
#   workers_dir   where spawn_idle and idle_worker are
#   work          its work directory (ctl, pids and spawn.log go there)
# and starts with spawner= and ctl_fd= empty. Its EXIT trap calls
# stop_workers, so nothing it started outlives it.

# Starts N workers through spawn_idle and waits until all have exec'd.
start_workers() { # N
  rm -f "$work/ctl" "$work/pids"
  mkfifo "$work/ctl"
  "$workers_dir/spawn_idle" "$1" "$workers_dir/idle_worker" <"$work/ctl" >"$work/pids" 2>>"$work/spawn.log" &
  spawner=$!
  exec {ctl_fd}>"$work/ctl"
  local waited=0
  until grep -q '^ready ' "$work/pids" 2>/dev/null; do
    if ! kill -0 "$spawner" 2>/dev/null; then
      tail -5 "$work/spawn.log" >&2
      echo "$bench_name: spawn_idle failed" >&2
      exit 1
    fi
    ((waited++ < 12000)) || { echo "$bench_name: workers not ready after 600 s" >&2; exit 1; }
    sleep 0.05
  done
  local started
  started=$(grep -c '^[0-9]' "$work/pids" || true)
  [[ $started == "$1" ]] || { echo "$bench_name: spawn_idle reported $started pids, wanted $1" >&2; exit 1; }
}

# Ends the spawner, and so, by pid, every worker it started.
stop_workers() {
  [[ -n $ctl_fd ]] && { exec {ctl_fd}>&-; ctl_fd=; }   # stdin EOF: spawn_idle ends its workers
  [[ -n $spawner ]] || return 0
  local waited=0
  while kill -0 "$spawner" 2>/dev/null && ((waited < 600)); do
    ((waited == 100)) && kill -TERM "$spawner" 2>/dev/null   # still there after 10 s
    sleep 0.1
    waited=$((waited + 1))
  done
  # Last resort: SIGKILL the spawner (our own child, by pid); PR_SET_PDEATHSIG
  # kills its workers.
  kill -0 "$spawner" 2>/dev/null && kill -KILL "$spawner" 2>/dev/null
  wait "$spawner" 2>/dev/null || true
  spawner=
}

# After stop_workers: none of the pids we started may still be a worker.
check_no_leftovers() {
  local left=0 p a0
  while read -r p; do
    [[ $p =~ ^[0-9]+$ ]] || continue
    a0=
    { IFS= read -r -d '' a0 <"/proc/$p/cmdline"; } 2>/dev/null || true
    if [[ $a0 == proctape-bench-worker-* ]]; then left=$((left + 1)); fi
  done <"$work/pids"
  if ((left > 0)); then
    echo "$bench_name: $left workers still alive after ending them" >&2
    exit 1
  fi
}
