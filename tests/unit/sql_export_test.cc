// SPDX-License-Identifier: Apache-2.0
// analyze/sql/export.h: `export --format sqlite|csv` of a loaded database:
// one SQLite file, or every table as TABLE.csv in a directory, committed and
// counted; an output it cannot write is its failure, with nothing left.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "analyze/sql/database.h"
#include "analyze/sql/export.h"
#include "fs/output_file.h"
#include "tests/unit/format_bytes.h"
#include "tests/unit/export_run_fixture.h"

namespace proctape {
namespace {

using namespace proctape::test;

// The recording loaded and indexed; *loaded what its load counted.
std::unique_ptr<sql::Database> Loaded(sql::Loaded* loaded) {
  Failure failure;
  std::unique_ptr<sql::Database> d = sql::Database::Open(&failure);
  EXPECT_TRUE(d) << failure.message;
  if (!d) return nullptr;
  *loaded = d->Load(ShippedRecording());
  EXPECT_EQ(loaded->error, "");
  EXPECT_EQ(d->Finish(), "");
  return d;
}

class SqlExportTest : public TempDirTest {};

TEST_F(SqlExportTest, SqliteIsOneDatabaseFile) {
  sql::Loaded loaded;
  std::unique_ptr<sql::Database> d = Loaded(&loaded);
  ASSERT_TRUE(d);
  std::unique_ptr<OutputFile> out = OpenTestOutput(Path("out.db"), false);
  ASSERT_TRUE(out);
  const sql::TablesExport t = sql::ExportTables(*d, /*csv=*/false, *out);
  ASSERT_FALSE(t.output_failure) << t.output_failure->message;
  EXPECT_EQ(t.files, 1u);
  EXPECT_EQ(t.bytes, std::filesystem::file_size(Path("out.db")));
  EXPECT_EQ(t.processes, loaded.processes);
  EXPECT_EQ(t.observations, loaded.observations);
  EXPECT_GT(t.observations, 0u);
  EXPECT_EQ(Slurp(Path("out.db")).substr(0, 15), "SQLite format 3");
}

TEST_F(SqlExportTest, CsvIsATableAFile) {
  sql::Loaded loaded;
  std::unique_ptr<sql::Database> d = Loaded(&loaded);
  ASSERT_TRUE(d);
  std::unique_ptr<OutputFile> out = OpenTestOutput(sql::CsvRequest(Path("tables"), false));
  ASSERT_TRUE(out);
  const sql::TablesExport t = sql::ExportTables(*d, /*csv=*/true, *out);
  ASSERT_FALSE(t.output_failure) << t.output_failure->message;
  EXPECT_EQ(t.files, std::size(sql::kTables));
  std::uint64_t bytes = 0;
  for (const char* table : sql::kTables) {
    const std::string file = Path("tables/" + std::string(table) + ".csv");
    ASSERT_TRUE(std::filesystem::is_regular_file(file)) << file;
    bytes += std::filesystem::file_size(file);
  }
  EXPECT_EQ(t.bytes, bytes);
  EXPECT_EQ(t.processes, loaded.processes);

  // Only an earlier csv export is replaced, and only with force.
  Failure refused;
  EXPECT_FALSE(OutputFile::Open(sql::CsvRequest(Path("tables"), false), &refused));
  EXPECT_EQ(refused.kind, FailureKind::kIo);
  Spit(Path("tables/notes.txt"), "mine\n");
  EXPECT_FALSE(OutputFile::Open(sql::CsvRequest(Path("tables"), true), &refused));
  EXPECT_TRUE(std::filesystem::exists(Path("tables/notes.txt")));
}

TEST_F(SqlExportTest, CsvIntoAFileIsTheOutputsFailure) {
  sql::Loaded loaded;
  std::unique_ptr<sql::Database> d = Loaded(&loaded);
  ASSERT_TRUE(d);
  {
    std::unique_ptr<OutputFile> out = OpenTestOutput(Path("file"), false);  // no directory
    ASSERT_TRUE(out);
    const sql::TablesExport t = sql::ExportTables(*d, /*csv=*/true, *out);
    ASSERT_TRUE(t.output_failure);
    EXPECT_EQ(t.output_failure->kind, FailureKind::kIo);
    EXPECT_EQ(t.processes, 0u);
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

}  // namespace
}  // namespace proctape
