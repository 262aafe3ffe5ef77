// SPDX-License-Identifier: Apache-2.0
// `proctape sql FILE... [-c QUERY]... [--format table|csv|json] [--db OUT]`
// (docs/sql.md): the files loaded into an in-memory SQLite database by one
// schema (analyze/sql/schema.sql), then SQL run over it, read-only; --db
// also writes the database.
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "analyze/sql/query.h"
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
  bool json = false;
  bool format_given = false;
  bool db_given = false;
  bool force = false;
};

// `text` as an SQL string literal.
std::string Quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// What .help says: each command, and what it does.
constexpr const char* kDotHelp[][2] = {
    {".tables", "the tables and views"},
    {".schema [NAME]", "their CREATE statements (every column: docs/sql.md)"},
    {".help", "this"},
    {".quit, .exit", "leave (or Ctrl-D)"},
};

// A line of the prompt that starts with '.' where a statement would: one of
// sqlite3's commands a user reaches for first. False: .quit. Under JSON
// what it shows is a statement's object, as every answer is (one document,
// docs/cli/json.md); else sqlite3's own text.
bool DotCommand(sql::Database& d, const std::string& line, bool json,
                const std::function<bool(const std::string&)>& run, std::string* failed) {
  std::istringstream words(line);
  std::string command, name;
  words >> command >> name;
  if (command == ".quit" || command == ".exit") return false;
  if (command == ".tables") {
    run("SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') ORDER BY rowid");
  } else if (command == ".schema" && json) {
    run("SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND (" +
        (name.empty() ? std::string("1") : "name = " + Quoted(name)) + ") ORDER BY rowid");
  } else if (command == ".schema") {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(d.get(),
                           "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND "
                           "(?1 = '' OR name = ?1) ORDER BY rowid",
                           -1, &s, nullptr) == SQLITE_OK) {
      sqlite3_bind_text(s, 1, name.c_str(), -1, SQLITE_TRANSIENT);
      while (sqlite3_step(s) == SQLITE_ROW) {
        std::printf("%s;\n", reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
      }
    }
    sqlite3_finalize(s);
  } else if (command == ".help" && json) {
    std::string values;
    for (const auto& [dot, what] : kDotHelp) {
      values +=
          (values.empty() ? "" : ", ") + std::string("(") + Quoted(dot) + ", " + Quoted(what) + ")";
    }
    run("SELECT column1 AS command, column2 AS what FROM (VALUES " + values + ")");
  } else if (command == ".help") {
    for (const auto& [dot, what] : kDotHelp) std::printf("%-16s %s\n", dot, what);
    std::printf("SQL ends with ';' and may span lines; the database is read-only.\n");
  } else {
    *failed = "unknown command " + command + " (.help lists them)";
  }
  return true;
}

// The statements on standard input, each run once it is complete (';'). Not
// a terminal: the first that fails ends the run, exit 2. A terminal: a
// prompt on standard error, each failure said as it comes, exit 0 at the
// end (Ctrl-D).
int Statements(sql::Database& d, bool json, const std::function<bool(const std::string&)>& run,
               std::string& failed) {
  const bool terminal = ::isatty(0) != 0;
  if (terminal) {
    std::fprintf(stderr, "proctape sql: SQL ends with ';'; .help for commands; Ctrl-D to leave\n");
  }
  std::string statement;
  std::string line;
  auto said = [&]() -> int {
    if (!terminal) return FailInCommand(kExitUsage, failed);
    std::fprintf(stderr, "proctape: sql: %s\n", failed.c_str());
    failed.clear();
    return kExitOk;
  };
  if (terminal) std::fprintf(stderr, "sql> ");
  while (std::getline(std::cin, line)) {
    const std::size_t at = line.find_first_not_of(" \t");
    if (statement.empty() && at != std::string::npos && line[at] == '.') {
      if (!DotCommand(d, line.substr(at), json, run, &failed)) break;
      if (!failed.empty() && said() != kExitOk) return kExitUsage;
      std::fflush(stdout);
      if (terminal) std::fprintf(stderr, "sql> ");
      continue;
    }
    statement += line + "\n";
    if (!sqlite3_complete(statement.c_str())) {
      if (terminal) std::fprintf(stderr, "...> ");
      continue;
    }
    if (!run(statement) && said() != kExitOk) return kExitUsage;
    std::fflush(stdout);
    statement.clear();
    if (terminal) std::fprintf(stderr, "sql> ");
  }
  if (terminal) std::fprintf(stderr, "\n");
  if (statement.find_first_not_of(" \t\n") != std::string::npos) {
    if (!run(statement) && said() != kExitOk) return kExitUsage;
  }
  return kExitOk;
}

// The usage errors of the options together; kExitOk when none.
int CheckOptions(const SqlOptions& o) {
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

// SQLite says "not authorized" of a statement, "authorization denied" of
// what VACUUM INTO runs (an ATTACH): said as the read-only database's rule.
void ExplainRefusal(std::string* failed) {
  for (const std::string refused : {"not authorized", "authorization denied"}) {
    if (failed->size() >= refused.size() &&
        failed->compare(failed->size() - refused.size(), refused.size(), refused) == 0) {
      *failed +=
          ": the database is read-only (a PRAGMA may be read, never set; ATTACH, "
          "VACUUM INTO, fts3_tokenizer and load_extension are refused)";
      return;
    }
  }
}

// Each -c, or the statements of standard input, in one document (JSON)
// closed on every way out, a failure's too.
int RunStatements(const SqlOptions& o, sql::Database& d, sql::Format format) {
  std::string failed;
  sql::RunState state;  // across every -c or statement of standard input
  auto run = [&](const std::string& text) {
    failed = sql::Run(d.get(), text, format, stdout, &state);
    ExplainRefusal(&failed);
    return failed.empty();
  };
  sql::OpenDocument(format, stdout);
  int status = kExitOk;
  if (!o.queries.empty()) {
    for (const std::string& query : o.queries) {
      if (!run(query)) {
        status = FailInCommand(kExitUsage, failed);
        break;
      }
    }
  } else {
    status = Statements(d, format == sql::Format::kJson, run, failed);
  }
  sql::CloseDocument(format, stdout);
  return status;
}

int RunSql(const SqlOptions& o) {
  if (int bad = CheckOptions(o); bad != kExitOk) return bad;
  const sql::Format format = o.format == "csv"              ? sql::Format::kCsv
                             : o.json || o.format == "json" ? sql::Format::kJson
                                                            : sql::Format::kTable;
  // --format json is --json: a failure is then one JSON object on standard
  // error too (docs/cli/json.md).
  if (format == sql::Format::kJson && !o.json) SetErrorMode("sql", true);
  CommandIo io{"sql", InputsNamed("FILE", o.files)};
  if (o.db_given) {
    io.output.emplace();
    io.output->path = o.db;
    io.output->force = o.force;
    io.output_option = "--db";
  }
  io.reads_beside = ManifestsBeside(o.files);
  std::unique_ptr<OutputFile> db_file;
  if (int entered = EnterCommand(io, &db_file); entered != kExitOk) return entered;
  int exit_code = kExitOk;
  std::unique_ptr<sql::Database> d = LoadDatabase(o.files, /*damage_loads=*/true, &exit_code);
  if (!d) return exit_code;
  if (db_file) {
    // What is written of a file that keeps environment values is the
    // owner's only, as that file (fs/output_file.h, rule 2).
    if (d->keeps_environ()) db_file->KeepOwnerOnly();
    if (std::string error = d->SaveTo(*db_file); !error.empty()) {
      return FailAbout(kExitIo, "--db", o.db, error);
    }
    if (MaybeFailure failed = db_file->Commit()) return FailAbout("--db", o.db, *failed);
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
      "Load FILEs (a corpus: corpus/*.ptape) into an in-memory SQLite database, one\n"
      "schema for all (tables files, frames, processes, observations, resolutions,\n"
      "errnos;\n"
      "views process_lifetimes, pid_reuse, tree_edges; every column in docs/sql.md,\n"
      "with worked queries), and run SQL over it: each -c QUERY, or else the\n"
      "statements on standard input (a prompt on a terminal). Raw /proc bytes are\n"
      "BLOBs, printed escaped (\\xNN). errno_name(N) names an errno. A damaged file\n"
      "loads up to its damage (files.damage says where); a file too large to hold\n"
      "is refused (exit 16). Read-only.");
  sub->add_option("FILE", o->files, "a .ptape file; several, or - for standard input")
      ->check(NonEmptyPath())
      ->required();
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
      "also write the database to this file, once the FILEs are loaded (an SQLite "
      "database; without -c nothing is asked: 'export --format sqlite' of the FILEs)");
  AddForceOption(sub, o->force, "replace an existing --db file");
  sub->footer(std::string("Examples:\n"
                          "  proctape sql corpus/*.ptape \\\n"
                          "    -c 'SELECT status, COUNT(*) FROM resolutions GROUP BY 1'\n"
                          "  proctape sql run.ptape -c 'SELECT * FROM pid_reuse' --format csv\n"
                          "  echo \"SELECT pid, comm FROM processes WHERE state = 'Z';\" |\n"
                          "    proctape sql run.ptape\n"
                          "  proctape sql corpus/*.ptape --db corpus.db && sqlite3 corpus.db\n\n") +
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
