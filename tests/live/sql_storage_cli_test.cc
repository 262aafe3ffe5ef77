// SPDX-License-Identifier: Apache-2.0
// `sql` and `export --format sqlite|csv` keep SQLite's storage where the jail
// allows it (docs/security.md, "SQLite"): on files of 100,000 records the
// index build spilled to SQLite's temporary file in /var/tmp, which the jail
// refuses (exit 1, "unable to open database file"); now in memory. And a
// statement creates no file: ATTACH and VACUUM INTO left an empty one beside
// --db. Files generated here (tests/shapes/), never checked in; each command
// under 512 MiB of address space with a hang guard (not a measure).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/live/corpus_files.h"
#include "tests/live/files.h"
#include "tests/shapes/many_frames.h"
#include "tests/shapes/shape_file.h"

namespace proctape::live {
namespace {

constexpr int kHangGuardMs = 120'000;

TEST(SqlStorageCli, AFileOfOneHundredThousandRecordsLoadsIndexesAndSorts) {
  if (const std::string why = AddressLimitUnavailable(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir("sql-storage");
  std::string error;
  // Two frames of a 50,000-wide star: 100,004 records.
  const std::string star = dir.File("star.ptape");
  ASSERT_TRUE(shapes::WriteShapeFile(star, shapes::Shape::kStar, 50'000, &error)) << error;
  // Ten frames of 10,000 processes: 100,000 records.
  const std::string frames = dir.File("frames.ptape");
  ASSERT_TRUE(shapes::WriteManyFrames(frames, 10, 10'000, &error)) << error;
  const std::string count = "SELECT COUNT(*) AS n FROM processes";
  const std::string sort = "SELECT pid FROM processes ORDER BY comm, pid DESC LIMIT 1";
  const std::vector<std::vector<std::string>> commands = {
      {"sql", star, "-c", count, "-c", sort},
      {"sql", frames, "-c", count},
      {"sql", star, "--db", dir.File("star.db")},
      {"export", star, "--format", "sqlite", "-o", dir.File("export.db")},
      {"export", star, "--format", "csv", "-o", dir.File("csv")},
  };
  ASSERT_NO_FATAL_FAILURE(ExpectEachEndsWithinAddressLimit(commands, 0, kHangGuardMs));
  const CommandResult r = ProctapeWithinAddressLimit({"sql", star, "-c", count}, kHangGuardMs);
  EXPECT_EQ(r.out, "n\n100004\n") << Describe(r);
  EXPECT_TRUE(Exists(dir.File("csv/processes.csv")));
}

TEST(SqlStorageCli, AStatementCreatesNoFileBesideTheDatabase) {
  const std::string file = CorpusFile("plain-unshare");
  for (const std::string& statement :
       {std::string("ATTACH 'D/y.db' AS y"), std::string("VACUUM INTO 'D/y.db'")}) {
    TempDir dir("sql-storage");
    std::string text = statement;
    text.replace(text.find('D'), 1, dir.path());
    const CommandResult r = Proctape({"sql", file, "--db", dir.File("x.db"), "-c", text});
    EXPECT_EQ(r.exit_code, 2) << statement << ": " << Describe(r);
    EXPECT_NE(r.err.find("the database is read-only"), std::string::npos) << r.err;
    EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{"x.db"}) << statement;
  }
}

}  // namespace
}  // namespace proctape::live
