// SPDX-License-Identifier: Apache-2.0
// How `proctape sql` prints rows (analyze/sql/query.h): a table, RFC 4180
// CSV, or JSON by protobuf's printer; bytes never raw; the first failing
// statement's message, one line.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>
#include <string>

#include "analyze/sql/query.h"

namespace proctape {
namespace {

class SqlQuery : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(sqlite3_open(":memory:", &db_), SQLITE_OK); }
  void TearDown() override { sqlite3_close(db_); }

  // What a run of `sql` prints in `format` (JSON: its one document, as
  // `proctape sql` prints it); *failed its message.
  std::string Printed(const std::string& sql, sql::Format format, std::string* failed = nullptr) {
    std::FILE* out = std::tmpfile();
    EXPECT_NE(out, nullptr);
    sql::OpenDocument(format, out);
    const std::string f = sql::Run(db_, sql, format, out);
    sql::CloseDocument(format, out);
    if (failed != nullptr) *failed = f;
    return Contents(out);
  }

  // What was printed to `out`, which is then closed.
  static std::string Contents(std::FILE* out) {
    std::rewind(out);
    std::string text;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, out)) > 0;) text.append(buf, n);
    std::fclose(out);
    return text;
  }

  sqlite3* db_ = nullptr;
};

TEST_F(SqlQuery, ATableAlignsItsColumnsAndSaysNull) {
  EXPECT_EQ(
      Printed("SELECT 1 AS a, 'long text' AS b UNION ALL SELECT 22, NULL", sql::Format::kTable),
      "a   b\n"
      "1   long text\n"
      "22  NULL\n");
}

TEST_F(SqlQuery, CsvQuotesWhatRfc4180Quotes) {
  EXPECT_EQ(
      Printed("SELECT 'a,b' AS \"x,y\", 'say \"hi\"' AS q, NULL AS n, 3 AS i", sql::Format::kCsv),
      "\"x,y\",q,n,i\n"
      "\"a,b\",\"say \"\"hi\"\"\",,3\n");
}

// NULL is an empty field, the empty value (text or BLOB) "": two things a
// reader tells apart (PostgreSQL's COPY reads the first as NULL).
TEST_F(SqlQuery, CsvTellsTheEmptyValueFromNull) {
  EXPECT_EQ(Printed("SELECT '' AS t, X'' AS b, NULL AS n, 'x' AS x", sql::Format::kCsv),
            "t,b,n,x\n"
            "\"\",\"\",,x\n");
}

TEST_F(SqlQuery, BytesAreNeverPrintedRaw) {
  // A BLOB: every byte outside printable ASCII, '\' included, as \xNN.
  // Text SQL made with a control byte: that byte escaped, '\' kept (loaded
  // text was escaped so when it was loaded).
  EXPECT_EQ(Printed("SELECT X'1b5b33316d5c41' AS blob, 'a\\b' || char(10) || 'c' AS text",
                    sql::Format::kCsv),
            "blob,text\n"
            "\\x1b[31m\\x5cA,a\\b\\x0ac\n");
}

TEST_F(SqlQuery, JsonIsOneDocumentWithAnObjectPerStatementAndExactIntegers) {
  const std::string json = Printed(
      "SELECT 1 AS one, 9007199254740993 AS big, -9007199254740993 AS neg, 0.5 AS half, NULL AS n, "
      "'t' AS s, 1e999 AS inf; SELECT 2 AS two WHERE 0",
      sql::Format::kJson);
  EXPECT_EQ(json,
            "{\"statements\":[\n"
            "{\"columns\":[\"one\",\"big\",\"neg\",\"half\",\"n\",\"s\",\"inf\"],"
            "\"rows\":[[1,\"9007199254740993\",\"-9007199254740993\",0.5,null,\"t\",\"inf\"]]}\n"
            ",{\"columns\":[\"two\"],\"rows\":[]}\n"
            "]}\n");
}

// The document holds every statement of a run, across texts (each -c), and
// is whole when a statement fails: the failure is the message, not broken
// JSON.
TEST_F(SqlQuery, JsonOfSeveralTextsAndOfAFailureIsOneDocument) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  sql::RunState state;
  sql::OpenDocument(sql::Format::kJson, out);
  EXPECT_EQ(sql::Run(db_, "SELECT 1 AS a", sql::Format::kJson, out, &state), "");
  EXPECT_EQ(
      sql::Run(db_, "SELECT 2 AS b; SELECT nope FROM absent", sql::Format::kJson, out, &state),
      "statement 3: no such table: absent");
  sql::CloseDocument(sql::Format::kJson, out);
  EXPECT_EQ(Contents(out),
            "{\"statements\":[\n{\"columns\":[\"a\"],\"rows\":[[1]]}\n"
            ",{\"columns\":[\"b\"],\"rows\":[[2]]}\n]}\n");
}

TEST_F(SqlQuery, TheFirstFailingStatementStopsTheRunWithSqlitesMessage) {
  std::string failed;
  const std::string printed = Printed("SELECT 1 AS a; SELECT nope FROM absent; SELECT 2 AS b",
                                      sql::Format::kTable, &failed);
  EXPECT_EQ(printed, "a\n1\n");
  EXPECT_EQ(failed, "statement 2: no such table: absent");
}

TEST_F(SqlQuery, TablesAndCsvBlocksAreSetApartByABlankLine) {
  EXPECT_EQ(Printed("SELECT 1 AS a; SELECT 2 AS b", sql::Format::kTable), "a\n1\n\nb\n2\n");
  EXPECT_EQ(Printed("SELECT 1 AS a; SELECT 2 AS b", sql::Format::kCsv), "a\n1\n\nb\n2\n");
  EXPECT_EQ(Printed("SELECT 1 AS a; SELECT 2 AS b", sql::Format::kJson),
            "{\"statements\":[\n{\"columns\":[\"a\"],\"rows\":[[1]]}\n"
            ",{\"columns\":[\"b\"],\"rows\":[[2]]}\n]}\n");
}

TEST_F(SqlQuery, ColumnNamesAreShownAsValuesAre) {
  EXPECT_EQ(Printed("SELECT 1 AS \"\x1b[31mred\", 2 AS \"a\nb\"", sql::Format::kTable),
            "\\x1b[31mred  a\\x0ab\n"
            "1            2\n");
}

// A table is aligned to its first 1,000 rows and streamed past them: a
// wider cell later pushes the next one instead of being held for.
TEST_F(SqlQuery, ALongTableIsAlignedToItsFirstRowsAndNeverHeldWhole) {
  const std::string text = Printed(
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500) "
      "SELECT CASE WHEN i = 1500 THEN 'wide-wide-wide' ELSE 'x' END AS v, i FROM n",
      sql::Format::kTable);
  EXPECT_EQ(text.substr(0, 10), "v  i\nx  1\n");
  EXPECT_NE(text.find("\nwide-wide-wide  1500\n"), std::string::npos);
}

TEST_F(SqlQuery, BlanksAndCommentsPrintNothing) {
  std::string failed = "unset";
  EXPECT_EQ(Printed("  -- nothing\n ; ", sql::Format::kTable, &failed), "");
  EXPECT_EQ(failed, "");
}

}  // namespace
}  // namespace proctape
