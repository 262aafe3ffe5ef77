// PreviousFrame (format/previous_frame.h): the table of the previous frame's
// records that version 2 references resolve against (docs/format.md section
// 9a). It gives back each remembered record byte for byte, keeps a cmdline
// or environ shared by many records once, and releases what a dropped frame
// held.
#include <gtest/gtest.h>

#include <string>

#include "format/file_format.h"
#include "format/previous_frame.h"
#include "proctape.pb.h"

namespace proctape {
namespace {

// A record of an idle CI worker: its own stat and status, the environ every
// worker of the job shares.
v1::ProcessRecord Worker(std::int64_t pid, const std::string& environ) {
  v1::ProcessRecord r;
  r.set_pid(pid);
  r.mutable_stat()->set_data(std::to_string(pid) + " (worker) S 1 1 1 0 -1 4194560 90 0 0 0 0 0 "
                             "0 0 20 0 1 0 " + std::to_string(1000 + pid) + " 2000000 100");
  r.mutable_cmdline()->set_data(std::string("worker\0--id\0", 12) + std::to_string(pid % 7) + '\0');
  r.mutable_environ()->set_data(environ);
  r.mutable_status()->set_data("Name:\tworker\nPid:\t" + std::to_string(pid) + "\nPPid:\t1\n");
  r.mutable_cgroup()->set_data("0::/ci\n");
  return r;
}

RecordKey KeyOfWorker(std::int64_t pid) {
  return RecordKey{pid, static_cast<std::uint64_t>(1000 + pid)};
}

TEST(PreviousFrameTest, GivesBackEachRecordByteForByteAndHoldsASharedEnvironOnce) {
  const std::string environ(2400, 'e');
  PreviousFrame table;
  table.BeginFrame(0);
  std::uint64_t serialized = 0;
  for (std::int64_t pid = 100; pid < 1100; ++pid) {
    v1::ProcessRecord r = Worker(pid, environ);
    const std::string before = r.SerializeAsString();
    serialized += before.size();
    table.Remember(&r);
    EXPECT_EQ(r.SerializeAsString(), before) << "Remember gives the record back as it came";
  }
  // 1,000 records of ~2.6 KB: the environ is held once.
  EXPECT_LT(table.bytes(), serialized / 5);
  EXPECT_GT(table.bytes(), environ.size());
  table.BeginFrame(1);
  for (std::int64_t pid = 100; pid < 1100; ++pid) {
    v1::ProcessRecord found;
    ASSERT_TRUE(table.Find(KeyOfWorker(pid), &found)) << pid;
    EXPECT_EQ(found.SerializeAsString(), Worker(pid, environ).SerializeAsString()) << pid;
  }
  v1::ProcessRecord none;
  EXPECT_FALSE(table.Find(RecordKey{100, 1}, &none)) << "another start tick is another process";
  // Two frames on, frame 0's records, and the environ they shared, are gone.
  table.BeginFrame(2);
  EXPECT_EQ(table.bytes(), 0u);
  EXPECT_FALSE(table.Find(KeyOfWorker(100), &none));
}

TEST(PreviousFrameTest, AbsentAndEmptyReadsStayAsTheyWere) {
  PreviousFrame table;
  table.BeginFrame(0);
  v1::ProcessRecord zombie = Worker(7, "");
  zombie.mutable_cmdline()->clear_data();  // a zombie's cmdline reads empty
  zombie.clear_environ();                  // and its environ was not kept
  const std::string want = zombie.SerializeAsString();
  table.Remember(&zombie);
  table.BeginFrame(1);
  v1::ProcessRecord found;
  ASSERT_TRUE(table.Find(KeyOfWorker(7), &found));
  EXPECT_EQ(found.SerializeAsString(), want);
  EXPECT_TRUE(found.has_cmdline());
  EXPECT_FALSE(found.has_environ());
}

// "A frame remembers its records, in order, while their serialized sizes
// total at most kMaxPreviousFrameBytes": the bound counts what the record
// is, not what the table holds of it (a reader and the writer agree on it).
TEST(PreviousFrameTest, TheBoundCountsSerializedSizesNotWhatIsHeld) {
  const std::string environ(1 << 20, 'e');  // 1 MiB, the same for every record
  PreviousFrame table;
  table.BeginFrame(0);
  const std::uint64_t each = Worker(1000, environ).ByteSizeLong();
  const std::int64_t fit = static_cast<std::int64_t>(kMaxPreviousFrameBytes / each);
  for (std::int64_t pid = 1000; pid < 1000 + fit + 3; ++pid) {
    v1::ProcessRecord r = Worker(pid, environ);
    table.Remember(&r);
  }
  EXPECT_LT(table.bytes(), 2 * environ.size());
  table.BeginFrame(1);
  v1::ProcessRecord found;
  EXPECT_TRUE(table.Find(KeyOfWorker(1000 + fit - 1), &found)) << "the last that fits";
  EXPECT_FALSE(table.Find(KeyOfWorker(1000 + fit), &found)) << "the first past the bound";
}

}  // namespace
}  // namespace proctape
