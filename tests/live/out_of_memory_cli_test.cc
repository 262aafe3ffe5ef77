// SPDX-License-Identifier: Apache-2.0
// Out of memory is a failure like any other (docs/cli/commands.md,
// "Failures and warnings"): a command whose input needs more memory than it
// may use says so on one line, `proctape: CMD: out of memory (...)`, with
// the status of "proctape itself failed" (1), or under --json the
// ErrorReport; never an abort (134) with the C++ runtime's words. corpus
// check reports such an entry UNREADABLE and checks the others.
//
// The inputs are written here through the real writer (tests/shapes/
// many_frames.h): a capture of 24 frames of 3,000 records (about 140 MiB as
// a whole Snapshot, read whole by `replay --model frames` and by ownership's
// baseline) and a recording whose tape holds 100,000 kilobyte reads (read
// whole by explain, replay, corpus add and corpus check). Each command runs
// under RLIMIT_AS 64 MiB (prlimit).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <string>
#include <vector>

#include "corpus/sha256.h"
#include "tests/live/cli_contract.h"
#include "tests/live/cli_contract_table.h"
#include "tests/live/files.h"
#include "tests/live/json_document.h"
#include "tests/live/output_writers.h"
#include "tests/shapes/many_frames.h"

namespace proctape::live {
namespace {

constexpr const char* kLimit = "--as=67108864";  // 64 MiB
constexpr int kHangGuardMs = 120'000;
constexpr int kFrames = 24;
constexpr int kProcesses = 3'000;
constexpr int kObservations = 100'000;

class OutOfMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = AddressLimitUnavailable(); !why.empty()) GTEST_SKIP() << why;
    std::string error;
    ASSERT_TRUE(shapes::WriteManyFrames(frames_, kFrames, kProcesses, &error)) << error;
    ASSERT_TRUE(shapes::WriteLongTape(tape_, kObservations, &error)) << error;
  }

  TempDir dir_{"oom"};
  const std::string frames_ = dir_.File("frames.ptape");
  const std::string tape_ = dir_.File("tape.ptape");
};

// The commands that keep what does not fit, each with the name its line
// gives it.
std::vector<std::pair<std::string, std::vector<std::string>>> Hungry(const std::string& frames,
                                                                     const std::string& tape,
                                                                     const std::string& dir) {
  return {
      {"explain", {"explain", tape}},
      {"replay", {"replay", tape}},
      {"replay", {"replay", frames, "--model", "frames"}},
      {"corpus add", {"corpus", "add", tape, "--corpus", dir + "/c"}},
      {"ownership",
       {"ownership", "--baseline", frames, "--current", SourceCorpus() + "/d40fb836ad433348.ptape",
        "--uid", "0", "--cgroup", "/", "--self", "1"}},
  };
}

TEST_F(OutOfMemory, IsOneLineWithTheStatusOfProctapeItselfFailed) {
  for (const auto& [command, args] : Hungry(frames_, tape_, dir_.path())) {
    const CommandResult r = ProctapeWithinAddressLimit(args, kHangGuardMs, kLimit);
    ASSERT_TRUE(r.started) << r.error;
    EXPECT_FALSE(r.timed_out) << Shown(args);
    EXPECT_EQ(r.term_signal, 0) << Shown(args) << "\n" << r.err;
    EXPECT_EQ(r.exit_code, 1) << Shown(args) << "\n" << r.err;
    EXPECT_TRUE(OneLine(r.err)) << Shown(args) << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("proctape: " + command + ": out of memory (", 0), 0u)
        << Shown(args) << "\n"
        << r.err;
  }
}

TEST_F(OutOfMemory, UnderJsonIsTheErrorReport) {
  for (auto [command, args] : Hungry(frames_, tape_, dir_.path())) {
    args.push_back("--json");
    const CommandResult r = ProctapeWithinAddressLimit(args, kHangGuardMs, kLimit);
    ASSERT_TRUE(r.started) << r.error;
    EXPECT_EQ(r.exit_code, 1) << Shown(args) << "\n" << r.err;
    const std::vector<std::string> lines = LinesOf(r.err);
    ASSERT_FALSE(lines.empty()) << Shown(args);
    const JsonDocument d = ParseJsonDocument(lines.back());
    ASSERT_TRUE(d.ok) << Shown(args) << ": " << lines.back();
    const auto& fields = d.value.struct_value().fields();
    ASSERT_TRUE(fields.count("error") && fields.count("exit_status") && fields.count("command"))
        << lines.back();
    EXPECT_EQ(fields.at("command").string_value(), command) << lines.back();
    EXPECT_EQ(fields.at("error").string_value().rfind(command + ": out of memory (", 0), 0u)
        << lines.back();
    EXPECT_EQ(fields.at("exit_status").number_value(), 1) << lines.back();
  }
}

// One entry too big to check does not end the check: it is UNREADABLE
// (22), with why, and every other entry is still replayed, the summary
// and the JUnit file written.
TEST_F(OutOfMemory, CorpusCheckReportsTheEntryUnreadableAndChecksTheOthers) {
  const std::string corpus = dir_.File("corpus");
  ASSERT_EQ(::mkdir(corpus.c_str(), 0755), 0);
  WriteFile(corpus + "/f46add6575430d19.ptape",
            FileBytes(SourceCorpus() + "/f46add6575430d19.ptape"));
  Failure failure;
  std::optional<std::string> hashed = Sha256File(tape_, &failure);
  ASSERT_TRUE(hashed) << failure.message;
  const std::string sha = *hashed;
  const std::string name = sha.substr(0, 16) + ".ptape";  // as corpus add names it
  WriteFile(corpus + "/" + name, FileBytes(tape_));
  WriteFile(corpus + "/MANIFEST",
            "# proctape corpus manifest, format 1\n\n"
            "entry    long-tape\n"
            "file     " +
                name +
                "\n"
                "sha256   " +
                sha +
                "\n"
                "expect   NO_MATCH\n\n"
                "entry    plain-unshare\n"
                "file     f46add6575430d19.ptape\n"
                "sha256   f46add6575430d195b52ce9817d6592befced3767258841b3d3bdf5c0e79fbb4\n"
                "expect   RESOLVED pid=7 start=1309522\n");
  const std::string junit = dir_.File("check.xml");
  const CommandResult r = ProctapeWithinAddressLimit(
      {"corpus", "check", corpus, "--jobs", "1", "--junit", junit}, kHangGuardMs, kLimit);
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_EQ(r.term_signal, 0) << r.err;
  EXPECT_EQ(r.exit_code, 22) << r.out << r.err;
  EXPECT_NE(r.out.find("UNREADABLE long-tape: " + name + ": out of memory ("), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("2 entries, 1 reproduced, 0 drifted, 1 unreadable"), std::string::npos)
      << r.out;
  EXPECT_NE(FileBytes(junit).find("<error type=\"unreadable\""), std::string::npos);
}

}  // namespace
}  // namespace proctape::live
