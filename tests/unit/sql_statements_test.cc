// SPDX-License-Identifier: Apache-2.0
// The statements of a `proctape sql` run (analyze/sql/statements.h): each
// -c in turn, or the statements of a stream with sqlite3's first commands;
// off a terminal the first failure ends the run (kUsage), on one each is
// said and the run goes on; a JSON run is one document whatever happened.
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "analyze/sql/statements.h"

namespace proctape {
namespace {

class SqlStatements : public ::testing::Test {
 protected:
  void SetUp() override {
    Failure failure;
    db_ = sql::Database::Open(&failure);
    ASSERT_NE(db_, nullptr) << failure.message;
    ASSERT_EQ(db_->Finish(), "");
    ASSERT_EQ(db_->ReadOnly(), "");
  }

  // Runs `request` (its `in` the text `input`), keeping what was printed
  // and what the terminal was shown.
  MaybeFailure RunWith(sql::StatementsRequest request, const std::string& input = "") {
    std::istringstream in(input);
    std::FILE* out = std::tmpfile();
    EXPECT_NE(out, nullptr);
    request.out = out;
    request.in = &in;
    request.prompt = [this](const std::string& text) { shown_ += text; };
    request.said = [this](const std::string& failed) { said_.push_back(failed); };
    MaybeFailure failed = sql::RunStatements(*db_, request);
    std::rewind(out);
    printed_.clear();
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, out)) > 0;) printed_.append(buf, n);
    std::fclose(out);
    return failed;
  }

  std::unique_ptr<sql::Database> db_;
  std::string printed_;
  std::string shown_;
  std::vector<std::string> said_;
};

TEST_F(SqlStatements, EachQueryRunsInTurnAndTheFirstFailureEndsTheRun) {
  sql::StatementsRequest request;
  request.queries = {"SELECT 1 AS a", "SELECT nope", "SELECT 3 AS c"};
  MaybeFailure failed = RunWith(request);
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->kind, FailureKind::kUsage);
  EXPECT_NE(failed->message.find("no such column: nope"), std::string::npos) << failed->message;
  EXPECT_EQ(printed_, "a\n1\n");
}

TEST_F(SqlStatements, TheReadOnlyDatabaseSaysWhyItRefused) {
  sql::StatementsRequest request;
  request.queries = {"PRAGMA user_version = 3"};
  MaybeFailure failed = RunWith(request);
  ASSERT_TRUE(failed);
  EXPECT_NE(failed->message.find(": the database is read-only (a PRAGMA may be read, never set"),
            std::string::npos)
      << failed->message;
}

TEST_F(SqlStatements, StatementsOfTheInputRunOnceCompleteWithTheDotCommands) {
  sql::StatementsRequest request;
  MaybeFailure failed = RunWith(request, ".help\nSELECT 2\n  AS b;\n.quit\nSELECT 4 AS d;\n");
  EXPECT_FALSE(failed);
  EXPECT_EQ(printed_.rfind(".tables          the tables and views\n", 0), 0u) << printed_;
  EXPECT_NE(printed_.find("read-only.\nb\n2\n"), std::string::npos) << printed_;
  EXPECT_EQ(printed_.find("d\n4"), std::string::npos) << printed_;
  EXPECT_EQ(shown_, "");  // no terminal: no prompt

  failed = RunWith(request, ".frobnicate\nSELECT 1;\n");
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->kind, FailureKind::kUsage);
  EXPECT_EQ(failed->message, "unknown command .frobnicate (.help lists them)");
}

TEST_F(SqlStatements, OnATerminalEachFailureIsSaidAndTheRunGoesOn) {
  sql::StatementsRequest request;
  request.terminal = true;
  MaybeFailure failed = RunWith(request, "SELECT nope;\n.what\nSELECT 5 AS e;\n");
  EXPECT_FALSE(failed);
  ASSERT_EQ(said_.size(), 2u);
  EXPECT_NE(said_[0].find("no such column: nope"), std::string::npos) << said_[0];
  EXPECT_EQ(said_[1], "unknown command .what (.help lists them)");
  EXPECT_EQ(printed_, "e\n5\n");
  EXPECT_EQ(shown_.rfind("proctape sql: SQL ends with ';'", 0), 0u) << shown_;
  EXPECT_EQ(shown_.substr(shown_.size() - 6), "sql> \n");
}

TEST_F(SqlStatements, AJsonRunIsOneDocumentAFailuresToo) {
  sql::StatementsRequest request;
  request.format = sql::Format::kJson;
  request.queries = {"SELECT 1 AS a", "SELECT nope"};
  MaybeFailure failed = RunWith(request);
  ASSERT_TRUE(failed);
  EXPECT_EQ(printed_.rfind("{\"statements\":[", 0), 0u) << printed_;
  EXPECT_EQ(printed_.substr(printed_.size() - 3), "]}\n") << printed_;
}

}  // namespace
}  // namespace proctape
