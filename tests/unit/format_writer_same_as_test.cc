// SPDX-License-Identifier: Apache-2.0
// The writer's "same as observation K" (docs/format.md section 9a, "Tapes:
// only what changed"): chosen only when the call's new result is byte for
// byte its last one, and read back as exactly the observation given.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "format/chunk_reader.h"
#include "format/file_format.h"
#include "format/reader.h"
#include "format/writer.h"
#include "proctape.pb.h"
#include "tests/unit/format_writer_fixture.h"

namespace proctape {
namespace {

using namespace proctape::test;

v1::Observation Read(std::int64_t pid, const std::string& data, std::uint64_t bound = 4096) {
  v1::Observation o;
  o.set_mono_ns(100 + pid);
  o.mutable_read_file()->set_pid(pid);
  o.mutable_read_file()->set_file(v1::PROC_FILE_STAT);
  o.mutable_read_file()->mutable_result()->set_bound(bound);
  o.mutable_read_file()->mutable_result()->set_data(data);
  return o;
}

v1::Observation Clock(std::int64_t ns) {
  v1::Observation o;
  o.mutable_now()->set_result_ns(ns);
  return o;
}

class FormatWriterSameAsTest : public FormatWriterTest {
 protected:
  // Writes `observations` (indexes set in order), returns what the file
  // holds raw (each observation as stored) and as read.
  void WriteAndRead(std::vector<v1::Observation> observations, std::vector<v1::Observation>* raw,
                    Snapshot* read) {
    for (std::size_t i = 0; i < observations.size(); ++i) observations[i].set_index(i);
    const std::string path = Path("t.ptape");
    Failure failure;
    auto w = SnapshotWriter::Create(path, {}, &failure);
    ASSERT_NE(w, nullptr) << failure.message;
    ASSERT_TRUE(w->WriteHeader(v1::Header()));
    for (const v1::Observation& o : observations)
      ASSERT_TRUE(w->AddObservation(v1::Observation(o)));
    ASSERT_TRUE(w->Finish({})) << w->error();
    FormatError e;
    auto reader = ChunkReader::Open(path, &e);
    ASSERT_NE(reader, nullptr) << e.message;
    v1::Chunk c;
    while (reader->Next(&c) == ChunkReader::Result::kChunk) {
      for (const auto& o : c.observations().observations()) raw->push_back(o);
    }
    ASSERT_TRUE(ReadSnapshot(path, read).ok());
    ASSERT_EQ(read->observations.size(), observations.size());
    for (std::size_t i = 0; i < observations.size(); ++i) {
      EXPECT_TRUE(Same(observations[i], read->observations[i])) << i;
    }
  }
};

std::vector<std::uint64_t> SameAs(const std::vector<v1::Observation>& raw) {
  std::vector<std::uint64_t> out;
  for (const auto& o : raw) out.push_back(o.same_as());
  return out;
}

TEST_F(FormatWriterSameAsTest, SameAsOnlyWhenTheSameCallsBytesAreEqual) {
  std::vector<v1::Observation> raw;
  Snapshot read;
  WriteAndRead({Read(7, "7 (a) S 1"), Clock(5), Read(7, "7 (a) S 1"), Read(7, "7 (a) S 2"),
                Read(7, "7 (a) S 2"), Read(8, "7 (a) S 2"), Read(7, "7 (a) S 2", 100), Clock(5),
                Read(7, "7 (a) S 1")},
               &raw, &read);
  // 2 is 0 again; 4 is 3 again; 5 (pid 8), 6 (another bound) and the clock
  // readings are other calls; 8 is 0's bytes, but 4 is its call's last.
  EXPECT_EQ(SameAs(raw), (std::vector<std::uint64_t>{0, 0, 2, 0, 1, 0, 0, 0, 0}));
  EXPECT_TRUE(raw[2].read_file().result().data().empty());
  EXPECT_EQ(raw[2].read_file().result().bound(), 4096u);
}

// docs/format.md section 9a, "Across the whole file": a resolution's read
// repeating one of an earlier resolution is written as "same as" it.
TEST_F(FormatWriterSameAsTest, SameAsReachesAnEarlierResolutionsObservation) {
  const std::string path = Path("t.ptape");
  Failure failure;
  auto w = SnapshotWriter::Create(path, {}, &failure);
  ASSERT_NE(w, nullptr) << failure.message;
  ASSERT_TRUE(w->WriteHeader(v1::Header()));
  for (std::uint64_t i : {0u, 1u}) {
    v1::Observation o = Read(7, "7 (a) S 1");
    o.set_index(i);
    ASSERT_TRUE(w->AddObservation(std::move(o)));
    v1::Resolution r;
    r.mutable_liveness()->set_pid(7);
    r.set_first_observation(i);
    r.set_observation_count(1);
    ASSERT_TRUE(w->WriteResolution(r)) << w->error();
  }
  ASSERT_TRUE(w->Finish({})) << w->error();
  std::vector<v1::Observation> raw;
  for (const v1::Chunk& c : RawChunks(path)) {
    for (const auto& o : c.observations().observations()) raw.push_back(o);
  }
  EXPECT_EQ(SameAs(raw), (std::vector<std::uint64_t>{0, 1}));
  Snapshot read;
  ASSERT_TRUE(ReadSnapshot(path, &read).ok());
  ASSERT_EQ(read.observations.size(), 2u);
  EXPECT_EQ(read.observations[1].read_file().result().data(), "7 (a) S 1");
}

TEST_F(FormatWriterSameAsTest, EveryKindOfResultReadsBackExactly) {
  v1::Observation list;
  list.mutable_list_pids()->set_bound(10);
  list.mutable_list_pids()->add_names(std::string("1"));
  list.mutable_list_pids()->add_names(std::string("7"));
  v1::Observation exe;
  exe.mutable_exe_identity()->set_pid(7);
  exe.mutable_exe_identity()->mutable_result()->set_ino(42);
  v1::Observation exe_empty;  // a present, empty result is not an absent one
  exe_empty.mutable_exe_identity()->set_pid(7);
  exe_empty.mutable_exe_identity()->mutable_result();
  v1::Observation exe_absent;
  exe_absent.mutable_exe_identity()->set_pid(7);
  v1::Observation path;
  path.mutable_path_identity()->set_path("/bin/sleep");
  path.mutable_path_identity()->mutable_result()->set_err(2);
  v1::Observation failed = Read(7, "");
  failed.mutable_read_file()->mutable_result()->set_err(3);
  v1::Observation failed2 = failed;
  failed2.mutable_read_file()->mutable_result()->set_truncated(true);
  std::vector<v1::Observation> raw;
  Snapshot read;
  WriteAndRead({list, list, exe, exe, exe_empty, exe_absent, exe_absent, path, path, failed, failed,
                failed2},
               &raw, &read);
  EXPECT_EQ(SameAs(raw), (std::vector<std::uint64_t>{0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 0}));
}

TEST_F(FormatWriterSameAsTest, ResultsPastTheWritersBudgetAreWrittenWhole) {
  // Each result is 1 MiB: the budget keeps kWriterTapeBytes of them; the
  // calls past it are written whole, their repeats too.
  const std::string mib(1u << 20, 'x');
  const std::int64_t kept = static_cast<std::int64_t>(kWriterTapeBytes / (mib.size() + 1));
  std::vector<v1::Observation> in;
  for (std::int64_t pid = 1; pid <= kept + 1; ++pid) in.push_back(Read(pid, mib));
  for (std::int64_t pid = 1; pid <= kept + 1; ++pid) in.push_back(Read(pid, mib));
  std::vector<v1::Observation> raw;
  Snapshot read;
  WriteAndRead(in, &raw, &read);
  ASSERT_EQ(raw.size(), in.size());
  const std::size_t n = static_cast<std::size_t>(kept) + 1;
  for (std::size_t i = n; i + 1 < 2 * n; ++i) EXPECT_EQ(raw[i].same_as(), n) << i;
  EXPECT_EQ(raw[2 * n - 1].same_as(), 0u);
}

}  // namespace
}  // namespace proctape
