// SPDX-License-Identifier: Apache-2.0
// TapeEvidence (`docs/replay.md`, "Two models"): each call the resolver makes
// is matched against the next recorded observation (same operation, pid, file
// and bound) and answered with the recorded result; the clock returns
// recorded monotonic times and sleeping is virtual. A call the tape does not
// hold is a divergence, kept with its index, the recorded call and the call
// made; from then on nothing is answered from the tape.
#include "replay/tape_evidence.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "core/resolver.h"
#include "tests/unit/fake_host.h"

namespace proctape {
namespace {

constexpr std::int64_t kT0 = 1'000'000'000;

// Builders of recorded observations, index set by position.
class Tape {
 public:
  Tape& List(std::uint64_t bound, std::vector<std::string> names, int err = 0,
             bool truncated = false) {
    v1::Observation& o = Add();
    o.mutable_list_pids()->set_bound(bound);
    for (auto& n : names) o.mutable_list_pids()->add_names(n);
    o.mutable_list_pids()->set_err(err);
    o.mutable_list_pids()->set_truncated(truncated);
    return *this;
  }
  Tape& Read(std::int64_t pid, v1::ProcFile file, std::uint64_t bound, std::string data,
             int err = 0, bool truncated = false) {
    v1::Observation& o = Add();
    o.mutable_read_file()->set_pid(pid);
    o.mutable_read_file()->set_file(file);
    v1::FileRead* r = o.mutable_read_file()->mutable_result();
    r->set_bound(bound);
    r->set_data(data);
    r->set_err(err);
    r->set_truncated(truncated);
    return *this;
  }
  Tape& Exe(std::int64_t pid, std::uint64_t dev, std::uint64_t ino, int err = 0) {
    v1::Observation& o = Add();
    o.mutable_exe_identity()->set_pid(pid);
    o.mutable_exe_identity()->mutable_result()->set_dev(dev);
    o.mutable_exe_identity()->mutable_result()->set_ino(ino);
    o.mutable_exe_identity()->mutable_result()->set_err(err);
    return *this;
  }
  Tape& Path(std::string path, std::uint64_t dev, std::uint64_t ino, int err = 0) {
    v1::Observation& o = Add();
    o.mutable_path_identity()->set_path(path);
    o.mutable_path_identity()->mutable_result()->set_dev(dev);
    o.mutable_path_identity()->mutable_result()->set_ino(ino);
    o.mutable_path_identity()->mutable_result()->set_err(err);
    return *this;
  }
  Tape& Now(std::int64_t ns) {
    Add().mutable_now()->set_result_ns(ns);
    return *this;
  }
  Tape& Sleep(std::int64_t until) {
    Add().mutable_sleep_until()->set_until_ns(until);
    return *this;
  }
  const std::vector<v1::Observation>& obs() const { return obs_; }

 private:
  v1::Observation& Add() {
    obs_.emplace_back();
    obs_.back().set_index(obs_.size() - 1);
    obs_.back().set_mono_ns(static_cast<std::int64_t>(obs_.size()) * 1000);
    return obs_.back();
  }
  std::vector<v1::Observation> obs_;
};

TEST(TapeEvidence, AnswersEachCallWithItsRecordedResult) {
  Tape t;
  t.Now(7'000'000'000)
      .List(65536, {"2", "3", "4103"}, 0, true)
      .Read(4103, v1::PROC_FILE_STAT, 4096, std::string("4103 (s\0p) S\n", 13))
      .Read(4103, v1::PROC_FILE_ENVIRON, 8, std::string("A=*\0B=**", 8), 0, true)
      .Read(3, v1::PROC_FILE_CMDLINE, 65536, "", EACCES)
      .Exe(4103, 2051, 1311)
      .Exe(2, 0, 0, ENOENT)
      .Path("/bin/sleep", 2051, 1311)
      .Sleep(7'100'000'000)
      .Now(7'100'000'001);
  TapeEvidence tape(t.obs(), 0, t.obs().size());
  EXPECT_EQ(tape.count(), 10u);

  EXPECT_EQ(tape.NowNs(), 7'000'000'000);
  ListResult list = tape.ListPids(65536);
  EXPECT_EQ(list.err, 0);
  EXPECT_EQ(list.names, (std::vector<std::string_view>{"2", "3", "4103"}));
  EXPECT_TRUE(list.truncated);
  ReadResult stat = tape.ReadFile(4103, ProcFile::kStat, 4096);
  EXPECT_EQ(stat.err, 0);
  EXPECT_EQ(stat.data, std::string("4103 (s\0p) S\n", 13));  // bytes exactly, NUL included
  EXPECT_FALSE(stat.truncated);
  ReadResult env = tape.ReadFile(4103, ProcFile::kEnviron, 8);
  EXPECT_EQ(env.data, std::string("A=*\0B=**", 8));
  EXPECT_TRUE(env.truncated);
  ReadResult denied = tape.ReadFile(3, ProcFile::kCmdline, 65536);
  EXPECT_EQ(denied.err, EACCES);
  EXPECT_TRUE(denied.data.empty());
  EXPECT_EQ(tape.ExeIdentity(4103), (Identity{0, 2051, 1311}));
  EXPECT_EQ(tape.ExeIdentity(2), (Identity{ENOENT, 0, 0}));
  EXPECT_EQ(tape.PathIdentity("/bin/sleep"), (Identity{0, 2051, 1311}));
  tape.SleepUntil(7'100'000'000);          // virtual: answered from the tape, no real wait
  EXPECT_EQ(tape.NowNs(), 7'100'000'001);  // the recorded clock, not the sleep target

  EXPECT_FALSE(tape.diverged());
  EXPECT_EQ(tape.consumed(), 10u);
}

// A call differing from the next recorded one in any one thing diverges at
// that observation.
TEST(TapeEvidence, AnyDifferenceInOperationOrArgumentsIsADivergence) {
  Tape t;
  t.Now(1).List(100, {"2"}).Read(4103, v1::PROC_FILE_CMDLINE, 65536, "x").Exe(4103, 1, 1);
  t.Path("/bin/sleep", 1, 1).Sleep(500);
  struct Case {
    const char* what;
    std::size_t skip;  // calls made correctly first
    std::function<void(TapeEvidence&)> call;
    const char* made;
  };
  std::vector<Case> cases = {
      {"operation", 0, [](TapeEvidence& e) { e.ListPids(100); }, "ListPids(bound 100)"},
      {"list bound", 1, [](TapeEvidence& e) { e.ListPids(101); }, "ListPids(bound 101)"},
      {"pid", 2, [](TapeEvidence& e) { e.ReadFile(4104, ProcFile::kCmdline, 65536); },
       "ReadFile(pid 4104, cmdline, bound 65536)"},
      {"file", 2, [](TapeEvidence& e) { e.ReadFile(4103, ProcFile::kEnviron, 65536); },
       "ReadFile(pid 4103, environ, bound 65536)"},
      {"bound", 2, [](TapeEvidence& e) { e.ReadFile(4103, ProcFile::kCmdline, 65535); },
       "ReadFile(pid 4103, cmdline, bound 65535)"},
      {"exe pid", 3, [](TapeEvidence& e) { e.ExeIdentity(1); }, "ExeIdentity(pid 1)"},
      {"path", 4, [](TapeEvidence& e) { e.PathIdentity("/usr/bin/sleep"); },
       "PathIdentity(/usr/bin/sleep)"},
      {"sleep target", 5, [](TapeEvidence& e) { e.SleepUntil(501); }, "SleepUntil(501)"},
  };
  const char* recorded[] = {"Now()",
                            "ListPids(bound 100)",
                            "ReadFile(pid 4103, cmdline, bound 65536)",
                            "ExeIdentity(pid 4103)",
                            "PathIdentity(/bin/sleep)",
                            "SleepUntil(500)"};
  for (const Case& c : cases) {
    TapeEvidence tape(t.obs(), 0, t.obs().size());
    // The calls before, made as recorded.
    if (c.skip > 0) tape.NowNs();
    if (c.skip > 1) tape.ListPids(100);
    if (c.skip > 2) tape.ReadFile(4103, ProcFile::kCmdline, 65536);
    if (c.skip > 3) tape.ExeIdentity(4103);
    if (c.skip > 4) tape.PathIdentity("/bin/sleep");
    ASSERT_FALSE(tape.diverged()) << c.what;
    c.call(tape);
    ASSERT_TRUE(tape.diverged()) << c.what;
    EXPECT_EQ(tape.divergence().index, c.skip) << c.what;
    EXPECT_EQ(tape.divergence().recorded, recorded[c.skip]) << c.what;
    EXPECT_EQ(tape.divergence().made, c.made) << c.what;
    EXPECT_EQ(tape.consumed(), c.skip) << c.what;
  }
}

// After a divergence nothing more comes from the tape: reads fail with EIO,
// identities too, the clock reads far past any deadline; the first
// divergence is the one kept.
TEST(TapeEvidence, AfterADivergenceEverythingFailsAndTheFirstOneIsKept) {
  Tape t;
  t.Now(1).Read(2, v1::PROC_FILE_STAT, 4096, "2 (k) S\n").Now(2);
  TapeEvidence tape(t.obs(), 0, t.obs().size());
  EXPECT_EQ(tape.NowNs(), 1);
  EXPECT_EQ(tape.ReadFile(3, ProcFile::kStat, 4096).err, EIO);  // diverges at 1
  ASSERT_TRUE(tape.diverged());
  // The recorded next call, made now, is not answered either.
  ReadResult r = tape.ReadFile(2, ProcFile::kStat, 4096);
  EXPECT_EQ(r.err, EIO);
  EXPECT_TRUE(r.data.empty());
  EXPECT_EQ(tape.ListPids(10).err, EIO);
  EXPECT_EQ(tape.ExeIdentity(2).err, EIO);
  EXPECT_EQ(tape.PathIdentity("/bin/sleep").err, EIO);
  EXPECT_GT(tape.NowNs(), std::int64_t{1} << 61);
  tape.SleepUntil(5);
  EXPECT_EQ(tape.divergence().index, 1u);
  EXPECT_EQ(tape.divergence().made, "ReadFile(pid 3, stat, bound 4096)");
  EXPECT_EQ(tape.divergence().recorded, "ReadFile(pid 2, stat, bound 4096)");
  EXPECT_EQ(tape.consumed(), 1u);
}

TEST(TapeEvidence, PastTheEndIsADivergenceAtTheEnd) {
  Tape t;
  t.Now(1);
  TapeEvidence tape(t.obs(), 0, 1);
  EXPECT_EQ(tape.NowNs(), 1);
  EXPECT_EQ(tape.ListPids(10).err, EIO);
  ASSERT_TRUE(tape.diverged());
  EXPECT_EQ(tape.divergence().index, 1u);
  EXPECT_EQ(tape.divergence().recorded, "end of tape");
  EXPECT_EQ(tape.divergence().made, "ListPids(bound 10)");

  std::vector<v1::Observation> empty;
  TapeEvidence none(empty, 0, 0);
  none.SleepUntil(3);
  EXPECT_TRUE(none.diverged());
  EXPECT_EQ(none.divergence().index, 0u);
  EXPECT_EQ(none.divergence().recorded, "end of tape");
}

// A resolution's tape is a window [first, first + count) of the file's
// observations; indexes in a divergence are within the window. A window the
// file does not hold is clamped, never read out of bounds.
TEST(TapeEvidence, ServesOnlyItsWindowAndClampsOneOutOfRange) {
  Tape t;
  t.Now(10).Now(20).Now(30).Now(40);
  TapeEvidence mid(t.obs(), 1, 2);
  EXPECT_EQ(mid.count(), 2u);
  EXPECT_EQ(mid.NowNs(), 20);
  EXPECT_EQ(mid.NowNs(), 30);
  EXPECT_FALSE(mid.diverged());
  mid.NowNs();  // 40 is outside the window
  ASSERT_TRUE(mid.diverged());
  EXPECT_EQ(mid.divergence().index, 2u);
  EXPECT_EQ(mid.divergence().recorded, "end of tape");

  TapeEvidence too_long(t.obs(), 2, 1000);
  EXPECT_EQ(too_long.count(), 2u);
  TapeEvidence past(t.obs(), 9, 3);
  EXPECT_EQ(past.count(), 0u);
  past.NowNs();
  EXPECT_TRUE(past.diverged());
  TapeEvidence huge(t.obs(), 1, UINT64_MAX);
  EXPECT_EQ(huge.count(), 3u);
}

// The recorded time of an observation (mono_ns) and its index are not part
// of the call: only operation and arguments must match.
TEST(TapeEvidence, StampsAndResultsAreNotPartOfTheMatch) {
  Tape t;
  t.Read(5, v1::PROC_FILE_STAT, 4096, "whatever", ENOENT, true);
  std::vector<v1::Observation> obs = t.obs();
  obs[0].set_index(77);
  obs[0].set_mono_ns(-5);
  TapeEvidence tape(obs, 0, 1);
  ReadResult r = tape.ReadFile(5, ProcFile::kStat, 4096);
  EXPECT_FALSE(tape.diverged());
  EXPECT_EQ(r.err, ENOENT);
  EXPECT_EQ(r.data, "whatever");  // as recorded, even with an errno
  EXPECT_TRUE(r.truncated);
}

TEST(TapeEvidence, DescribeCallNamesEveryOperation) {
  Tape t;
  t.List(65536, {}).Read(4103, v1::PROC_FILE_ENVIRON, 65536, "").Exe(4103, 0, 0);
  t.Path(std::string("/bin/\xff\nsleep"), 0, 0).Now(5).Sleep(1'100'000'000);
  std::vector<std::string> got;
  for (const auto& o : t.obs()) got.push_back(DescribeCall(o));
  EXPECT_EQ(got, (std::vector<std::string>{
                     "ListPids(bound 65536)", "ReadFile(pid 4103, environ, bound 65536)",
                     "ExeIdentity(pid 4103)", "PathIdentity(/bin/\\xff\\x0asleep)", "Now()",
                     "SleepUntil(1100000000)"}));
  EXPECT_EQ(DescribeCall(v1::Observation{}), "an empty observation");
}

// The resolver, end to end on a hand-made tape: the typical host's calls
// recorded by the fake host's log order would be long; here a one-process
// host whose root is missing takes five calls.
TEST(TapeEvidence, DrivesTheResolverToItsRecordedVerdict) {
  Tape t;
  std::string stat2 = MemoryEvidence::StatLine(2, "kthreadd", 'S', 0, 2);
  t.Now(kT0).List(65536, {"2"}).Now(kT0).Read(2, v1::PROC_FILE_STAT, 4096, stat2).Now(kT0);
  TapeEvidence tape(t.obs(), 0, t.obs().size());
  Verdict v = Resolve(tape, test::FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kMissingRoot) << v.detail;
  EXPECT_FALSE(tape.diverged()) << tape.divergence().made;
  EXPECT_EQ(tape.consumed(), 5u);
  EXPECT_EQ(v.bytes_read, std::string("2").size() + stat2.size());  // the listed name, the stat
}

}  // namespace
}  // namespace proctape
