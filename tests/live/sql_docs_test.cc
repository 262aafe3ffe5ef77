// SPDX-License-Identifier: Apache-2.0
// docs/sql.md's worked queries are golden tests (docs/sql.md, "Worked
// queries"): each ```sql block under a "### N. TITLE" heading is run as
//   proctape sql corpus/*.ptape -c QUERY
// over the repository's corpus, and what it prints must be the ```text block
// that follows it, byte for byte, so that the docs cannot drift from the
// binary. PROCTAPE_UPDATE_GOLDEN=1 makes the first of them rewrite every
// output block of docs/sql.md instead (the others then only run).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/child_process.h"
#include "tests/live/files.h"
#include "tests/live/readme_examples.h"

namespace proctape::live {
namespace {

const std::string kDoc = std::string(PROCTAPE_SOURCE_DIR) + "/docs/sql.md";

struct WorkedQuery {
  std::string title;                             // the heading, "1. Verdicts per scenario, ..."
  std::string query;                             // the ```sql block
  std::string output;                            // the ```text block after it
  std::size_t output_begin = 0, output_end = 0;  // that block's text in the doc
};

// Every worked query of `doc`, in order.
std::vector<WorkedQuery> WorkedQueries(const std::string& doc) {
  std::vector<WorkedQuery> out;
  std::string title;
  std::size_t at = 0;
  auto block = [&](const std::string& fence, std::size_t from, std::size_t* begin,
                   std::size_t* end) {
    const std::size_t open = doc.find(fence, from);
    if (open == std::string::npos) return false;
    *begin = open + fence.size();
    const std::size_t close = doc.find("\n```\n", *begin - 1);
    if (close == std::string::npos) return false;
    *end = close + 1;
    return true;
  };
  while (true) {
    std::size_t begin = 0, end = 0;
    if (!block("\n```sql\n", at, &begin, &end)) break;
    const std::size_t heading = doc.rfind("\n### ", begin);
    if (heading != std::string::npos) {
      title = doc.substr(heading + 5, doc.find('\n', heading + 1) - heading - 5);
    }
    WorkedQuery q;
    q.title = title;
    q.query = doc.substr(begin, end - begin);
    std::size_t out_begin = 0, out_end = 0;
    const std::size_t next_sql = doc.find("\n```sql\n", end);
    if (!block("\n```text\n", end, &out_begin, &out_end) ||
        (next_sql != std::string::npos && out_begin > next_sql)) {
      q.output_begin = q.output_end = std::string::npos;  // no output block: a failure
    } else {
      q.output = doc.substr(out_begin, out_end - out_begin);
      q.output_begin = out_begin;
      q.output_end = out_end;
    }
    out.push_back(q);
    at = end;
  }
  return out;
}

std::vector<std::string> CorpusFiles() {
  std::vector<std::string> files;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(PROCTAPE_SOURCE_DIR) + "/corpus")) {
    if (e.path().extension() == ".ptape") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());  // as the shell's corpus/*.ptape
  return files;
}

CommandResult RunQuery(const std::string& query) {
  std::vector<std::string> argv = {::proctape::live::TestedBinary(), "sql"};
  for (const std::string& f : CorpusFiles()) argv.push_back(f);
  argv.push_back("-c");
  argv.push_back(query);
  return RunCommand(argv, 60'000);
}

std::vector<std::string> Titles() {
  std::vector<std::string> out;
  for (const WorkedQuery& q : WorkedQueries(FileBytes(kDoc))) out.push_back(q.title);
  return out;
}

class SqlDocs : public testing::TestWithParam<std::string> {};

TEST(SqlDocsList, HasAtLeastTenWorkedQueriesEachWithItsOutput) {
  const std::vector<WorkedQuery> queries = WorkedQueries(FileBytes(kDoc));
  EXPECT_GE(queries.size(), 10u) << "at least ten worked queries in docs/sql.md";
  for (const WorkedQuery& q : queries) {
    EXPECT_NE(q.output_begin, std::string::npos) << q.title << ": no ```text block after its query";
  }
}

TEST_P(SqlDocs, WorkedQueryPrintsWhatTheDocSays) {
  const std::string doc = FileBytes(kDoc);
  const std::vector<WorkedQuery> queries = WorkedQueries(doc);
  auto it = std::find_if(queries.begin(), queries.end(),
                         [&](const WorkedQuery& q) { return q.title == GetParam(); });
  ASSERT_NE(it, queries.end());
  const char* update = std::getenv("PROCTAPE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    if (it != queries.begin()) GTEST_SKIP() << "the first worked query rewrites them all";
    std::string rewritten = doc;
    // From the last, so that the offsets before it stay true.
    for (auto q = queries.rbegin(); q != queries.rend(); ++q) {
      ASSERT_NE(q->output_begin, std::string::npos) << q->title;
      const CommandResult r = RunQuery(q->query);
      ASSERT_EQ(r.exit_code, 0) << q->title << ": " << r.err;
      rewritten.replace(q->output_begin, q->output_end - q->output_begin, r.out);
    }
    std::ofstream(kDoc, std::ios::binary) << rewritten;
    GTEST_SKIP() << "docs/sql.md rewritten";
  }
  ASSERT_NE(it->output_begin, std::string::npos) << "no ```text block after the query";
  const CommandResult r = RunQuery(it->query);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_FALSE(r.out.empty()) << "a worked query that prints nothing shows nothing";
  EXPECT_EQ(r.out, it->output) << "docs/sql.md, \"" << it->title
                               << "\": the output differs (PROCTAPE_UPDATE_GOLDEN=1 "
                                  "ctest -R SqlDocs rewrites it)";
}

INSTANTIATE_TEST_SUITE_P(Docs, SqlDocs, testing::ValuesIn(Titles()),
                         [](const testing::TestParamInfo<std::string>& param) {
                           return CamelCase(param.param);
                         });

}  // namespace
}  // namespace proctape::live
