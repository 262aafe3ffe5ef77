// SPDX-License-Identifier: Apache-2.0
// PreviousFrame (format/previous_frame.h): the table of the previous frame's
// records that version 2 references resolve against (docs/format.md section
// 9a). It gives back each remembered record byte for byte, keeps a cmdline
// or environ shared by many records once, and releases what a dropped frame
// held.
#include <gtest/gtest.h>

#include <optional>
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
  r.mutable_stat()->set_data(std::to_string(pid) +
                             " (worker) S 1 1 1 0 -1 4194560 90 0 0 0 0 0 "
                             "0 0 20 0 1 0 " +
                             std::to_string(1000 + pid) + " 2000000 100");
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

// docs/format.md section 9a, "What the reader keeps": each record that still
// fits is remembered (by its serialized size), one too large is skipped and
// keeps its key, a record without a key or with a key taken is not counted.
TEST(PreviousFrameTest, EachRecordThatStillFitsIsRemembered) {
  PreviousFrame table;
  table.BeginFrame(0);
  const auto remember = [&table](std::int64_t pid, std::size_t environ_bytes) {
    v1::ProcessRecord r = Worker(pid, std::string(environ_bytes, 'e'));
    table.Remember(&r);
  };
  remember(1, 40 << 20);  // fits: 40 MiB of 64
  remember(2, 30 << 20);  // 70 MiB: skipped
  remember(3, 1 << 10);   // still fits after the one skipped
  remember(2, 1 << 10);   // pid 2 again: its key is taken, by the skipped one
  v1::ProcessRecord keyless = Worker(4, "");
  keyless.mutable_stat()->set_data("4 (worker) S 1");  // does not parse: no key
  table.Remember(&keyless);
  table.BeginFrame(1);
  v1::ProcessRecord found;
  EXPECT_TRUE(table.Find(KeyOfWorker(1), &found));
  EXPECT_FALSE(table.Find(KeyOfWorker(2), &found)) << "too large for what was left";
  EXPECT_TRUE(table.Find(KeyOfWorker(3), &found)) << "a smaller record after it still fits";
}

// docs/format.md section 9a, "The key" and "The stat parse": the record's
// own pid and the start tick of a stat that was read and parses.
TEST(PreviousFrameTest, KeyIsTheRecordsPidAndTheStartTickOfItsStat) {
  const std::string fields = " (a b) S 0 -0 -7 x y z 0 0 0 0 0 0 0 0 0 0 0 0 ";  // fields 2 to 21
  struct Case {
    const char* what;
    std::string stat;
    int err;
    bool truncated;
    std::optional<std::uint64_t> start;  // the key's start tick, or no key
  };
  const Case cases[] = {
      {"another pid in field 1", "9" + fields + "77", 0, false, 77},
      {"one final newline", "5" + fields + "77\n", 0, false, 77},
      {"two final newlines", "5" + fields + "77\n\n", 0, false, std::nullopt},
      {"fields after 22", "5" + fields + "77 8 9", 0, false, 77},
      {"start tick 0", "5" + fields + "0", 0, false, 0},
      {"truncated", "5" + fields + "77 123", 0, true, 77},
      {"a failed read", "", 2, false, std::nullopt},
      {"the worked example's", "42 (sleep) S 1 42 42 0 -1", 0, false, std::nullopt},
      {"an empty field 4", "5 (a) S  -0 -7 x y z 0 0 0 0 0 0 0 0 0 0 0 0 77", 0, false,
       std::nullopt},
  };
  for (const Case& c : cases) {
    v1::ProcessRecord r;
    r.set_pid(5);
    r.mutable_stat()->set_data(c.stat);
    r.mutable_stat()->set_err(c.err);
    r.mutable_stat()->set_truncated(c.truncated);
    const std::optional<RecordKey> key = KeyOf(r);
    ASSERT_EQ(key.has_value(), c.start.has_value()) << c.what;
    if (key) {
      EXPECT_EQ(*key, (RecordKey{5, *c.start})) << c.what;
    }
  }
  v1::ProcessRecord no_stat;
  no_stat.set_pid(5);
  EXPECT_FALSE(KeyOf(no_stat).has_value()) << "no stat";
}

}  // namespace
}  // namespace proctape
