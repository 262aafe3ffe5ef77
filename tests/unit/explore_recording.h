// SPDX-License-Identifier: Apache-2.0
// The fixture host of explore_fixture.h recorded: its resolution through the
// real recorder, with its frame, as a file (for explore and minimize tests).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/memory_evidence.h"
#include "core/proc_parse.h"
#include "format/reader.h"
#include "tests/unit/explore_fixture.h"
#include "tests/unit/replay_fixture.h"

namespace proctape::test {

// A recording of the fixture host's resolution, through the real recorder.
struct ExploreRecording {
  ReplayTempDir dir;
  std::string path;
  Snapshot snapshot;
  explicit ExploreRecording(const ExploreHost& h) {
    MemoryEvidence host;
    for (const v1::ProcessRecord& r : h.frame.processes()) {
      StatFields s = *ParseStat(r.stat().data()).fields;
      std::vector<std::string> argv, env;
      for (auto a : SplitNul(r.cmdline().data())) argv.emplace_back(a);
      for (auto e : SplitNul(r.environ().data())) env.emplace_back(e);
      host.AddProcess(r.pid(), s.ppid, s.start_ticks, s.comm, argv, env,
                      Identity{0, r.exe().dev(), r.exe().ino()});
    }
    host.SetPath("/bin/sleep", h.request.exe);
    path = dir.File("rec.ptape");
    RecordOptions o;
    o.frames = true;
    Recorded rec = RecordResolution(host, h.request, path, o);
    EXPECT_TRUE(rec.ok) << rec.error;
    EXPECT_TRUE(ReadSnapshot(path, &snapshot).ok());
  }
};

}  // namespace proctape::test
