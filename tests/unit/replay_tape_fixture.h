// SPDX-License-Identifier: Apache-2.0
// What the replay tests (replay_*_test.cc) share: the typical host's
// resolution recorded and read back, the observations found in its tape, and
// the text a replay result is described by when an expectation fails.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "format/reader.h"
#include "replay/replay.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/replay_fixture.h"
#include "tests/unit/resolver_fixture.h"  // kT0

namespace proctape::test {

inline std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The sleep appears (as if it exec'd late) after the `n`th retry sleep.
inline void SleepAppearsAfter(FakeHost& host, int n) {
  host.Remove(kSleep);
  host.on_sleep = [n, sleeps = 0](MemoryEvidence& ev) mutable {
    if (++sleeps == n) {
      ev.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "120"},
                    SleepEnviron(kToken), kSleepExe);
    }
  };
}

// Reads `path` back whole; fails the test otherwise.
inline Snapshot ReadBack(const std::string& path) {
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  EXPECT_TRUE(e.ok()) << path << ": " << e.message;
  return s;
}

inline std::string Why(const v1::ReplayResult& r) { return DescribeReplay(r); }

// Records the typical host's resolution (or the one `setup` makes) and
// reads it back.
inline Snapshot RecordTypical(const ReplayTempDir& dir, const std::string& name,
                              const std::function<void(FakeHost&)>& setup = nullptr,
                              const RecordOptions& options = {}) {
  FakeHost host;
  if (setup) setup(host);
  Recorded rec = RecordResolution(host, FakeHost::TypicalRequest(), dir.File(name), options);
  EXPECT_TRUE(rec.ok) << rec.error;
  return ReadBack(dir.File(name));
}

// The position of the `nth` (from 0) observation satisfying `pred`.
inline std::size_t Find(const Snapshot& s, const std::function<bool(const v1::Observation&)>& pred,
                        int nth = 0) {
  for (std::size_t i = 0; i < s.observations.size(); ++i) {
    if (pred(s.observations[i]) && nth-- == 0) return i;
  }
  ADD_FAILURE() << "no such observation";
  return 0;
}

inline std::function<bool(const v1::Observation&)> IsRead(std::int64_t pid, v1::ProcFile file) {
  return [pid, file](const v1::Observation& o) {
    return o.has_read_file() && o.read_file().pid() == pid && o.read_file().file() == file;
  };
}
inline bool IsExe(const v1::Observation& o) { return o.has_exe_identity(); }
inline bool IsNow(const v1::Observation& o) { return o.has_now(); }

}  // namespace proctape::test
