// SPDX-License-Identifier: Apache-2.0
// `proctape sql --json` prints one document per run (docs/cli/json.md,
// docs/sql.md): {"statements":[...]}, an object per statement in the order
// run, whether the statements come from several -c, from one -c holding
// several, or from standard input with its dot commands; a statement that
// fails leaves the document whole, holding those before it. Read by a real
// JSON parser, which accepts one document and nothing after it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/live/corpus_files.h"
#include "tests/live/files.h"
#include "tests/live/json_document.h"

namespace proctape::live {
namespace {

using google::protobuf::Value;

const std::string kPlain = CorpusFile("plain-unshare");

// Standard output as one document: its statements' objects, in order.
std::vector<Value> Statements(const CommandResult& r) {
  const JsonDocument d = ParseJsonDocument(r.out);
  EXPECT_TRUE(d.ok) << "standard output is one JSON document: " << d.why << "\n" << r.out;
  if (!d.ok) return {};
  const auto& fields = d.value.struct_value().fields();
  EXPECT_EQ(fields.size(), 1u) << r.out;
  if (!fields.count("statements")) return {};
  const auto& list = fields.at("statements").list_value().values();
  return {list.begin(), list.end()};
}

// The name of a statement's first column.
std::string FirstColumn(const Value& statement) {
  return statement.struct_value().fields().at("columns").list_value().values(0).string_value();
}

TEST(SqlJson, SeveralCommandsAreOneDocumentWithAnObjectPerStatement) {
  const CommandResult r = Proctape({"sql", kPlain, "--json", "-c", "SELECT 1 AS a", "-c",
                                    "SELECT 2 AS b; SELECT entry AS c FROM files"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const std::vector<Value> statements = Statements(r);
  ASSERT_EQ(statements.size(), 3u) << r.out;
  EXPECT_EQ(FirstColumn(statements[0]), "a");
  EXPECT_EQ(FirstColumn(statements[1]), "b");
  EXPECT_EQ(FirstColumn(statements[2]), "c");
  EXPECT_EQ(statements[2]
                .struct_value()
                .fields()
                .at("rows")
                .list_value()
                .values(0)
                .list_value()
                .values(0)
                .string_value(),
            "plain-unshare");
  EXPECT_EQ(r.err, "");
}

TEST(SqlJson, OneStatementIsADocumentOfOne) {
  const CommandResult r = Proctape({"sql", kPlain, "--format", "json", "-c", "SELECT 1 AS one"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, "{\"statements\":[\n{\"columns\":[\"one\"],\"rows\":[[1]]}\n]}\n");
}

TEST(SqlJson, StatementsFromStandardInputAndTheirDotCommandsAreOneDocument) {
  TempDir dir("sql-json");
  WriteFile(dir.File("in.sql"), ".tables\n.schema errnos\nSELECT 1 AS a;\n.help\nSELECT 2 AS b;\n");
  const CommandResult r = ProctapeRedirected("<" + dir.File("in.sql"), {"sql", kPlain, "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const std::vector<Value> statements = Statements(r);
  ASSERT_EQ(statements.size(), 5u) << r.out;
  EXPECT_EQ(FirstColumn(statements[0]), "name");  // .tables
  EXPECT_EQ(FirstColumn(statements[1]), "sql");   // .schema errnos
  EXPECT_EQ(FirstColumn(statements[2]), "a");
  EXPECT_EQ(FirstColumn(statements[3]), "command");  // .help
  EXPECT_EQ(FirstColumn(statements[4]), "b");
  EXPECT_TRUE(Has(r.out, "CREATE TABLE errnos")) << r.out;
}

TEST(SqlJson, AFailingStatementLeavesOneDocumentOfThoseBeforeIt) {
  const CommandResult r = Proctape({"sql", kPlain, "--json", "-c", "SELECT 1 AS a", "-c",
                                    "SELECT nope FROM absent", "-c", "SELECT 3 AS c"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  const std::vector<Value> statements = Statements(r);
  ASSERT_EQ(statements.size(), 1u) << r.out;
  EXPECT_EQ(FirstColumn(statements[0]), "a");
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  EXPECT_TRUE(ParseJsonDocument(r.err).ok) << "the failure is JSON on standard error: " << r.err;
  EXPECT_TRUE(Has(r.err, "statement 2: no such table: absent")) << r.err;
}

}  // namespace
}  // namespace proctape::live
