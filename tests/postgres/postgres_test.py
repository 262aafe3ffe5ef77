#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""docs/sql.md, "Into PostgreSQL: a fleet's captures in one database", run
against a real PostgreSQL server (ctest postgres/recipe, label postgres).

A server of Debian's postgresql-15 is made for the run: initdb into a
temporary directory, as an unprivileged user (the package's `postgres` when
the test runs as root), listening on a Unix socket in that directory only,
stopped by the pid of its postmaster.pid at the end, on a failure too. Then:

  1. the recipe's three ```sh blocks run as written, in a directory holding
     a fresh capture (run.ptape) and the corpus (fleet/corpus/*.ptape);
  2. both engines hold the same tables and views with the same columns in
     the same order, and the staging tables those of the tables;
  3. every worked query of docs/sql.md gives the same rows in PostgreSQL as
     `proctape sql` over the same files, in the same order where it orders
     them; every table holds the same rows (BLOBs compared as bytes);
  4. the loads run again add nothing (every count unchanged), and neither
     does the same file under another name; a CSV of standard input (no
     sha256) is refused, and changes nothing.

Exit 0 when all hold, 1 when one does not, 77 (skipped, with the reason)
when the server's programs are not installed.
  postgres_test.py PROCTAPE SOURCE_DIR
"""

import csv
import hashlib
import io
import os
import pwd
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

SKIP = 77
PG_BIN = os.environ.get("PROCTAPE_PG_BIN", "/usr/lib/postgresql/15/bin")
NULL = "<NULL>"  # a NULL in a compared cell (CSV cannot tell it from '')
failures = []
checks = 0


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
        print("FAIL " + what, file=sys.stderr)


class Server:
    """A PostgreSQL server in a temporary directory, on its Unix socket only."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="proctape-pg-")
        self.data = os.path.join(self.dir, "data")
        self.as_user = []
        if os.geteuid() == 0:  # initdb refuses root: the package's own user
            user = pwd.getpwnam("postgres")
            os.chown(self.dir, user.pw_uid, user.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.pid = None

    def run(self, *argv):
        r = subprocess.run(self.as_user + list(argv), capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            raise RuntimeError(f"{argv[0]}: exit {r.returncode}: {r.stderr.strip()}")

    def start(self):
        self.run(f"{PG_BIN}/initdb", "-D", self.data, "-U", "postgres", "-A", "trust",
                 "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
        with open(os.path.join(self.data, "postgresql.conf"), "a") as conf:
            conf.write(f"listen_addresses = ''\nunix_socket_directories = '{self.dir}'\n"
                       "fsync = off\nfull_page_writes = off\nsynchronous_commit = off\n")
        self.run(f"{PG_BIN}/pg_ctl", "-D", self.data, "-l", os.path.join(self.dir, "server.log"),
                 "-w", "-t", "30", "start")
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            self.pid = int(f.readline())

    def stop(self):
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGINT)  # fast shutdown
                for _ in range(300):
                    os.kill(self.pid, 0)
                    time.sleep(0.1)
                os.kill(self.pid, signal.SIGQUIT)  # immediate, after 30 s
            except ProcessLookupError:
                pass
        shutil.rmtree(self.dir, ignore_errors=True)


def section(doc, heading):
    start = doc.index("\n## " + heading)
    end = doc.find("\n## ", start + 1)
    return doc[start:] if end < 0 else doc[start:end]


def recipe_blocks(doc):
    return re.findall(r"\n```sh\n(.*?)```\n",
                      section(doc, "Into PostgreSQL: a fleet's captures in one database"), re.S)


def worked_queries(doc):
    return re.findall(r"\n### (.*?)\n.*?\n```sql\n(.*?)```\n", section(doc, "Worked queries"),
                      re.S)


def orders_rows(query):
    """Whether the query's outermost SELECT says an ORDER BY."""
    flat = query
    while True:
        inner = re.sub(r"\([^()]*\)", "", flat)
        if inner == flat:
            break
        flat = inner
    return "ORDER BY" in flat.upper()


def main(proctape, source):
    missing = [b for b in ("initdb", "pg_ctl", "postgres", "psql", "createdb")
               if not os.access(os.path.join(PG_BIN, b), os.X_OK)]
    if missing:
        print(f"SKIP postgres/recipe: {', '.join(missing)} not in {PG_BIN}: PostgreSQL is not "
              "installed (Debian's postgresql-15; scripts/setup.sh test installs it)")
        return SKIP
    with open(os.path.join(source, "docs/sql.md")) as f:
        doc = f.read()
    blocks = recipe_blocks(doc)
    check(len(blocks) == 3, f"docs/sql.md: {len(blocks)} ```sh blocks of the recipe, not 3")
    server = Server()
    work = tempfile.mkdtemp(prefix="proctape-pg-work-")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # ctest's timeout: stop it all the same
    try:
        server.start()
        env = dict(os.environ, PATH=f"{os.path.dirname(proctape)}:{PG_BIN}:{os.environ['PATH']}",
                   PGHOST=server.dir, PGUSER="postgres")
        env.pop("PGDATABASE", None)
        Checks(proctape, source, work, env, doc, blocks).run()
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(f"postgres/recipe: {checks - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


class Checks:
    def __init__(self, proctape, source, work, env, doc, blocks):
        self.proctape, self.source, self.work, self.env = proctape, source, work, env
        self.doc, self.blocks = doc, blocks

    def sh(self, script, ok=True):
        r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=self.work,
                           env=self.env, capture_output=True, text=True, timeout=120)
        if ok and r.returncode != 0:
            raise RuntimeError(f"exit {r.returncode}: {script}\n{r.stderr}")
        return r

    def psql(self, query):
        r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", "fleet", "--csv",
                            "-c", query], cwd=self.work, env=self.env, capture_output=True,
                           text=True, timeout=60)
        return r

    def pg_rows(self, query):
        r = self.psql(query)
        if r.returncode != 0:
            raise RuntimeError(f"psql: {r.stderr.strip()}\n{query}")
        return list(csv.reader(io.StringIO(r.stdout)))

    def counts(self):
        return self.pg_rows(" UNION ALL ".join(
            f"SELECT '{t}', COUNT(*) FROM {t}" for t in self.tables))

    def run(self):
        fleet = os.path.join(self.work, "fleet", "corpus")
        os.makedirs(fleet)
        corpus = os.path.join(self.source, "corpus")
        for name in os.listdir(corpus):
            if name.endswith(".ptape") or name == "MANIFEST":
                shutil.copy(os.path.join(corpus, name), fleet)
        self.sh("proctape capture -o run.ptape --frames 2 --interval 200 >/dev/null")
        self.files = ["run.ptape"] + sorted(
            os.path.join("fleet", "corpus", n) for n in os.listdir(fleet) if n.endswith(".ptape"))
        # 1. The recipe as the doc writes it: once, one file, a directory.
        added = [self.sh(b).stdout for b in self.blocks]
        check(re.search(r"^\s*1\s*$", added[1], re.M) is not None,
              f"one file: files_added is not 1: {added[1]!r}")
        check(re.search(rf"^\s*{len(self.files) - 1}\s*$", added[2], re.M) is not None,
              f"the directory: files_added is not {len(self.files) - 1}: {added[2]!r}")
        self.sh(f"proctape sql {' '.join(self.files)} --db all.db")
        self.lite = sqlite3.connect(os.path.join(self.work, "all.db"))
        self.tables = [r[0] for r in self.lite.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY rowid")]
        self.schemas_agree()
        self.queries_agree()
        self.tables_agree()
        self.loads_again_add_nothing()

    def schemas_agree(self):
        lite = {}
        for (name,) in self.lite.execute(
                "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') ORDER BY name"):
            lite[name] = [r[0] for r in self.lite.execute(
                "SELECT name FROM pragma_table_info(?) ORDER BY cid", (name,))]
        pg, staged = {}, {}
        for schema, table, column in self.pg_rows(
                "SELECT table_schema, table_name, column_name FROM information_schema.columns "
                "WHERE table_schema IN ('public', 'proctape_staging') "
                "ORDER BY table_schema, table_name, ordinal_position")[1:]:
            (pg if schema == "public" else staged).setdefault(table, []).append(column)
        check(lite == pg, f"tables and views differ:\nSQLite     {lite}\nPostgreSQL {pg}")
        check(staged == {t: lite[t] for t in self.tables},
              f"staging tables differ from the tables: {staged}")
        lite_indexes = {r[0] for r in self.lite.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL")}
        pg_indexes = {r[0] for r in self.pg_rows(
            "SELECT indexname FROM pg_indexes WHERE schemaname = 'public'")[1:]}
        check(len(lite_indexes) >= 4 and lite_indexes <= pg_indexes,
              f"indexes: SQLite {sorted(lite_indexes)}, PostgreSQL {sorted(pg_indexes)}")

    def queries_agree(self):
        queries = worked_queries(self.doc)
        check(len(queries) >= 10, f"{len(queries)} worked queries found in docs/sql.md")
        for title, query in queries:
            r = subprocess.run([self.proctape, "sql", *self.files, "-c", query, "--format", "csv"],
                               cwd=self.work, capture_output=True, text=True, timeout=60)
            p = self.psql(query)
            if r.returncode != 0 or p.returncode != 0:
                check(False, f"{title}: SQLite {r.stderr.strip()!r}, PostgreSQL "
                             f"{p.stderr.strip()!r}")
                continue
            lite = list(csv.reader(io.StringIO(r.stdout)))
            pg = list(csv.reader(io.StringIO(p.stdout)))
            if not orders_rows(query):
                lite, pg = lite[:1] + sorted(lite[1:]), pg[:1] + sorted(pg[1:])
            check(len(lite) > 1, f"{title}: no row in SQLite: nothing compared")
            check(lite == pg, f"{title}: the rows differ\nSQLite     {lite}\nPostgreSQL {pg}")

    def tables_agree(self):
        for table in self.tables:
            cols = list(self.lite.execute(f"SELECT name, type FROM pragma_table_info('{table}')"))
            # SQLite's hex(NULL) is '': NULL said before it is asked.
            lite_cells = ", ".join(
                f"CASE WHEN {n} IS NULL THEN '{NULL}' ELSE "
                f"{'lower(hex(' + n + '))' if t == 'BLOB' else 'CAST(' + n + ' AS TEXT)'} END"
                for n, t in cols)
            pg_cells = ", ".join(
                f"CASE WHEN {n} IS NULL THEN '{NULL}' ELSE "
                f"{'encode(' + n + ', ' + repr('hex') + ')' if t == 'BLOB' else n + '::text'} END"
                for n, t in cols)
            lite = sorted(list(r) for r in self.lite.execute(f"SELECT {lite_cells} FROM {table}"))
            pg = sorted(self.pg_rows(f"SELECT {pg_cells} FROM {table}")[1:])
            check(len(lite) > 0, f"{table}: no row in SQLite: nothing compared")
            differ = next(((a, b) for a, b in zip(lite, pg) if a != b), None)
            check(lite == pg, f"{table}: {len(lite)} rows in SQLite, {len(pg)} in PostgreSQL" + (
                "" if differ is None else ", first differing at " + ", ".join(
                    f"{cols[i][0]}: {x[:60]!r} / {y[:60]!r}"
                    for i, (x, y) in enumerate(zip(*differ)) if x != y)))
        # What the files here may not hold: bytes of 0x80 and above (the
        # general case), NULs at either end, a quote, an empty value.
        for escaped, want in ((r"\x00a\xff\x00\x80b\x5c\x22\x00", "0061ff0080625c2200"),
                              (r'say "\x1b[31m"\x0a', "73617920221b5b33316d220a"),
                              (r"\x00\x00 \x0a\x09\x7f", "000020" + "0a097f"), ("", "")):
            got = self.pg_rows(f"SELECT 'hex ' || encode(proctape_bytes('{escaped}'), 'hex')")
            check(got[1:] == [["hex " + want]],
                  f"proctape_bytes({escaped!r}): {got[1:]}, not {want}")
        with open(os.path.join(self.work, "run.ptape"), "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        check(self.pg_rows("SELECT sha256 FROM files WHERE path = 'run.ptape'")[1:] == [[digest]],
              "run.ptape's sha256 in PostgreSQL is not the file's")

    def loads_again_add_nothing(self):
        before = self.counts()
        for block in self.blocks[1:]:
            out = self.sh(block).stdout
            check(re.search(r"^\s*0\s*$", out, re.M) is not None,
                  f"a second load: files_added is not 0: {out!r}")
        check(self.counts() == before, f"a second load changed the counts: {before} -> "
                                       f"{self.counts()}")
        # The same bytes under another name, from another host: the same file.
        self.sh("mkdir -p other && cp run.ptape other/copy.ptape && "
                "proctape export other/copy.ptape --format csv -o other-csv && "
                "(cd other-csv && psql -X -q -1 -v ON_ERROR_STOP=1 -d fleet -f ../load.psql)")
        check(self.counts() == before, "a copy of a loaded file added rows")
        # Standard input has no sha256: refused, the transaction with it.
        self.sh("proctape export - --format csv -o pipe-csv < run.ptape")
        r = self.sh("cd pipe-csv && psql -X -q -1 -v ON_ERROR_STOP=1 -d fleet -f ../load.psql",
                    ok=False)
        check(r.returncode != 0 and "without sha256" in r.stderr,
              f"a CSV without sha256 was not refused: exit {r.returncode}, {r.stderr!r}")
        check(self.counts() == before, "a refused load changed the counts")
        staged = self.pg_rows("SELECT COUNT(*) FROM proctape_staging.files")
        check(staged[1:] == [["0"]], f"rows left in the staging tables: {staged}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: postgres_test.py PROCTAPE SOURCE_DIR")
    sys.exit(main(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])))
