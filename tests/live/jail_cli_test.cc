// SPDX-License-Identifier: Apache-2.0
// The jail (cli/jail.h, docs/security.md), from the binary: outputs are
// committed from inside it, --print-jail states it, and a replay names no
// /proc path. That the probe (PROCTAPE_JAIL_PROBE=1) finds signalling its
// parent, ptracing it and (for the commands that read only files) opening
// /proc/1/stat refused in each command's jail, in every mode that writes, is
// jail_modes_cli_test.cc. That Ctrl-C still finishes a capture (exit 130) and
// ends resolve by the signal itself is OutputInterrupts in
// outputs_interrupt_cli_test.cc, run under the same jail.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/live/files.h"
#include "tests/live/build_paths.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::Describe;
using live::RunCommand;
using live::TempDir;

const std::string kRecording = std::string(PROCTAPE_SOURCE_DIR) + "/tests/data/replay/alive.ptape";
const std::string kCorpus = std::string(PROCTAPE_SOURCE_DIR) + "/corpus";

// proctape `args` with the probe on.
CommandResult Probed(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/usr/bin/env", "PROCTAPE_JAIL_PROBE=1",
                                   ::proctape::live::TestedBinary()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, 180'000);
}

TEST(JailCli, OutputsAreStillCommittedInsideTheFileJail) {
  TempDir dir("jail");
  const CommandResult e =
      Probed({"export", kRecording, "--format", "json", "-o", dir.File("out.json")});
  EXPECT_EQ(e.exit_code, 0) << Describe(e);
  EXPECT_TRUE(live::FileBytes(dir.File("out.json")).size() > 0);
  const CommandResult c = Probed(
      {"corpus", "check", kCorpus, "--entry", "ambiguous-bwrap", "--junit", dir.File("j.xml")});
  EXPECT_EQ(c.exit_code, 0) << Describe(c);
  EXPECT_NE(live::FileBytes(dir.File("j.xml")).find("<testsuite"), std::string::npos);
  // sql's database and export's CSV directory: written through the opened
  // temporary (a file image; files made in the temporary directory).
  const CommandResult q = Probed({"sql", kRecording, "--db", dir.File("j.db")});
  EXPECT_EQ(q.exit_code, 0) << Describe(q);
  EXPECT_EQ(live::FileBytes(dir.File("j.db")).substr(0, 16), std::string("SQLite format 3\0", 16));
  const CommandResult v =
      Probed({"export", kRecording, "--format", "csv", "-o", dir.File("j.csv")});
  EXPECT_EQ(v.exit_code, 0) << Describe(v);
  EXPECT_EQ(live::FileBytes(dir.File("j.csv/files.csv")).substr(0, 13), "file_id,path,");
}

TEST(JailCli, PrintJailNamesTheRefusedCallsAndEachCommandsLayers) {
  const CommandResult r = live::Proctape({"--print-jail"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  for (const char* call :
       {"kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_send_signal",
        "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd"}) {
    EXPECT_TRUE(r.out.find(std::string(call) + ",") != std::string::npos ||
                r.out.find(std::string(call) + ";") != std::string::npos)
        << call << "\n"
        << r.out;
  }
  // The commands that read only files (jail_modes_cli_test.cc runs each).
  for (const char* command :
       {"verify", "show", "tree", "diff", "explain", "export", "replay", "explore", "minimize",
        "sql", "ownership", "corpus check", "corpus list", "corpus rm"}) {
    EXPECT_NE(r.out.find("  " + std::string(command) + ": seccomp, landlock"), std::string::npos)
        << command << "\n"
        << r.out;
  }
  EXPECT_NE(r.out.find("  capture: seccomp; reads /proc"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  lab: none"), std::string::npos) << r.out;
}

// strace -f over a replay: no system call names anything under /proc.
TEST(JailCli, ReplayUnderStraceTouchesNoProc) {
  if (live::TestedBinarySanitized()) {
    GTEST_SKIP() << "the sanitizer build reads its own /proc/PID (LeakSanitizer): the jail probe "
                    "proves /proc out of reach there";
  }
  if (::access("/usr/bin/strace", X_OK) != 0) GTEST_SKIP() << "strace is not installed";
  TempDir dir("jail");
  const std::string log = dir.File("strace.log");
  const CommandResult r = RunCommand({"/usr/bin/strace", "-f", "-qq", "-o", log,
                                      ::proctape::live::TestedBinary(), "replay", kRecording},
                                     180'000);
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const std::string trace = live::FileBytes(log);
  ASSERT_NE(trace.find("execve("), std::string::npos) << trace;
  EXPECT_EQ(trace.find("\"/proc"), std::string::npos) << trace;
}

}  // namespace
}  // namespace proctape
