// SPDX-License-Identifier: Apache-2.0
// analyze/sql/fd_vfs.h: a database made in an open descriptor (`sql --db`,
// `export --format sqlite|csv`) holds what the in-memory database holds, row
// for row; a database made in its output's file is committed without a copy,
// one made elsewhere is copied; the VFS opens nothing but "fd:N".
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "analyze/sql/database.h"
#include "analyze/sql/export.h"
#include "analyze/sql/fd_vfs.h"
#include "analyze/sql/query.h"
#include "fs/output_file.h"
#include "tests/unit/export_run_fixture.h"
#include "tests/unit/format_bytes.h"

namespace proctape {
namespace {

using namespace proctape::test;

// The recording loaded and indexed, in memory (-1) or in `fd`.
std::unique_ptr<sql::Database> Loaded(int fd) {
  Failure failure;
  std::unique_ptr<sql::Database> d = sql::Database::Open(&failure, fd);
  EXPECT_TRUE(d) << failure.message;
  if (!d) return nullptr;
  const sql::Loaded loaded = d->Load(ShippedRecording());
  EXPECT_EQ(loaded.error, "");
  EXPECT_GT(loaded.observations, 0u);
  EXPECT_EQ(d->Finish(), "");
  return d;
}

// Every table of `db` as CSV, in schema order.
std::string Dump(sqlite3* db) {
  std::string all;
  for (const char* table : sql::kTables) {
    char* text = nullptr;
    std::size_t size = 0;
    FILE* out = ::open_memstream(&text, &size);
    EXPECT_EQ(sql::Run(db, std::string("SELECT * FROM ") + table, sql::Format::kCsv, out), "");
    std::fclose(out);
    all += std::string(table) + "\n" + std::string(text, size);
    std::free(text);
  }
  return all;
}

// The committed file, opened by SQLite's own VFS: its rows and its check.
std::string DumpFile(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* check = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &check, nullptr);
  EXPECT_EQ(sqlite3_step(check), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(check, 0)), "ok");
  sqlite3_finalize(check);
  std::string rows = Dump(db);
  sqlite3_close(db);
  return rows;
}

class SqlFdVfsTest : public TempDirTest {};

TEST_F(SqlFdVfsTest, MadeInItsOutputTheFileHoldsTheInMemoryRows) {
  std::unique_ptr<sql::Database> memory = Loaded(-1);
  ASSERT_TRUE(memory);
  const std::string expected = Dump(memory->get());
  ASSERT_NE(expected.find("\nobservations\n"), std::string::npos);

  OutputRequest request;
  request.path = Path("out.db");
  request.readable = true;
  std::unique_ptr<OutputFile> out = OpenTestOutput(request);
  ASSERT_TRUE(out);
  ASSERT_EQ(sql::ExportDatabaseFd(/*csv=*/false, *out), out->fd());
  std::unique_ptr<sql::Database> d = Loaded(out->fd());
  ASSERT_TRUE(d);
  EXPECT_EQ(Dump(d->get()), expected);
  // Its pages are in the temporary already: SaveTo writes nothing more.
  const auto written = static_cast<std::uint64_t>(::lseek(out->fd(), 0, SEEK_END));
  EXPECT_EQ(written, d->ImageBytes());
  EXPECT_EQ(d->SaveTo(*out), "");
  EXPECT_EQ(static_cast<std::uint64_t>(::lseek(out->fd(), 0, SEEK_END)), written);
  ASSERT_FALSE(out->Commit());
  EXPECT_EQ(std::filesystem::file_size(Path("out.db")), d->ImageBytes());
  EXPECT_EQ(DumpFile(Path("out.db")), expected);
  // Committed (its descriptor closed and renamed), it is still queried.
  EXPECT_EQ(Dump(d->get()), expected);
}

TEST_F(SqlFdVfsTest, MadeInAnotherFileItIsCopiedToTheOutput) {
  const int scratch = ::open(dir_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  ASSERT_GE(scratch, 0);
  std::unique_ptr<sql::Database> d = Loaded(scratch);
  ::close(scratch);  // the database holds its own descriptor
  ASSERT_TRUE(d);
  const std::string expected = Dump(d->get());
  // An output not opened readable is not made in: the database is copied.
  std::unique_ptr<OutputFile> out = OpenTestOutput(Path("copy.db"), false);
  ASSERT_TRUE(out);
  EXPECT_EQ(sql::ExportDatabaseFd(/*csv=*/false, *out), -1);
  EXPECT_EQ(d->SaveTo(*out), "");
  ASSERT_FALSE(out->Commit());
  EXPECT_EQ(DumpFile(Path("copy.db")), expected);
}

TEST_F(SqlFdVfsTest, TheVfsOpensOnlyAnOpenDescriptorByItsName) {
  const std::string good = sql::FdDatabaseName(STDERR_FILENO);  // registers the VFS
  EXPECT_EQ(good, "fd:2");
  for (const char* name : {"x.db", "fd:", "fd:-1", "fd:2x", "fd:999999"}) {
    sqlite3* db = nullptr;
    EXPECT_NE(
        sqlite3_open_v2(name, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, sql::kFdVfsName),
        SQLITE_OK)
        << name;
    sqlite3_close(db);
  }
}

}  // namespace
}  // namespace proctape
