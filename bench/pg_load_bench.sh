#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A fleet's captures into PostgreSQL (BENCHMARKS.md, "PostgreSQL: loading a
# fleet"), side by side with `proctape sql --db` of the same files. N live
# captures of this host (`proctape capture`, one frame each: distinct files,
# as a fleet's are) are loaded by docs/sql.md's recipe for a directory ("Into
# PostgreSQL: a fleet's captures in one database"): one `sql ... --format csv`
# per table, then one `psql -1` of the six \copy and proctape_merge(); then
# the same load again (a no-op: every file is loaded). Beside it, `sql FILES
# --db OUT`. Rounds alternate the two, each PostgreSQL round in a new
# database, so that a noisy host weighs on both; prints the median wall time
# of each.
#
# The server is made for the run as tests/postgres/postgres_test.py makes it
# (initdb into the work directory, as the `postgres` user when run as root,
# a Unix socket only, stopped by its pid at the end) but durable: fsync on,
# PostgreSQL's defaults otherwise.
# Usage: bench/pg_load_bench.sh BUILD_DIR [FILES=1000] [ROUNDS=3]
set -euo pipefail
bench_name=pg_load_bench
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"
[[ $# -ge 1 ]] || usage_error "usage: bench/pg_load_bench.sh BUILD_DIR [FILES=1000] [ROUNDS=3]"
build=$(absolute "$1")
count=${2:-1000}
rounds=${3:-3}
proctape=$build/cli/proctape
pg_bin=${PROCTAPE_PG_BIN:-/usr/lib/postgresql/15/bin}
need_built "$proctape" "cmake --build $1 --target proctape"
need_count FILES "$count"
need_count ROUNDS "$rounds"
for tool in initdb pg_ctl psql createdb; do
  need_executable "$pg_bin/$tool" "$pg_bin/$tool (Debian: apt-get install postgresql-15)"
done
start_work pg_load
as_user=()
if ((EUID == 0)); then  # initdb refuses root
  chown postgres: "$work"
  as_user=(runuser -u postgres --)
fi
server_pid=
stop_server() {
  [[ -n $server_pid ]] || return 0
  kill -INT "$server_pid" 2>/dev/null || return 0
  for _ in $(seq 300); do
    kill -0 "$server_pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -QUIT "$server_pid" 2>/dev/null || true
}
trap 'stop_server; rm -rf "$work"' EXIT
build_timeit "$work"

"${as_user[@]}" "$pg_bin/initdb" -D "$work/data" -U postgres -A trust -E UTF8 \
  --locale=C.UTF-8 >"$work/initdb.log"
printf "listen_addresses = ''\nunix_socket_directories = '%s'\n" "$work" >>"$work/data/postgresql.conf"
"${as_user[@]}" "$pg_bin/pg_ctl" -D "$work/data" -l "$work/server.log" -w -t 30 start >/dev/null
server_pid=$(head -1 "$work/data/postmaster.pid")
export PGHOST=$work PGUSER=postgres PATH=$build/cli:$pg_bin:$PATH

log "capturing this host $count times"
mkdir -p "$work/fleet/host" "$work/csv"
for ((i = 0; i < count; i++)); do
  proctape capture -o "$work/fleet/host/$i.ptape" >/dev/null
done
cd "$work"
# docs/sql.md's load script, as the recipe writes it.
for t in files frames processes observations resolutions errnos; do
  printf '\\copy proctape_staging.%s FROM %s.csv (FORMAT csv, HEADER match)\n' "$t" "$t"
done >load.psql
echo 'SELECT proctape_merge() AS files_added;' >>load.psql
to_csv() {
  for t in files frames processes observations resolutions errnos; do
    proctape sql fleet/*/*.ptape -c "SELECT * FROM $t" --format csv >"csv/$t.csv"
  done
}
psql_load() { (cd csv && psql -X -q -1 -v ON_ERROR_STOP=1 -d "$1" -f ../load.psql); }
export -f to_csv psql_load

for ((r = 1; r <= rounds; r++)); do
  log "round $r/$rounds"
  createdb "fleet$r"
  proctape sql --schema postgresql | psql -X -q -v ON_ERROR_STOP=1 -d "fleet$r"
  "$work/timeit" "$work/csv_t" bash -c to_csv
  added=$("$work/timeit" "$work/copy_t" bash -c "psql_load fleet$r" | sed -n 's/^ *\([0-9][0-9]*\) *$/\1/p')
  [[ $added == "$count" ]] || bench_fail "round $r: files_added '$added', not $count"
  again=$("$work/timeit" "$work/again_t" bash -c "psql_load fleet$r" | sed -n 's/^ *\([0-9][0-9]*\) *$/\1/p')
  [[ $again == 0 ]] || bench_fail "round $r: the second load added '$again' files"
  rm -f "$work/fleet.db"
  "$work/timeit" "$work/sqlite_t" proctape sql fleet/*/*.ptape --db "$work/fleet.db"
done
rows=$(psql -X -At -d fleet1 -c "SELECT (SELECT COUNT(*) FROM processes) || ' process rows, ' ||
  (SELECT COUNT(*) FROM observations) || ' observations'")
pg_bytes=$(psql -X -At -d fleet1 -c "SELECT pg_database_size('fleet1')")
med() { cut -d' ' -f1 "$work/$1" | median; }
csv=$(med csv_t) copy=$(med copy_t)
printf 'load average at start: %s; %d rounds (median wall time)\n' "$load_start" "$rounds"
printf '%d captures of this host, %s bytes, %s\n' "$count" "$(cat fleet/*/*.ptape | wc -c)" "$rows"
printf 'PostgreSQL  %.2f s = CSV (6 sql runs) %.2f s + psql -1 (\\copy, merge) %.2f s; database %s bytes\n' \
  "$(echo "$csv + $copy" | bc -l)" "$csv" "$copy" "$pg_bytes"
printf 'again       %.2f s (psql -1 of the same CSV: no file added)\n' "$(med again_t)"
printf 'sql --db    %.2f s; %s bytes\n' "$(med sqlite_t)" "$(stat -c %s "$work/fleet.db")"
