// SPDX-License-Identifier: Apache-2.0
// The loader of `proctape sql` (analyze/sql/load.h, database.h) on files
// written from the in-memory host by the real recording path: every record
// and call becomes a row, holding the bytes as read; a tape's "same as" is
// resolved as the reader resolves it; a damaged file loads up to its damage,
// a file that is no .ptape loads nothing; a corpus file is named by the
// MANIFEST beside it.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "analyze/sql/database.h"
#include "analyze/sql/load.h"
#include "core/proc_parse.h"
#include "corpus/manifest.h"
#include "corpus/sha256.h"
#include "format/reader.h"
#include "format/snapshot_stream.h"
#include "replay/token_mask.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/failure_text.h"
#include "tests/unit/replay_fixture.h"

namespace proctape {
namespace {

using namespace test;
using namespace std::string_literals;

// The rows of `sql`, each as its columns' text ("NULL" for NULL).
std::vector<std::vector<std::string>> Rows(sqlite3* db, const std::string& sql) {
  std::vector<std::vector<std::string>> out;
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  if (s == nullptr) return out;
  while (sqlite3_step(s) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int i = 0; i < sqlite3_column_count(s); ++i) {
      if (sqlite3_column_type(s, i) == SQLITE_NULL) {
        row.emplace_back("NULL");
      } else {
        const char* t = static_cast<const char*>(sqlite3_column_blob(s, i));
        row.emplace_back(t == nullptr ? "" : t,
                         static_cast<std::size_t>(sqlite3_column_bytes(s, i)));
      }
    }
    out.push_back(std::move(row));
  }
  sqlite3_finalize(s);
  return out;
}

std::string FileBytesOf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string One(sqlite3* db, const std::string& sql) {
  auto rows = Rows(db, sql);
  return rows.size() == 1 && rows[0].size() == 1 ? rows[0][0] : "(not one value)";
}

class SqlLoad : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    path_ = dir_.File("typical.ptape");
    RecordOptions options;
    options.frames = true;
    Recorded rec = RecordResolution(host_, FakeHost::TypicalRequest(), path_, options);
    ASSERT_TRUE(rec.ok) << rec.error;
    ASSERT_TRUE(ReadSnapshot(path_, &snapshot_).ok());
    Failure failure;
    db_ = sql::Database::Open(&failure);
    ASSERT_NE(db_, nullptr) << failure.message;
  }

  FakeHost host_;
  ReplayTempDir dir_;
  std::string path_;
  Snapshot snapshot_;
  std::unique_ptr<sql::Database> db_;
};

TEST_F(SqlLoad, EveryProcessRecordIsARowHoldingTheBytesAsRecorded) {
  const sql::Loaded l = db_->Load(path_);
  ASSERT_FALSE(l.refused);
  ASSERT_EQ(l.error, "");
  EXPECT_EQ(l.damage, "");
  ASSERT_EQ(db_->Finish(), "");
  std::uint64_t records = 0;
  for (const v1::Frame& f : snapshot_.frames)
    records += static_cast<std::uint64_t>(f.processes_size());
  ASSERT_GT(records, 0u);
  EXPECT_EQ(l.processes, records);
  EXPECT_EQ(db_->Count("processes"), records);
  EXPECT_EQ(db_->Count("frames"), snapshot_.frames.size());
  // Raw /proc content is stored as bytes exactly as read: each BLOB is the
  // record's bytes (the token masked as every view masks it, '*' of its
  // length), and the parsed columns are what its stat says.
  const TokenMask mask = TokenMask::Of(snapshot_);
  for (const v1::Frame& f : snapshot_.frames) {
    for (const v1::ProcessRecord& p : f.processes()) {
      const std::string where =
          " WHERE frame = " + std::to_string(f.index()) + " AND pid = " + std::to_string(p.pid());
      auto rows = Rows(db_->get(),
                       "SELECT cmdline, environ, stat, status, start_ticks, ppid, comm, "
                       "exe_ino FROM processes" +
                           where);
      ASSERT_EQ(rows.size(), 1u) << where;
      EXPECT_EQ(rows[0][0], mask.Masked(p.cmdline().data())) << where;
      EXPECT_EQ(rows[0][1], mask.Masked(p.environ().data())) << where;
      EXPECT_EQ(rows[0][2], mask.Masked(p.stat().data())) << where;
      EXPECT_EQ(rows[0][3], mask.Masked(p.status().data())) << where;
      const StatFields s = *ParseStat(p.stat().data()).fields;
      EXPECT_EQ(rows[0][4], std::to_string(s.start_ticks)) << where;
      EXPECT_EQ(rows[0][5], std::to_string(s.ppid)) << where;
      EXPECT_EQ(rows[0][6], EscapeBytes(s.comm, 64)) << where;
      EXPECT_EQ(rows[0][7], std::to_string(p.exe().ino())) << where;
    }
  }
}

// The database of a recording of `host` (the typical request, with frames),
// loaded and indexed; null (and a failure) when it cannot be.
std::unique_ptr<sql::Database> LoadedRecording(FakeHost& host, const ReplayTempDir& dir) {
  const std::string path = dir.File("recorded.ptape");
  RecordOptions options;
  options.frames = true;
  Recorded rec = RecordResolution(host, FakeHost::TypicalRequest(), path, options);
  EXPECT_TRUE(rec.ok) << rec.error;
  Failure failure;
  std::unique_ptr<sql::Database> db = sql::Database::Open(&failure);
  EXPECT_NE(db, nullptr) << failure.message;
  if (!rec.ok || db == nullptr) return nullptr;
  EXPECT_EQ(db->Load(path).error, "");
  EXPECT_EQ(db->Finish(), "");
  return db;
}

// A status "Uid:" value past 2^32-1 is no uid (StatusIds): the column is
// NULL, never the value wrapped or taken whole.
TEST(SqlLoadUid, AUidPastTwoToThe32IsNull) {
  FakeHost host;
  host.SetFile(kHostPid3, ProcFile::kStatus, "Name:\tpostgres\nUid:\t4294967296\t0\t0\t0\n");
  host.SetFile(kMcpServer, ProcFile::kStatus, "Name:\tnode\nUid:\t1000\t1000\t1000\t1000\n");
  ReplayTempDir dir;
  ASSERT_TRUE(dir.ok());
  std::unique_ptr<sql::Database> db = LoadedRecording(host, dir);
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(One(db->get(), "SELECT DISTINCT quote(uid) FROM processes WHERE pid = 3"), "NULL");
  EXPECT_EQ(One(db->get(), "SELECT DISTINCT uid FROM processes WHERE pid = 4001"), "1000");
}

// docs/security.md "The token in outputs": an argv element is masked before
// it is cut at 4,096 bytes, so the 7 bytes of the token before the cut are
// stars too (cut first, they were too short a run to be found).
TEST(SqlLoadToken, AnArgvIsMaskedBeforeItIsCut) {
  FakeHost host;
  const std::string arg = std::string(4089, 'x') + kToken;
  host.SetFile(kHostPid3, ProcFile::kCmdline, "postgres\0"s + arg + "\0"s);
  ReplayTempDir dir;
  ASSERT_TRUE(dir.ok());
  std::unique_ptr<sql::Database> db = LoadedRecording(host, dir);
  ASSERT_NE(db, nullptr);
  const std::string argv = One(db->get(), "SELECT DISTINCT argv FROM processes WHERE pid = 3");
  EXPECT_EQ(argv, "postgres " + std::string(4089, 'x') + "*******...");
}

TEST_F(SqlLoad, TheTapeIsOneRowPerCallWithTheResultTheReaderResolves) {
  ASSERT_EQ(db_->Load(path_).error, "");
  ASSERT_FALSE(snapshot_.observations.empty());
  auto rows = Rows(db_->get(),
                   "SELECT idx, call, pid, err, bytes, truncated FROM observations ORDER BY idx");
  ASSERT_EQ(rows.size(), snapshot_.observations.size());
  // The reader resolves version 2's "same as observation K"; the loader,
  // which asks the stream not to copy, must give every call the same result.
  // The file holds such calls (re-reads of an unchanged file):
  FormatError open;
  std::unique_ptr<SnapshotStream> stream = SnapshotStream::Open(path_, &open);
  ASSERT_NE(stream, nullptr) << open.message;
  stream->set_resolve_same_as(false);
  int same_as = 0;
  while (stream->Next() == SnapshotStream::Result::kItem) {
    if (stream->item().kind != StreamItem::Kind::kObservations) continue;
    for (const v1::Observation& o : stream->item().chunk.observations().observations()) {
      same_as += o.same_as() != 0 ? 1 : 0;
    }
  }
  ASSERT_GT(same_as, 0) << "no call said 'same as': this test would prove nothing";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const v1::Observation& o = snapshot_.observations[i];
    EXPECT_EQ(rows[i][0], std::to_string(i));
    if (o.has_read_file()) {
      EXPECT_EQ(rows[i][1], "read_file");
      EXPECT_EQ(rows[i][2], std::to_string(o.read_file().pid()));
      EXPECT_EQ(rows[i][3], std::to_string(o.read_file().result().err())) << "call " << i;
      EXPECT_EQ(rows[i][4], std::to_string(o.read_file().result().data().size())) << "call " << i;
    } else if (o.has_list_pids()) {
      EXPECT_EQ(rows[i][1], "list_pids");
      EXPECT_EQ(rows[i][4], std::to_string(o.list_pids().names_size())) << "call " << i;
    }
  }
}

TEST_F(SqlLoad, ARecordedCheckIsARowWithItsRequestAndVerdict) {
  ASSERT_EQ(db_->Load(path_).error, "");
  ASSERT_EQ(snapshot_.resolutions.size(), 1u);
  const v1::Resolution& r = snapshot_.resolutions[0];
  auto rows = Rows(db_->get(),
                   "SELECT kind, status, pid, start_ticks, root_pid, exe_path, exe_ino, "
                   "first_observation, observation_count FROM resolutions");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "resolve");
  EXPECT_EQ(rows[0][1], "RESOLVED");
  EXPECT_EQ(rows[0][2], std::to_string(kSleep));
  EXPECT_EQ(rows[0][3], std::to_string(kSleepStart));
  EXPECT_EQ(rows[0][4], std::to_string(r.resolve().root_pid()));
  EXPECT_EQ(rows[0][5], "/bin/sleep");
  EXPECT_EQ(rows[0][6], std::to_string(r.resolve().exe_identity().ino()));
  EXPECT_EQ(rows[0][7], std::to_string(r.first_observation()));
  EXPECT_EQ(rows[0][8], std::to_string(r.observation_count()));
}

TEST_F(SqlLoad, ADamagedFileLoadsUpToItsDamageAndSaysWhere) {
  const std::string whole = [&] {
    std::ifstream in(path_, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  const std::string cut = dir_.File("cut.ptape");
  std::ofstream(cut, std::ios::binary) << whole.substr(0, whole.size() - 40);
  const sql::Loaded l = db_->Load(cut);
  ASSERT_FALSE(l.refused);
  ASSERT_EQ(l.error, "");
  ASSERT_NE(l.damage, "");
  EXPECT_EQ(One(db_->get(), "SELECT damage FROM files"), l.damage);
  EXPECT_EQ(One(db_->get(), "SELECT capture_end_mono_ns IS NULL FROM files"), "1")
      << "the footer was cut off";
  EXPECT_EQ(One(db_->get(), "SELECT bytes < " + std::to_string(whole.size()) + " FROM files"), "1");
}

TEST_F(SqlLoad, AFileThatIsNoPtapeIsRefusedAndLoadsNothing) {
  const std::string text = dir_.File("notes.txt");
  std::ofstream(text) << "not a capture\n";
  const sql::Loaded l = db_->Load(text);
  ASSERT_TRUE(l.refused);
  EXPECT_NE(l.refused->message, "");
  EXPECT_EQ(db_->Count("files"), 0u);
  EXPECT_EQ(db_->Count("processes"), 0u);
  // The next file takes file_id 1: a refused one holds no number.
  ASSERT_EQ(db_->Load(path_).error, "");
  EXPECT_EQ(One(db_->get(), "SELECT file_id FROM files"), "1");
}

TEST_F(SqlLoad, TheTablesAreTheSchemasInItsOrder) {
  std::vector<std::string> listed(std::begin(sql::kTables), std::end(sql::kTables));
  EXPECT_EQ(db_->Tables(), listed);
}

TEST_F(SqlLoad, TheSameFileTwiceIsTwoFilesAndTheIndexesHoldBoth) {
  ASSERT_EQ(db_->Load(path_).error, "");
  ASSERT_EQ(db_->Load(path_).error, "");
  ASSERT_EQ(db_->Finish(), "");
  EXPECT_EQ(One(db_->get(), "SELECT COUNT(DISTINCT file_id) FROM processes"), "2");
  EXPECT_EQ(One(db_->get(), "SELECT COUNT(DISTINCT sha256) FROM files"), "1");
  // The indexes say what is unique: a second row of one call is refused.
  char* message = nullptr;
  EXPECT_NE(
      sqlite3_exec(db_->get(), "INSERT INTO observations (file_id, idx, call) VALUES (1, 0, 'now')",
                   nullptr, nullptr, &message),
      SQLITE_OK);
  sqlite3_free(message);
}

TEST_F(SqlLoad, ACorpusFileIsNamedByTheManifestBesideIt) {
  Failure failure;
  std::optional<std::string> hashed = Sha256File(path_, &failure);
  ASSERT_TRUE(hashed) << failure.message;
  const std::string sha = *hashed;
  const std::string entry_file = dir_.File(CorpusFileName(sha));
  std::filesystem::copy_file(path_, entry_file);
  std::ofstream(dir_.File("MANIFEST"))
      << "# proctape corpus manifest, format 1\n\nentry    typical\nfile     "
      << CorpusFileName(sha) << "\nsha256   " << sha << "\nexpect   RESOLVED pid=" << kSleep
      << " start=" << kSleepStart << "\nscenario lab plain --sandbox unshare\n";
  const sql::Loaded l = db_->Load(entry_file);
  ASSERT_EQ(l.error, "");
  EXPECT_EQ(l.warning, "");
  EXPECT_EQ(One(db_->get(), "SELECT entry || ' / ' || scenario || ' / ' || sha256 FROM files"),
            "typical / lab plain --sandbox unshare / " + sha);
  // A file of the same directory that no entry names has none.
  ASSERT_EQ(db_->Load(path_).error, "");
  EXPECT_EQ(One(db_->get(), "SELECT entry IS NULL FROM files WHERE file_id = 2"), "1");
}

TEST_F(SqlLoad, AManifestThatDoesNotParseIsAWarningNotAFailure) {
  std::ofstream(dir_.File("MANIFEST")) << "entry\n";
  const sql::Loaded l = db_->Load(path_);
  ASSERT_EQ(l.error, "");
  EXPECT_NE(l.warning.find("MANIFEST"), std::string::npos) << l.warning;
  EXPECT_EQ(One(db_->get(), "SELECT entry IS NULL FROM files"), "1");
}

// Every value of every table, as bytes.
std::string EveryValue(sql::Database& db) {
  std::string all;
  for (const std::string& table : db.Tables()) {
    for (const auto& row : Rows(db.get(), "SELECT * FROM " + table)) {
      for (const std::string& v : row) all += v + "\n";
    }
  }
  return all;
}

// A recording keeps its token (the request's, the kept environ entry, the
// sandbox's argv); every view masks it, and so does the database: '*' of
// its length, in text and in the raw bytes.
TEST_F(SqlLoad, TheTokenIsMaskedAsEveryViewMasksIt) {
  ASSERT_NE(FileBytesOf(path_).find(kToken), std::string::npos) << "the file holds the token";
  ASSERT_EQ(db_->Load(path_).error, "");
  const std::string all = EveryValue(*db_);
  EXPECT_EQ(all.find(kToken), std::string::npos);
  EXPECT_NE(all.find("PROCTAPE_TOKEN=" + std::string(kToken.size(), '*')), std::string::npos);
}

// A request's token that the header does not name (no kept entry, no
// --token on its command line) is known only at the resolution, after the
// frames: the rows loaded before it are masked then.
TEST_F(SqlLoad, ATokenKnownOnlyAtItsResolutionIsMaskedInTheRowsBeforeIt) {
  Snapshot bare = snapshot_;
  bare.header.mutable_redaction()->clear_kept_entries();
  bare.header.clear_command_line();
  const std::string path = dir_.File("bare.ptape");
  std::string error;
  ASSERT_TRUE(WriteSnapshotFile(bare, path, &error)) << error;
  ASSERT_NE(FileBytesOf(path).find(kToken), std::string::npos);
  ASSERT_EQ(db_->Load(path).error, "");
  const std::string all = EveryValue(*db_);
  EXPECT_EQ(all.find(kToken), std::string::npos);
  EXPECT_NE(all.find(std::string(kToken.size(), '*')), std::string::npos);
}

TEST_F(SqlLoad, TheSavedDatabaseIsAnSqliteFileHoldingTheSameRows) {
  ASSERT_EQ(db_->Load(path_).error, "");
  ASSERT_EQ(db_->Finish(), "");
  OutputRequest request;
  request.path = dir_.File("saved.db");
  Failure refused;
  std::unique_ptr<OutputFile> out = OutputFile::Open(request, &refused);
  ASSERT_NE(out, nullptr) << refused.message;
  ASSERT_EQ(db_->SaveTo(*out), "");
  std::string error;
  ASSERT_EQ(Why(out->Commit()), "");
  sqlite3* saved = nullptr;
  ASSERT_EQ(sqlite3_open_v2(request.path.c_str(), &saved, SQLITE_OPEN_READONLY, nullptr),
            SQLITE_OK);
  EXPECT_EQ(One(saved, "SELECT COUNT(*) FROM processes"), std::to_string(db_->Count("processes")));
  EXPECT_EQ(One(saved, "SELECT COUNT(*) FROM pid_reuse"), "0");
  sqlite3_close(saved);
}

}  // namespace
}  // namespace proctape
