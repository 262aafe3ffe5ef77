// SPDX-License-Identifier: Apache-2.0
// `proctape sql FILE... [-c QUERY]... [--format table|csv|json] [--db OUT]`
// (docs/sql.md): the files loaded into a SQLite database (in memory, or
// made in --db's file) by one schema (analyze/sql/schema.sql), then SQL run
// over it, read-only. `proctape sql --schema sqlite|postgresql`
// prints that schema (docs/sql.md, "Into PostgreSQL: a fleet's captures in
// one database").
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "analyze/sql/load_files.h"
#include "analyze/sql/postgresql.h"
#include "analyze/sql/statements.h"
#include "analyze/sql/export.h"
#include "cli/command_io.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "cli/sql_database.h"
#include "core/proc_parse.h"

namespace proctape {
namespace {

struct SqlOptions {
  std::vector<std::string> files;
  std::vector<std::string> queries;
  std::string format = "table";
  std::string db;
  std::string schema;  // --schema: the dialect printed
  bool json = false;
  bool format_given = false;
  bool db_given = false;
  bool force = false;
};

// The usage errors of the options together; kExitOk when none.
int CheckOptions(const SqlOptions& o) {
  if (!o.schema.empty()) {
    const bool other =
        !o.files.empty() || !o.queries.empty() || o.db_given || o.format_given || o.json || o.force;
    if (other) return Fail(kExitUsage, "--schema prints the schema alone: no FILE, no option");
    return kExitOk;
  }
  if (o.files.empty()) return Fail(kExitUsage, "missing FILE (a .ptape file)");
  if (o.json && o.format_given && o.format != "json") {
    return Fail(kExitUsage, "--json is --format json: not with --format " + o.format);
  }
  if (std::string why = ForceWithoutOutput(o.force, "--db", o.db_given, o.db); !why.empty()) {
    return Fail(kExitUsage, why);
  }
  const bool statements_on_stdin = o.queries.empty() && !o.db_given;
  for (const std::string& f : o.files) {
    if (statements_on_stdin && f == "-") {
      return Fail(kExitUsage,
                  "FILE '-': without -c the statements are read from standard "
                  "input, which cannot also be a file");
    }
  }
  return kExitOk;
}

// Each -c, or the statements of standard input (a prompt on a terminal, on
// standard error), their rows on standard output.
int RunStatements(const SqlOptions& o, sql::Database& d, sql::Format format) {
  const sql::StatementsRequest request{
      .format = format,
      .out = stdout,
      .queries = o.queries,
      .in = &std::cin,
      .terminal = ::isatty(0) != 0,
      .prompt = [](const std::string& text) { std::fputs(text.c_str(), stderr); },
      .said =
          [](const std::string& failed) {
            std::fprintf(stderr, "proctape: sql: %s\n", failed.c_str());
          }};
  MaybeFailure failed = sql::RunStatements(d, request);
  return failed ? FailInCommand(ExitCodeFor(failed->kind), failed->message) : kExitOk;
}

// What the command reads and writes (docs/security.md).
CommandIo IoOf(const SqlOptions& o) {
  CommandIo io{"sql", InputsNamed("FILE", o.files)};
  if (o.db_given) {
    io.output.emplace();
    io.output->path = o.db;
    io.output->force = o.force;
    io.output->readable = true;  // the database is made in it
    io.output_option = "--db";
  }
  io.reads_beside = ManifestsBeside(o.files);
  return io;
}

// --schema: the one schema in the dialect asked (analyze/sql/postgresql.h).
int PrintSchema(const SqlOptions& o) {
  if (int entered = EnterCommand(CommandIo{"sql", {}}); entered != kExitOk) return entered;
  const std::string text = o.schema == "postgresql" ? sql::PostgresqlSchema() : sql::SqliteSchema();
  std::fputs(text.c_str(), stdout);
  return std::fflush(stdout) == 0 ? kExitOk : Fail(kExitIo, "cannot write the schema");
}

int RunSql(const SqlOptions& o) {
  if (int bad = CheckOptions(o); bad != kExitOk) return bad;
  if (!o.schema.empty()) return PrintSchema(o);
  const sql::Format format = o.format == "csv"              ? sql::Format::kCsv
                             : o.json || o.format == "json" ? sql::Format::kJson
                                                            : sql::Format::kTable;
  // --format json is --json: a failure is then one JSON object on standard
  // error too (docs/cli/json.md).
  if (format == sql::Format::kJson && !o.json) SetErrorMode("sql", true);
  std::unique_ptr<OutputFile> db_file;
  if (int entered = EnterCommand(IoOf(o), &db_file); entered != kExitOk) return entered;
  int exit_code = kExitOk;
  // With --db the database is made in its file: memory bounded, whatever
  // the FILEs (docs/sql.md, "Memory").
  std::unique_ptr<sql::Database> d =
      LoadDatabase(o.files, /*damage_loads=*/true, &exit_code,
                   db_file ? sql::ExportDatabaseFd(false, *db_file) : -1);
  if (!d) return exit_code;
  if (db_file) {
    if (MaybeFailure failed = sql::SaveDatabase(*d, *db_file)) {
      return FailAbout("--db", o.db, *failed);
    }
  }
  if (std::string f = d->ReadOnly(); !f.empty()) {
    return Fail(kExitInternal, "cannot make the database read-only: " + f);
  }
  if (o.queries.empty() && o.db_given) return kExitOk;
  return RunStatements(o, *d, format);
}

}  // namespace

void RegisterSql(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<SqlOptions>();
  CLI::App* sub = app.add_subcommand(
      "sql",
      "Load FILEs (a corpus: corpus/*.ptape) into a SQLite database (in memory, or in\n"
      "--db's file), one schema for all (tables files, frames, processes,\n"
      "observations, resolutions, errnos;\n"
      "views process_lifetimes, pid_reuse, tree_edges; every column in docs/sql.md,\n"
      "with worked queries), and run SQL over it: each -c QUERY, or else the\n"
      "statements on standard input (a prompt on a terminal). Raw /proc bytes are\n"
      "BLOBs, printed escaped (\\xNN). errno_name(N) names an errno. A damaged file\n"
      "loads up to its damage (files.damage says where); a file too large to hold\n"
      "is refused (exit 16). Read-only.");
  sub->add_option("FILE", o->files, "a .ptape file; several, or - for standard input")
      ->check(NonEmptyPath());
  OneValueEach(sub->add_option("-c,--command", o->queries,
                               "SQL to run: one or more statements; -c again for more, run in "
                               "turn")
                   ->type_name("QUERY")
                   ->check(NonEmpty("an empty QUERY asks nothing")));
  CLI::Option* format =
      sub->add_option("--format", o->format, "table, csv or json (per statement: columns, rows)")
          ->check(CLI::IsMember({"table", "csv", "json"}))
          ->capture_default_str();
  sub->add_flag("--json", o->json,
                "the same as --format json: one document {\"statements\":[...]}, an "
                "object per statement that ran, and a failure as one JSON object on standard "
                "error");
  CLI::Option* db = AddSideOutputOption(
      sub, "--db", o->db,
      "make the database in this file, not in memory: its memory bounded whatever "
      "the FILEs (an SQLite database, committed once they are loaded; without -c "
      "nothing is asked: 'export --format sqlite' of the FILEs)");
  AddForceOption(sub, o->force, "replace an existing --db file");
  sub->add_option("--schema", o->schema,
                  "print the schema alone, in this dialect (postgresql: for the CSV of "
                  "'export --format csv', docs/sql.md)")
      ->check(CLI::IsMember({"sqlite", "postgresql"}));
  sub->footer(std::string("Examples:\n"
                          "  proctape sql corpus/*.ptape \\\n"
                          "    -c 'SELECT status, COUNT(*) FROM resolutions GROUP BY 1'\n"
                          "  proctape sql run.ptape -c 'SELECT * FROM pid_reuse' --format csv\n"
                          "  echo \"SELECT pid, comm FROM processes WHERE state = 'Z';\" |\n"
                          "    proctape sql run.ptape\n"
                          "  proctape sql corpus/*.ptape --db corpus.db && sqlite3 corpus.db\n"
                          "  proctape sql --schema postgresql | psql -d fleet\n\n") +
              ExitStatusFooter("0 the statements ran, 2 usage error or SQL that fails (SQLite's "
                               "message), 10 a FILE cannot be read or --db cannot be written, "
                               "11-16 a FILE is no .ptape"));
  sub->callback([=] {
    o->format_given = format->count() > 0;
    o->db_given = db->count() > 0;
    *exit_code = RunSql(*o);
  });
}

}  // namespace proctape
