// SPDX-License-Identifier: Apache-2.0
// The recorder (`docs/format.md` section 5) on its own: every call the resolver
// made through the evidence interface, in order, with its exact result and
// monotonic time: each call's result passes through unchanged, indices count
// from zero and time stamps come from the injected clock (by default, a
// monotonic one). The resolver through the recorder: recorder_test.cc.
#include "capture/recorder.h"

#include <gtest/gtest.h>
#include <time.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include "proto/convert.h"
#include "tests/unit/fake_host.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

TEST(RecordingEvidence, ResultsPassThroughUnchanged) {
  auto make = [](MemoryEvidence& h) {
    h.AddProcess(42, 1, 7, "x) S 1 (", {"a=b", "\xff\n"}, {"SECRET=v", "noeq", ""},
                 Identity{0, 1, 2});
    h.SetFile(43, ProcFile::kStat, std::string(100, 's'));
    h.SetFileError(44, ProcFile::kEnviron, EACCES);
    h.SetPath("/bin/sleep", Identity{0, 9, 9});
    h.listing = std::vector<std::string>{"42", "42", "x", "043", ""};
    h.call_cost_ns = 7;
  };
  MemoryEvidence direct, behind;
  make(direct);
  make(behind);
  std::vector<v1::Observation> tape;
  RecordingEvidence rec(behind, [&](v1::Observation&& o) { tape.push_back(std::move(o)); });

  for (std::uint64_t bound : {0u, 2u, 100u}) {
    ListResult a = direct.ListPids(bound), b = rec.ListPids(bound);
    EXPECT_EQ(a.err, b.err);
    EXPECT_EQ(a.names, b.names);
    EXPECT_EQ(a.truncated, b.truncated);
  }
  for (std::int64_t pid : {42, 43, 44, 45}) {
    for (ProcFile f : {ProcFile::kStat, ProcFile::kCmdline, ProcFile::kEnviron, ProcFile::kStatus,
                       ProcFile::kCgroup}) {
      for (std::uint64_t bound : {0u, 5u, 4096u}) {
        ReadResult a = direct.ReadFile(pid, f, bound), b = rec.ReadFile(pid, f, bound);
        EXPECT_EQ(a.err, b.err) << pid << " " << ProcFileName(f) << " " << bound;
        EXPECT_EQ(a.data, b.data) << pid << " " << ProcFileName(f) << " " << bound;
        EXPECT_EQ(a.truncated, b.truncated);
      }
    }
    EXPECT_EQ(direct.ExeIdentity(pid), rec.ExeIdentity(pid));
  }
  EXPECT_EQ(direct.PathIdentity("/bin/sleep"), rec.PathIdentity("/bin/sleep"));
  EXPECT_EQ(direct.PathIdentity("/nonexistent"), rec.PathIdentity("/nonexistent"));
  EXPECT_EQ(direct.NowNs(), rec.NowNs());
  direct.SleepUntil(5'000'000'000);
  rec.SleepUntil(5'000'000'000);
  EXPECT_EQ(direct.now_ns, behind.now_ns);
  EXPECT_EQ(direct.calls, behind.calls);
  EXPECT_EQ(tape.size(), behind.calls);

  // The environ of pid 42 reached the caller raw, but the tape holds it redacted.
  ReadResult raw = rec.ReadFile(42, ProcFile::kEnviron, 4096);
  ASSERT_EQ(raw.data, std::string("SECRET=v\0noeq\0\0", 15));
  EXPECT_EQ(tape.back().read_file().result().data(), std::string("SECRET=*\0****\0\0", 15));
  EXPECT_TRUE(tape.back().read_file().result().redacted());
  // A failed environ read is still marked redacted and keeps its errno.
  rec.ReadFile(44, ProcFile::kEnviron, 4096);
  EXPECT_EQ(tape.back().read_file().result().err(), EACCES);
  EXPECT_TRUE(tape.back().read_file().result().redacted());
  // Non-environ files are never redacted, '=' or not.
  rec.ReadFile(42, ProcFile::kCmdline, 4096);
  EXPECT_EQ(tape.back().read_file().result().data(), std::string("a=b\0\xff\n\0", 7));
  EXPECT_FALSE(tape.back().read_file().result().redacted());
}

TEST(RecordingEvidence, IndicesCountFromZeroAndTimesComeFromTheInjectedClock) {
  FakeHost host;
  std::vector<v1::Observation> tape;
  std::int64_t tick = 0;
  RecorderOptions options;
  options.clock = [&tick] { return tick += 10; };
  RecordingEvidence rec(
      host, [&](v1::Observation&& o) { tape.push_back(std::move(o)); }, options);
  EXPECT_EQ(rec.observations(), 0u);
  rec.ListPids(10);
  std::int64_t now = rec.NowNs();
  rec.SleepUntil(now + 100);
  rec.ExeIdentity(kSleep);
  ASSERT_EQ(tape.size(), 4u);
  EXPECT_EQ(rec.observations(), 4u);
  for (std::size_t i = 0; i < tape.size(); ++i) EXPECT_EQ(tape[i].index(), i);
  EXPECT_EQ(tape[0].mono_ns(), 10);
  EXPECT_EQ(tape[1].mono_ns(), now);  // a NowNs call is stamped with its own result
  EXPECT_EQ(tape[1].now().result_ns(), now);
  EXPECT_EQ(tape[2].mono_ns(), 20);  // the clock was not read for NowNs
  EXPECT_EQ(tape[2].sleep_until().until_ns(), now + 100);
  EXPECT_EQ(tape[3].mono_ns(), 30);
  EXPECT_EQ(host.log.size(), 4u);  // no extra call reached the source
}

TEST(RecordingEvidence, DefaultClockIsMonotonic) {
  FakeHost host;
  std::vector<v1::Observation> tape;
  RecordingEvidence rec(host, [&](v1::Observation&& o) { tape.push_back(std::move(o)); });
  timespec before{}, after{};
  clock_gettime(CLOCK_MONOTONIC, &before);
  rec.ListPids(10);
  rec.ReadFile(kSleep, ProcFile::kStat, 4096);
  clock_gettime(CLOCK_MONOTONIC, &after);
  auto ns = [](const timespec& t) { return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec; };
  ASSERT_EQ(tape.size(), 2u);
  EXPECT_LE(ns(before), tape[0].mono_ns());
  EXPECT_LE(tape[0].mono_ns(), tape[1].mono_ns());
  EXPECT_LE(tape[1].mono_ns(), ns(after));
  EXPECT_EQ(host.log.size(), 2u);  // in particular, no NowNs on the source
}

}  // namespace
}  // namespace proctape
