// SPDX-License-Identifier: Apache-2.0
// The FILEs of `proctape sql` and `export --format sqlite|csv` loaded into
// one database (analyze/sql/load_files.h): in order, with where the load is
// and what it warns of given to callbacks; a FILE that is no .ptape, or a
// damaged one where damage does not load, stops it with its kind; the
// database saved as one SQLite file.
#include <gtest/gtest.h>
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
    path_ = dir_.File("typical.ptape");
    RecordOptions options;
    options.frames = true;
    Recorded rec = RecordResolution(host_, FakeHost::TypicalRequest(), path_, options);
    ASSERT_TRUE(rec.ok) << rec.error;
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
    std::filesystem::copy_file(path_, out);
    std::filesystem::resize_file(out, std::filesystem::file_size(out) - cut);
    return out;
  }

  FakeHost host_;
  ReplayTempDir dir_;
  std::string path_;
  std::vector<std::string> progress_;
  std::vector<std::string> warnings_;
};

TEST_F(SqlLoadFiles, EveryFileLoadsInOrderSayingWhereTheLoadIs) {
  sql::LoadFailure failure;
  std::unique_ptr<sql::Database> d = Load({path_, path_}, true, &failure);
  ASSERT_NE(d, nullptr) << failure.failure.message;
  EXPECT_EQ(d->Count("files"), 2u);
  EXPECT_GT(d->Count("processes"), 0u);
  EXPECT_EQ(progress_, (std::vector<std::string>{"loading 1 of 2: " + path_, "",
                                                 "loading 2 of 2: " + path_, ""}));
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
