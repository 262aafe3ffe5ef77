// SPDX-License-Identifier: Apache-2.0
// `proctape replay` (`docs/replay.md`) of the files committed to the
// repository: files committed to the repo that were captured on this kernel
// replay identically in CI on another machine. The corpus recorded by
// tests/data/replay/make_corpus.sh replays, through the binary, to the
// committed bytes, human and --json, with this host's /proc hidden too.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/live/files.h"
#include "tests/live/replay_live_fixture.h"
#include "tests/live/sandbox.h"
#include "tests/live/source_dir.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::Describe;
using live::FileBytes;
// replay_live_fixture.h: Proctape, ReplayWithProcHidden, HiddenProcUnavailable.
using namespace live::replay_live;

// Files committed to the repo that were captured on this kernel replay
// identically in CI on another machine: the corpus recorded by
// tests/data/replay/make_corpus.sh replays, through the binary, to the
// committed bytes, with this host's /proc hidden too.
TEST(ReplayLiveCorpus, CommittedRecordingsReplayToTheCommittedBytes) {
  std::filesystem::path dir = std::filesystem::path(live::kSource) / "tests" / "data" / "replay";
  bool hide = HiddenProcUnavailable().empty();
  for (const char* name : {"resolved", "no-match-5s", "alive", "dead"}) {
    std::string base = (dir / name).string();
    std::string txt = FileBytes(base + ".replay.txt");
    std::string json = FileBytes(base + ".replay.json");
    ASSERT_FALSE(txt.empty()) << base;
    for (bool hidden : {false, true}) {
      if (hidden && !hide) continue;
      CommandResult r =
          hidden ? ReplayWithProcHidden({base + ".ptape"}) : Proctape({"replay", base + ".ptape"});
      EXPECT_EQ(r.exit_code, 0) << name << Describe(r);
      EXPECT_EQ(r.out, txt) << name << (hidden ? " (/proc hidden)" : "");
      CommandResult j = hidden ? ReplayWithProcHidden({base + ".ptape", "--json"})
                               : Proctape({"replay", base + ".ptape", "--json"});
      EXPECT_EQ(j.exit_code, 0) << name << Describe(j);
      EXPECT_EQ(j.out, json) << name << (hidden ? " (/proc hidden)" : "");
    }
  }
}

}  // namespace
}  // namespace proctape
