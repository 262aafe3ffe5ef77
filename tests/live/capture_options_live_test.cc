// SPDX-License-Identifier: Apache-2.0
// `proctape capture` on the real host (`docs/format.md` sections 3 and 6): its
// options. --root captures that process and its descendants only (a root that
// is not running: an empty frame and exit 5); --frames and --interval start
// frames on their schedule; bad options are usage errors on one line. Every
// process a test starts is ended by its pid (or its pidfd).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "format/reader.h"
#include "tests/live/capture_live_fixture.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::Exists;
using live::FindRecord;
using live::OneLine;
using live::TempDir;
// capture_live_fixture.h
using live::Explain;

using live::Proctape;

TEST(CaptureLive, RootCapturesThatProcessAndItsDescendantsOnly) {
  // sh -> two sleeps: a subtree two levels deep.
  std::string error;
  auto sh =
      live::Child::Start({"/bin/sh", "-c", "/bin/sleep 3601 & /bin/sleep 3602 & wait"}, &error);
  ASSERT_NE(sh, nullptr) << error;
  std::vector<pid_t> sleeps;
  for (int i = 0; i < 500; ++i) {
    sleeps = live::Descendants(sh->pid());
    if (sleeps.size() == 2 && std::all_of(sleeps.begin(), sleeps.end(), [](pid_t p) {
          std::optional<std::string> c = live::ReadProc(p, "cmdline");
          return c && c->rfind("/bin/sleep", 0) == 0;
        })) {
      break;
    }
    ::usleep(10'000);
  }
  ASSERT_EQ(sleeps.size(), 2u);
  // The sleeps are grandchildren: held by pidfd, ended through it.
  std::vector<live::PidFd> held;
  for (pid_t p : sleeps) {
    std::optional<live::ProcStat> st = live::ReadStat(p);
    ASSERT_TRUE(st.has_value());
    held.push_back(live::PidFd::Open(p, st->start_ticks, &error));
    ASSERT_TRUE(held.back().valid()) << error;
  }
  struct KillHeld {
    std::vector<live::PidFd>* fds;
    ~KillHeld() {
      for (const auto& fd : *fds) {
        fd.Kill();
        fd.WaitExited(3000);
      }
    }
  } kill_held{&held};

  TempDir dir;
  const std::string file = dir.File("root.ptape");
  CommandResult r = Proctape({"capture", "-o", file, "--root", std::to_string(sh->pid())});
  ASSERT_EQ(r.exit_code, 0) << Explain(r);
  Snapshot snap;
  FormatError err = ReadSnapshot(file, &snap);
  ASSERT_TRUE(err.ok()) << err.message;
  ASSERT_EQ(snap.frames.size(), 1u);
  std::set<std::int64_t> got;
  for (const auto& rec : snap.frames[0].processes()) {
    EXPECT_TRUE(got.insert(rec.pid()).second) << "pid " << rec.pid() << " twice";
    EXPECT_TRUE(rec.has_cmdline() && rec.has_environ() && rec.has_status() && rec.has_cgroup());
  }
  std::set<std::int64_t> want = {sh->pid(), sleeps[0], sleeps[1]};
  EXPECT_EQ(got, want);
  EXPECT_EQ(snap.header.bounds().max_proc_entries(), 4194304u);
  const v1::ProcessRecord* s0 = FindRecord(snap.frames[0], sleeps[0]);
  ASSERT_NE(s0, nullptr);
  EXPECT_EQ(s0->cmdline().data().rfind("/bin/sleep", 0), 0u);
  EXPECT_EQ(s0->stat().data().find(" " + std::to_string(sh->pid()) + " "),
            s0->stat().data().find(") S ") + 3)
      << s0->stat().data();

  // A root that is not running: an empty frame, written all the same, and
  // exit 5 (not found) on one line.
  const std::string none = dir.File("none.ptape");
  const std::string absent_pid = live::AbsentPid();
  CommandResult absent = Proctape({"capture", "-o", none, "--root", absent_pid});
  ASSERT_EQ(absent.exit_code, 5) << Explain(absent);
  EXPECT_NE(absent.err.find("--root " + absent_pid + " is in no frame"), std::string::npos)
      << absent.err;
  Snapshot empty;
  ASSERT_TRUE(ReadSnapshot(none, &empty).ok());
  ASSERT_EQ(empty.frames.size(), 1u);
  EXPECT_EQ(empty.frames[0].processes_size(), 0);
}

TEST(CaptureLive, FramesStartOnTheirSchedule) {
  TempDir dir;
  const std::string file = dir.File("frames.ptape");
  CommandResult r = Proctape({"capture", "-o", file, "--frames", "3", "--interval", "200", "--root",
                              std::to_string(::getpid())});
  ASSERT_EQ(r.exit_code, 0) << Explain(r);
  EXPECT_EQ(r.out.rfind("wrote " + file + ": 3 frames, ", 0), 0u) << r.out;
  Snapshot snap;
  ASSERT_TRUE(ReadSnapshot(file, &snap).ok());
  ASSERT_EQ(snap.frames.size(), 3u);
  const std::int64_t start = snap.header.capture_start_mono_ns();
  for (std::size_t k = 0; k < 3; ++k) {
    const v1::Frame& f = snap.frames[k];
    EXPECT_EQ(f.index(), k);
    EXPECT_GE(f.scan_start_mono_ns(), start + static_cast<std::int64_t>(k) * 200'000'000) << k;
    EXPECT_GE(f.scan_end_mono_ns(), f.scan_start_mono_ns());
    EXPECT_NE(FindRecord(f, ::getpid()), nullptr) << k;
  }
  EXPECT_EQ(snap.footer->frames(), 3u);
}

TEST(CaptureLive, BadOptionsAreUsageErrorsOnOneLine) {
  TempDir dir;
  for (std::vector<std::string> args :
       std::vector<std::vector<std::string>>{{"capture", "--env", "show"},
                                             {"capture", "--frames", "0"},
                                             {"capture", "--interval", "-5"},
                                             {"capture", "--root", "0"},
                                             {"capture", "--max-processes", "0"},
                                             {"capture", "--max-bytes", "1000"},
                                             {"capture", "--threads", "0"},
                                             {"capture", "--threads", "65"},
                                             {"capture", "--bogus"}}) {
    args.push_back("-o");
    args.push_back(dir.File("never.ptape"));
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << args[1] << ": " << Explain(r);
    EXPECT_TRUE(OneLine(r.err)) << args[1] << ": " << r.err;
    EXPECT_EQ(r.err.rfind("proctape: ", 0), 0u) << r.err;
    EXPECT_FALSE(Exists(dir.File("never.ptape")));
    EXPECT_FALSE(Exists(dir.File("never.ptape.partial")));
  }
}

}  // namespace
}  // namespace proctape
