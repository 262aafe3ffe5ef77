// SPDX-License-Identifier: Apache-2.0
// `proctape explain` (`docs/explain.md`) with the real binary:
//   - a corpus file explains to its golden output (tests/golden/explain/,
//     written by tests/unit/analyze_explain_output_test.cc), byte for byte, text,
//     --json, --all and --check, as a user runs it on a path of their own;
//   - a fresh recording made here by `proctape lab plain --record` explains
//     to a RESOLVED resolution whose confirmed candidate is the pid the lab
//     reported (structure only: pids differ from run to run);
//   - a plain capture (no recorded check) exits 2 pointing to
//     `replay --model frames`; damaged files exit with their file status;
//   - --help teaches, with examples.
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "explain.pb.h"
#include "proctape.pb.h"
#include "tests/live/build_paths.h"
#include "tests/live/corpus_files.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::CorpusFile;
using live::Describe;
using live::FileBytes;
using live::TempDir;

using live::Proctape;

std::filesystem::path SourceDir() { return PROCTAPE_SOURCE_DIR; }

std::string Golden(const std::string& name) {
  return FileBytes((SourceDir() / "tests" / "golden" / "explain" / name).string());
}

TEST(ExplainCli, CorpusFilesExplainToTheirGoldenOutput) {
  const std::string hostile = CorpusFile("hostile-comm-unshare");
  ASSERT_FALSE(hostile.empty());
  CommandResult r = Proctape({"explain", hostile});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, Golden("hostile-comm-unshare.txt"));
  EXPECT_EQ(r.err, "");

  r = Proctape({"explain", hostile, "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, Golden("hostile-comm-unshare.json"));

  const std::string loop = CorpusFile("never-exec-unshare");
  ASSERT_FALSE(loop.empty());
  r = Proctape({"explain", loop, "--all"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, Golden("never-exec-unshare.all.txt"));
}

TEST(ExplainCli, CheckExplainsOnlyThatCheck) {
  const std::string file = CorpusFile("exited-unshare");
  ASSERT_FALSE(file.empty());
  CommandResult r = Proctape({"explain", file, "--check", "2"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find(": 3 recorded checks\n\ncheck 2: liveness of pid "), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("check 0:"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("check 1:"), std::string::npos) << r.out;
  // Its text is the golden file's, from "check 2:" on.
  const std::string all = Golden("exited-unshare.txt");
  ASSERT_NE(all.find("\ncheck 2:"), std::string::npos);
  EXPECT_EQ(r.out.substr(r.out.find("\ncheck 2:")), all.substr(all.find("\ncheck 2:")));

  r = Proctape({"explain", file, "--check", "3"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_TRUE(live::OneLine(r.err)) << r.err;
  EXPECT_NE(r.err.find("holds 3 recorded checks (0..2)"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(ExplainCli, AFreshLabRecordingExplainsToItsVerdict) {
  if (std::string why = live::SandboxUnavailable(live::SandboxKind::kUnshare); !why.empty()) {
    GTEST_SKIP() << why;
  }
  TempDir dir("explain");
  const std::string file = dir.File("plain.ptape");
  CommandResult lab = Proctape({"lab", "plain", "--record", file, "--json"});
  ASSERT_EQ(lab.exit_code, 0) << Describe(lab);
  v1::LabReport report;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(lab.out, &report).ok()) << lab.out;
  ASSERT_EQ(report.checks_size(), 1);
  const v1::VerdictSummary& verdict = report.checks(0).verdict();
  ASSERT_EQ(verdict.status(), v1::Verdict::RESOLVED);
  const std::string pid = std::to_string(verdict.pid());

  CommandResult r = Proctape({"explain", file});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out.rfind("plain.ptape: 1 recorded check\n\ncheck 0: resolve\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\n  attempt 1 at +0.0 ms: listed "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n    pid " + pid + " \"sleep\" "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ancestry re-read: unchanged up to the root\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  verdict: RESOLVED host pid " + pid + ", start tick " +
                       std::to_string(verdict.start_ticks()) + " ("),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\n  replay: REPRODUCED ("), std::string::npos) << r.out;

  r = Proctape({"explain", file, "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  v1::Explanation e;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &e).ok()) << r.out;
  ASSERT_EQ(e.checks_size(), 1);
  const v1::ExplainCheck& c = e.checks(0);
  EXPECT_EQ(c.replay(), v1::ReplayResult::REPRODUCED);
  ASSERT_EQ(static_cast<std::uint32_t>(c.attempts_size()), verdict.attempts());
  const v1::ExplainAttempt& last = c.attempts(c.attempts_size() - 1);
  EXPECT_EQ(last.outcome(), v1::ExplainAttempt::FINAL);
  int resolved = 0;
  for (const auto& k : last.candidates()) {
    if (k.why() != v1::ExplainCandidate::RESOLVED) continue;
    ++resolved;
    EXPECT_EQ(k.pid(), verdict.pid());
    EXPECT_EQ(k.start_ticks(), verdict.start_ticks());
    ASSERT_GE(k.ancestry_size(), 2);
    EXPECT_EQ(k.ancestry(k.ancestry_size() - 1).pid(), c.resolve().root_pid());
  }
  EXPECT_EQ(resolved, 1) << r.out;
}

TEST(ExplainCli, APlainCaptureHoldsNoCheckToExplain) {
  TempDir dir("explain");
  const std::string file = dir.File("host.ptape");
  CommandResult cap = Proctape({"capture", "-o", file});
  ASSERT_EQ(cap.exit_code, 0) << Describe(cap);
  CommandResult r = Proctape({"explain", file});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_TRUE(live::OneLine(r.err)) << r.err;
  EXPECT_EQ(r.err.rfind("proctape: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("replay " + file + " --model frames"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(ExplainCli, DamagedFilesExitWithTheirFileStatus) {
  TempDir dir("explain");
  const std::string whole = FileBytes(CorpusFile("plain-unshare"));
  ASSERT_FALSE(whole.empty());
  struct Case {
    std::string name;
    std::string bytes;
    int exit_code;
  };
  const std::vector<Case> cases = {
      {"cut.ptape", whole.substr(0, whole.size() / 2), 13},
      {"magic.ptape", "not a proctape file at all\n", 11},
  };
  for (const Case& c : cases) {
    const std::string path = dir.File(c.name);
    live::WriteFile(path, c.bytes);
    CommandResult r = Proctape({"explain", path});
    EXPECT_EQ(r.exit_code, c.exit_code) << c.name << ": " << Describe(r);
    EXPECT_TRUE(live::OneLine(r.err)) << c.name << ": " << r.err;
    EXPECT_EQ(r.err.rfind("proctape: " + path + ": ", 0), 0u) << r.err;
    EXPECT_EQ(r.out, "");
  }
  CommandResult r = Proctape({"explain", dir.File("absent.ptape")});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_TRUE(live::OneLine(r.err)) << r.err;
}

TEST(ExplainCli, HelpTeachesWithExamples) {
  CommandResult r = Proctape({"explain", "--help"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  for (const char* part : {"--json", "--all", "--check",
                           "Examples:", "proctape explain failure.ptape", "--model frames"}) {
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
  }
  r = Proctape({"explain"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
}

}  // namespace
}  // namespace proctape
