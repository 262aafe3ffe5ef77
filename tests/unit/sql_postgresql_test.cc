// SPDX-License-Identifier: Apache-2.0
// analyze/sql/postgresql.h: the one schema read as tables and columns (what
// SQLite itself says of it), and its PostgreSQL dialect made from it. The
// live agreement of the two engines (the same tables and columns in both,
// every worked query of docs/sql.md the same rows) is
// tests/postgres/postgres_test.py's.
#include "analyze/sql/postgresql.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <memory>
#include <string>
#include <vector>

#include "analyze/sql/database.h"

namespace proctape {
namespace {

// (name, declared type) of each column of `table`, as SQLite says.
std::vector<std::pair<std::string, std::string>> TableInfo(sqlite3* db, const std::string& table) {
  std::vector<std::pair<std::string, std::string>> out;
  sqlite3_stmt* s = nullptr;
  const std::string q = "SELECT name, type FROM pragma_table_info('" + table + "') ORDER BY cid";
  EXPECT_EQ(sqlite3_prepare_v2(db, q.c_str(), -1, &s, nullptr), SQLITE_OK);
  while (sqlite3_step(s) == SQLITE_ROW) {
    out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)),
                     reinterpret_cast<const char*>(sqlite3_column_text(s, 1)));
  }
  sqlite3_finalize(s);
  return out;
}

TEST(SqlSchemaTables, AreWhatSqliteMakesOfTheSchemaInItsOrder) {
  Failure failure;
  std::unique_ptr<sql::Database> d = sql::Database::Open(&failure);
  ASSERT_TRUE(d) << failure.message;
  const std::vector<sql::SchemaTable> tables = sql::SchemaTables();
  std::vector<std::string> names;
  for (const sql::SchemaTable& t : tables) names.push_back(t.name);
  EXPECT_EQ(names, d->Tables());
  for (const sql::SchemaTable& t : tables) {
    std::vector<std::pair<std::string, std::string>> columns;
    for (const sql::SchemaColumn& c : t.columns) columns.emplace_back(c.name, c.type);
    EXPECT_EQ(columns, TableInfo(d->get(), t.name)) << t.name;
    for (const sql::SchemaColumn& c : t.columns) {
      EXPECT_TRUE(c.type == "INTEGER" || c.type == "TEXT" || c.type == "BLOB")
          << t.name << "." << c.name << " " << c.type << ": a type the dialect does not map";
    }
  }
}

TEST(SqlPostgresqlSchema, DeclaresEveryColumnInItsOrderWithItsMappedType) {
  const std::string pg = sql::PostgresqlSchema();
  for (const sql::SchemaTable& t : sql::SchemaTables()) {
    const std::size_t at = pg.find("CREATE TABLE " + t.name + " (");
    ASSERT_NE(at, std::string::npos) << t.name;
    const std::size_t end = pg.find(");", at);
    std::size_t from = at;
    for (const sql::SchemaColumn& c : t.columns) {
      const std::string type = c.type == "INTEGER" ? "bigint" : c.type == "BLOB" ? "bytea" : "text";
      const std::size_t col = pg.find(" " + c.name + " " + type, from);
      EXPECT_LT(col, end) << t.name << "." << c.name << " as " << type;
      if (col < end) from = col;
    }
  }
  for (const char* added :
       {"CREATE UNIQUE INDEX files_sha256 ON files (sha256);", "CREATE FUNCTION errno_name(",
        "CREATE AGGREGATE group_concat(text)", "CREATE FUNCTION proctape_merge()",
        "CREATE UNLOGGED TABLE proctape_staging.processes (file_id bigint,",
        "CREATE VIEW pid_reuse AS", "CREATE UNIQUE INDEX resolutions_key"}) {
    EXPECT_NE(pg.find(added), std::string::npos) << added;
  }
  // No word of SQLite's types is left outside a comment.
  for (const char* sqlite_type : {" INTEGER", " BLOB", " TEXT"}) {
    std::size_t line = 0;
    for (std::size_t next; line < pg.size(); line = next + 1) {
      next = pg.find('\n', line);
      if (next == std::string::npos) next = pg.size();
      const std::string code = pg.substr(line, next - line).substr(0, pg.find("--", line) - line);
      EXPECT_EQ(code.find(sqlite_type), std::string::npos) << code;
    }
  }
}

TEST(SqlSqliteSchema, IsSchemaSqlItself) {
  const std::string schema = sql::SqliteSchema();
  EXPECT_EQ(schema.rfind("-- SPDX-License-Identifier: Apache-2.0\n", 0), 0u);
  EXPECT_NE(schema.find("CREATE TABLE files ("), std::string::npos);
}

}  // namespace
}  // namespace proctape
