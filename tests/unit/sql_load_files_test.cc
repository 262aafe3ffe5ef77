// SPDX-License-Identifier: Apache-2.0
// The FILEs of `proctape sql` and `export --format sqlite|csv` loaded into
// one database (analyze/sql/load_files.h): in order, with where the load is
// and what it warns of given to callbacks; a FILE that is no .ptape, or a
// damaged one where damage does not load, stops it with its kind; the
// database saved as one SQLite file.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "analyze/sql/load_files.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/replay_fixture.h"

namespace proctape {
namespace {

using namespace test;

class SqlLoadFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    path_ = Record("typical.ptape", false);
    framed_ = Record("framed.ptape", true);
  }

  // A recording of the typical check into the directory, with frames or not.
  std::string Record(const std::string& name, bool frames) {
    RecordOptions options;
    options.frames = frames;
    const std::string path = dir_.File(name);
    Recorded rec = RecordResolution(host_, FakeHost::TypicalRequest(), path, options);
    EXPECT_TRUE(rec.ok) << rec.error;
    return path;
  }

  // Loads `files`, keeping what the callbacks were given.
  std::unique_ptr<sql::Database> Load(std::vector<std::string> files, bool damage_loads,
                                      sql::LoadFailure* failure) {
    sql::LoadRequest request{std::move(files), damage_loads, nullptr, nullptr};
    request.progress = [this](const std::string& line) { progress_.push_back(line); };
    request.warn = [this](const std::string& file, const std::string& what) {
      warnings_.push_back(file + " | " + what);
    };
    return sql::LoadDatabase(request, failure);
  }

  // A copy of the recording cut short by `cut` bytes.
  std::string Truncated(std::uintmax_t cut) {
    const std::string out = dir_.File("cut.ptape");
    std::filesystem::copy_file(framed_, out);
    std::filesystem::resize_file(out, std::filesystem::file_size(out) - cut);
    return out;
  }

  FakeHost host_;
  ReplayTempDir dir_;
  std::string path_;
  std::string framed_;
  std::vector<std::string> progress_;
  std::vector<std::string> warnings_;
};

TEST_F(SqlLoadFiles, EveryFileLoadsInOrderSayingWhereTheLoadIs) {
  sql::LoadFailure failure;
  std::unique_ptr<sql::Database> d = Load({path_, framed_}, true, &failure);
  ASSERT_NE(d, nullptr) << failure.failure.message;
  EXPECT_EQ(d->Count("files"), 2u);
  // Only the second holds frames: file_id follows the order given.
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(d->get(), "SELECT DISTINCT file_id FROM frames", -1, &s, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(s, 0), 2);
  EXPECT_EQ(sqlite3_step(s), SQLITE_DONE);
  sqlite3_finalize(s);
  EXPECT_EQ(progress_, (std::vector<std::string>{"loading 1 of 2: " + path_, "",
                                                 "loading 2 of 2: " + framed_, ""}));
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(SqlLoadFiles, AFileThatIsNoPtapeStopsTheLoadWithItsKind) {
  const std::string text = dir_.File("notes.txt");
  std::ofstream(text) << "not a snapshot at all, but long enough to read a preamble from\n";
  sql::LoadFailure failure;
  EXPECT_EQ(Load({path_, text}, true, &failure), nullptr);
  EXPECT_EQ(failure.failure.kind, FailureKind::kBadMagic);
  EXPECT_EQ(failure.file, text);
  EXPECT_EQ(progress_.back(), "");

  EXPECT_EQ(Load({dir_.File("missing.ptape")}, true, &failure), nullptr);
  EXPECT_EQ(failure.failure.kind, FailureKind::kIo);
}

TEST_F(SqlLoadFiles, ADamagedFileLoadsUpToItsDamageOnlyWhenDamageLoads) {
  const std::string cut = Truncated(3);
  sql::LoadFailure failure;
  std::unique_ptr<sql::Database> d = Load({cut}, true, &failure);
  ASSERT_NE(d, nullptr) << failure.failure.message;
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_EQ(warnings_[0].rfind(cut + " | loaded up to its damage: ", 0), 0u) << warnings_[0];

  EXPECT_EQ(Load({cut}, false, &failure), nullptr);
  EXPECT_EQ(failure.failure.kind, FailureKind::kTruncated);
  EXPECT_EQ(failure.file, cut);
}

TEST_F(SqlLoadFiles, TheDatabaseIsSavedAsOneSqliteFile) {
  sql::LoadFailure failure;
  std::unique_ptr<sql::Database> d = Load({path_}, true, &failure);
  ASSERT_NE(d, nullptr);
  Failure refused;
  OutputRequest request;
  request.path = dir_.File("run.db");
  std::unique_ptr<OutputFile> out = OutputFile::Open(request, &refused);
  ASSERT_NE(out, nullptr) << refused.message;
  EXPECT_FALSE(sql::SaveDatabase(*d, *out));
  std::ifstream saved(request.path, std::ios::binary);
  std::string magic(15, '\0');
  saved.read(magic.data(), 15);
  EXPECT_EQ(magic, "SQLite format 3");
}

}  // namespace
}  // namespace proctape
