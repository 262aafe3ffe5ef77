// SPDX-License-Identifier: Apache-2.0
#include "analyze/sql/statements.h"

#include <sqlite3.h>

#include <sstream>

namespace proctape::sql {
namespace {

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

// One run's statements, the counts across them and the last failure.
class Statements {
 public:
  Statements(Database& d, const StatementsRequest& request) : d_(d), r_(request) {}

  // Each -c in turn: the first that fails ends the run.
  MaybeFailure Queries() {
    for (const std::string& query : r_.queries) {
      if (!Run(query)) return Failed();
    }
    return std::nullopt;
  }
  MaybeFailure FromInput();

 private:
  // Runs `text`: false with failed_ set.
  bool Run(const std::string& text) {
    failed_ = sql::Run(d_.get(), text, r_.format, r_.out, &state_);
    ExplainRefusal(&failed_);
    return failed_.empty();
  }
  bool DotCommand(const std::string& line);
  void SchemaText(const std::string& name);
  // Whether failed_ ends the run: not on a terminal, where it is said
  // and the run goes on.
  bool Ends() {
    if (!r_.terminal) return true;
    if (r_.said) r_.said(failed_);
    failed_.clear();
    return false;
  }
  MaybeFailure Failed() const { return Failure(FailureKind::kUsage, failed_); }
  void Prompt(const char* text) const {
    if (r_.terminal && r_.prompt) r_.prompt(text);
  }

  Database& d_;
  const StatementsRequest& r_;
  RunState state_;  // across every -c or statement of the input
  std::string failed_;
};

// The statements of the input, each run once it is complete (';').
MaybeFailure Statements::FromInput() {
  Prompt("proctape sql: SQL ends with ';'; .help for commands; Ctrl-D to leave\n");
  std::string statement;
  std::string line;
  Prompt("sql> ");
  while (std::getline(*r_.in, line)) {
    const std::size_t at = line.find_first_not_of(" \t");
    if (statement.empty() && at != std::string::npos && line[at] == '.') {
      if (!DotCommand(line.substr(at))) break;
      if (!failed_.empty() && Ends()) return Failed();
      std::fflush(r_.out);
      Prompt("sql> ");
      continue;
    }
    statement += line + "\n";
    if (!sqlite3_complete(statement.c_str())) {
      Prompt("...> ");
      continue;
    }
    if (!Run(statement) && Ends()) return Failed();
    std::fflush(r_.out);
    statement.clear();
    Prompt("sql> ");
  }
  Prompt("\n");
  if (statement.find_first_not_of(" \t\n") != std::string::npos) {
    if (!Run(statement) && Ends()) return Failed();
  }
  return std::nullopt;
}

// .schema in text: sqlite3's own, each CREATE statement and a ';'.
void Statements::SchemaText(const std::string& name) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(d_.get(),
                         "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND "
                         "(?1 = '' OR name = ?1) ORDER BY rowid",
                         -1, &s, nullptr) == SQLITE_OK) {
    sqlite3_bind_text(s, 1, name.c_str(), -1, SQLITE_TRANSIENT);
    while (sqlite3_step(s) == SQLITE_ROW) {
      std::fprintf(r_.out, "%s;\n", reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
    }
  }
  sqlite3_finalize(s);
}

// A line of the input that starts with '.' where a statement would. False:
// .quit. Under JSON what it shows is a statement's object, as every answer
// is (one document, docs/cli/json.md); else sqlite3's own text.
bool Statements::DotCommand(const std::string& line) {
  const bool json = r_.format == Format::kJson;
  std::istringstream words(line);
  std::string command, name;
  words >> command >> name;
  if (command == ".quit" || command == ".exit") return false;
  if (command == ".tables") {
    Run("SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') ORDER BY rowid");
  } else if (command == ".schema" && json) {
    Run("SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND (" +
        (name.empty() ? std::string("1") : "name = " + Quoted(name)) + ") ORDER BY rowid");
  } else if (command == ".schema") {
    SchemaText(name);
  } else if (command == ".help" && json) {
    std::string values;
    for (const auto& [dot, what] : kDotHelp) {
      values +=
          (values.empty() ? "" : ", ") + std::string("(") + Quoted(dot) + ", " + Quoted(what) + ")";
    }
    Run("SELECT column1 AS command, column2 AS what FROM (VALUES " + values + ")");
  } else if (command == ".help") {
    for (const auto& [dot, what] : kDotHelp) std::fprintf(r_.out, "%-16s %s\n", dot, what);
    std::fprintf(r_.out, "SQL ends with ';' and may span lines; the database is read-only.\n");
  } else {
    failed_ = "unknown command " + command + " (.help lists them)";
  }
  return true;
}

}  // namespace

MaybeFailure RunStatements(Database& d, const StatementsRequest& request) {
  Statements statements(d, request);
  OpenDocument(request.format, request.out);
  MaybeFailure failed = request.queries.empty() ? statements.FromInput() : statements.Queries();
  CloseDocument(request.format, request.out);
  return failed;
}

}  // namespace proctape::sql
