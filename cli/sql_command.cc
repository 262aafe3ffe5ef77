// `proctape sql FILE... [-c QUERY]... [--format table|csv|json] [--db OUT]`
// (issue 16, work in progress on branch sql): the files loaded into an
// in-memory SQLite database by one schema (analyze/sql/schema.sql), then SQL
// run over it. Read-only unless --db keeps the database.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "analyze/sql/load.h"
#include "analyze/sql/query.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "core/proc_parse.h"

namespace proctape {
namespace {

struct SqlOptions {
  std::vector<std::string> files;
  std::vector<std::string> queries;
  std::string format = "table";
  std::string db;
  bool json = false;
  bool format_given = false;
};

struct Database {
  sqlite3* db = nullptr;
  ~Database() { sqlite3_close(db); }
};

int RunSql(const SqlOptions& o) {
  if (o.json && o.format_given && o.format != "json") {
    return Fail(kExitUsage, "--json is --format json: not with --format " + o.format);
  }
  if (std::string why = StdinOnce({{"FILE", o.files}}); !why.empty()) return Fail(kExitUsage, why);
  if (int refused = RefuseStandardStreams(InputsNamed("FILE", o.files)); refused != kExitOk) {
    return refused;
  }
  if (o.queries.empty()) {
    for (const std::string& f : o.files) {
      if (f == "-") {
        return Fail(kExitUsage, "FILE '-': without -c the statements are read from standard "
                                "input, which cannot also be a file");
      }
    }
  }
  const sql::Format format = o.format == "csv"                ? sql::Format::kCsv
                             : o.json || o.format == "json" ? sql::Format::kJson
                                                  : sql::Format::kTable;
  Database d;
  // One thread uses it: no mutex (SQLITE_OPEN_NOMUTEX).
  if (sqlite3_open_v2(":memory:", &d.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK) {
    return Fail(kExitInternal, "cannot open an in-memory SQLite database");
  }
  if (std::string f = sql::CreateSchema(d.db); !f.empty()) return Fail(kExitInternal, "schema: " + f);
  for (std::size_t i = 0; i < o.files.size(); ++i) {
    sql::Loaded l = sql::LoadFile(d.db, static_cast<std::int64_t>(i + 1), o.files[i]);
    if (l.refused) {
      return FailAbout(ExitCodeFor(l.refused->kind), "", o.files[i], l.refused->message);
    }
    if (!l.error.empty()) return Fail(kExitInternal, EscapeBytes(o.files[i], 4096) + ": " + l.error);
    if (!l.damage.empty()) {
      std::fprintf(stderr, "proctape: sql: %s: loaded up to its damage: %s\n",
                   EscapeBytes(o.files[i], 4096).c_str(), l.damage.c_str());
    }
  }
  if (!o.db.empty()) {
    const std::string vacuum = "VACUUM INTO '" + [&] {
      std::string q;
      for (char c : o.db) q += c == '\'' ? std::string("''") : std::string(1, c);
      return q;
    }() + "'";
    if (std::string f = sql::Run(d.db, vacuum, format, stdout); !f.empty()) {
      return Fail(kExitIo, "--db " + EscapeBytes(o.db, 4096) + ": " + f);
    }
  }
  if (sqlite3_exec(d.db, "PRAGMA query_only = 1", nullptr, nullptr, nullptr) != SQLITE_OK) {
    return Fail(kExitInternal, std::string("cannot make the database read-only: ") +
                                   sqlite3_errmsg(d.db));
  }
  std::string failed;
  auto run = [&](const std::string& text) {
    failed = sql::Run(d.db, text, format, stdout);
    return failed.empty();
  };
  if (!o.queries.empty()) {
    for (const std::string& q : o.queries) {
      if (!run(q)) return Fail(kExitUsage, failed);
    }
    return kExitOk;
  }
  const bool terminal = ::isatty(0) != 0;
  std::string statement;
  std::string line;
  bool ok = true;
  if (terminal) std::fprintf(stderr, "sql> ");
  while (std::getline(std::cin, line)) {
    statement += line + "\n";
    if (!sqlite3_complete(statement.c_str())) {
      if (terminal) std::fprintf(stderr, "...> ");
      continue;
    }
    if (!run(statement)) {
      if (!terminal) return Fail(kExitUsage, failed);
      std::fprintf(stderr, "proctape: sql: %s\n", failed.c_str());
      ok = false;
    }
    std::fflush(stdout);
    statement.clear();
    if (terminal) std::fprintf(stderr, "sql> ");
  }
  if (terminal) std::fprintf(stderr, "\n");
  if (statement.find_first_not_of(" \t\n") != std::string::npos && !run(statement)) {
    return Fail(kExitUsage, failed);
  }
  return ok ? kExitOk : Fail(kExitUsage, "a statement failed (said above)");
}

}  // namespace

void RegisterSql(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<SqlOptions>();
  CLI::App* sub = app.add_subcommand(
      "sql",
      "Load FILEs (a corpus: corpus/*.ptape) into an in-memory SQLite database, one\n"
      "schema for all (tables files, frames, processes, observations, resolutions;\n"
      "views process_lifetimes, pid_reuse, tree_edges), and run SQL over it: each -c\n"
      "QUERY, or else the statements on standard input (a prompt on a terminal). A\n"
      "damaged file loads up to its damage (files.damage says where). Read-only.");
  sub->add_option("FILE", o->files, "a .ptape file; several, or - for standard input")
      ->check(NonEmpty("an empty path names no file"))
      ->required();
  sub->add_option("-c,--command", o->queries, "SQL to run (several statements may follow)")
      ->type_name("QUERY");
  CLI::Option* format =
      sub->add_option("--format", o->format, "table, csv or json (per statement: columns, rows)")
          ->check(CLI::IsMember({"table", "csv", "json"}))
          ->capture_default_str();
  sub->add_flag("--json", o->json, "the same as --format json: one JSON object per statement");
  sub->add_option("--db", o->db, "also write the database to this file (SQLite)")
      ->type_name("OUT");
  sub->footer(std::string("Examples:\n"
                          "  proctape sql corpus/*.ptape \\\n"
                          "    -c 'SELECT status, COUNT(*) FROM resolutions GROUP BY 1'\n"
                          "  proctape sql run.ptape -c 'SELECT * FROM pid_reuse' --format csv\n\n") +
              ExitStatusFooter("0 the statements ran, 2 usage error or SQL that fails (SQLite's "
                               "message), 10-16 a FILE that cannot be opened"));
  sub->callback([=] {
    o->format_given = format->count() > 0;
    *exit_code = RunSql(*o);
  });
}

}  // namespace proctape
