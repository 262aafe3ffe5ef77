// SPDX-License-Identifier: Apache-2.0
// The JSON contract of the command line (docs/cli/json.md),
// from the built binary, read with a real JSON parser (protobuf's, into a
// google.protobuf.Value, which accepts one JSON text and nothing after it):
//   - every --json output is one JSON document;
//   - counts, pids, byte totals and durations are JSON numbers; a string that
//     holds a decimal integer is one of the documented 64-bit values (start
//     ticks, device and inode numbers, instants) or host text;
//   - bytes a host or a file controls are escaped text (\xNN), never base64,
//     so the output is ASCII;
//   - under --json, whatever a command says on standard error is JSON too:
//     one object a line, a failure's with its message and exit status
//     (json_failures_cli_test.cc; what both read with is json_cli_fixture.h).
#include <google/protobuf/struct.pb.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/files.h"
#include "tests/live/json_cli_fixture.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using google::protobuf::Value;
using live::CommandResult;
using live::Describe;
using live::FileBytes;
using live::kSource;
using live::TempDir;
using live::WriteFile;
using namespace live::json;  // json_cli_fixture.h

// ---- Each command's --json: one document, numbers, escaped text ------------

TEST(JsonCli, VerifyCountsAreNumbersAndItsFileNameIsEscaped) {
  TempDir dir("json");
  const std::string name = dir.File("caf\xe9.ptape");
  WriteFile(name, FileBytes(kPlainUnshare));
  CommandResult r = Proctape({"verify", name, "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Value v = ExpectJsonOutput(r, "verify");
  EXPECT_TRUE(IsNumber(At(v, {"chunks"}))) << r.out;
  EXPECT_EQ(At(v, {"frames"}).number_value(), 2) << r.out;
  EXPECT_EQ(At(v, {"processes"}).number_value(), 10) << r.out;
  EXPECT_EQ(At(v, {"resolutions"}).number_value(), 1) << r.out;
  EXPECT_EQ(Text(At(v, {"file"})), dir.File("caf\\xe9.ptape")) << r.out;
}

TEST(JsonCli, ShowPrintsCountsAsNumbersAndALivenessStateAsText) {
  CommandResult r = Proctape({"show", kExitedUnshare, "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Value v = ExpectJsonOutput(r, "show");
  EXPECT_EQ(At(v, {"resolutions"}).list_value().values_size(), 3) << r.out;
  EXPECT_TRUE(IsNumber(At(v, {"frames", 0, "processes"}))) << r.out;
  EXPECT_TRUE(IsNumber(At(v, {"observations"}))) << r.out;
  EXPECT_TRUE(IsNumber(At(v, {"resolutions", 0, "verdict", "pid"}))) << r.out;
  EXPECT_TRUE(IsNumber(At(v, {"resolutions", 0, "verdict", "bytes_read"}))) << r.out;
  // The liveness check of a live sleep read state S: "S", not base64 "Uw==".
  EXPECT_EQ(Text(At(v, {"resolutions", 1, "liveness_verdict", "state"})), "S") << r.out;
}

TEST(JsonCli, TreeAndDiffPrintPidsAndCountsAsNumbers) {
  CommandResult tree = Proctape({"tree", kHostileComm, "--json"});
  ASSERT_EQ(tree.exit_code, 0) << Describe(tree);
  Value t = ExpectJsonOutput(tree, "tree");
  EXPECT_EQ(At(t, {"processes"}).number_value(), 5) << tree.out;
  EXPECT_EQ(At(t, {"nodes", 0, "process", "pid"}).number_value(), 1) << tree.out;
  EXPECT_EQ(Text(At(t, {"nodes", 4, "process", "comm"})), "x) Z 1 1 1\\x0ax") << tree.out;
  EXPECT_TRUE(IsNumber(At(t, {"nodes", 4, "process", "start_seconds"}))) << tree.out;

  CommandResult diff = Proctape({"diff", kExitedUnshare, "--json"});
  ASSERT_EQ(diff.exit_code, 0) << Describe(diff);
  Value d = ExpectJsonOutput(diff, "diff");
  EXPECT_TRUE(IsNumber(At(d, {"exited"}))) << diff.out;
  EXPECT_TRUE(IsNumber(At(d, {"unchanged"}))) << diff.out;
  EXPECT_TRUE(IsNumber(At(d, {"changes", 0, "pid"}))) << diff.out;
}

TEST(JsonCli, ExplainShowsCommStateAndArgvAsEscapedText) {
  CommandResult r = Proctape({"explain", kHostileComm, "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Value v = ExpectJsonOutput(r, "explain");
  const Value attempt = At(v, {"checks", 0, "attempts", 0});
  EXPECT_TRUE(IsNumber(At(attempt, {"listed"}))) << r.out;
  EXPECT_TRUE(IsNumber(At(attempt, {"start_offset_ns"}))) << r.out;
  EXPECT_EQ(Text(At(attempt, {"root", "comm"})), "app-server") << r.out;
  EXPECT_EQ(Text(At(attempt, {"root", "state"})), "S") << r.out;
  const Value sleep = At(attempt, {"candidates", 1});
  EXPECT_EQ(At(sleep, {"pid"}).number_value(), 271) << r.out;
  EXPECT_EQ(Text(At(sleep, {"comm"})), "x) Z 1 1 1\\x0ax") << r.out;
  EXPECT_EQ(Text(At(sleep, {"argv", 0})), "/bin/sleep") << r.out;
  // The request: its token by length, never its value.
  EXPECT_EQ(Text(At(v, {"checks", 0, "resolve", "token_var"})), "PROCTAPE_TOKEN") << r.out;
  EXPECT_EQ(At(v, {"checks", 0, "resolve", "token_bytes"}).number_value(), 32) << r.out;
}

TEST(JsonCli, ReplayOfAFileOfSeveralChecksIsOneDocument) {
  CommandResult r = Proctape({"replay", kExitedUnshare, "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Value v = ExpectJsonOutput(r, "replay");
  ASSERT_EQ(At(v, {"replays"}).list_value().values_size(), 3) << r.out;
  EXPECT_EQ(Text(At(v, {"replays", 2, "outcome"})), "REPRODUCED") << r.out;
  EXPECT_TRUE(IsNumber(At(v, {"replays", 0, "consumed"}))) << r.out;
  EXPECT_EQ(Text(At(v, {"replays", 1, "replayed_liveness", "state"})), "S") << r.out;

  CommandResult frames = Proctape({"replay", kExitedUnshare, "--model", "frames", "--json"});
  Value f = ExpectJsonOutput(frames, "replay --model frames");
  EXPECT_EQ(At(f, {"frame_runs"}).list_value().values_size(), 3) << frames.out;
  EXPECT_TRUE(IsNumber(At(f, {"frame_runs", 0, "verdict", "attempts"}))) << frames.out;
}

TEST(JsonCli, TheLegacyReportShowsTheProbedCommAsText) {
  CommandResult r = Proctape({"replay", kPlainUnshare, "--legacy-marker", "1", "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Value v = ExpectJsonOutput(r, "replay --legacy-marker");
  EXPECT_EQ(Text(At(v, {"comm"})), "sh") << r.out;
  EXPECT_EQ(Text(At(v, {"marker"})), "1") << r.out;
  EXPECT_EQ(At(v, {"sandboxed_pid"}).number_value(), 7) << r.out;
}

TEST(JsonCli, TheLabListIsOneObjectWithSnakeCaseNames) {
  CommandResult r = Proctape({"lab", "--list", "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Value v = ExpectJsonOutput(r, "lab --list");
  const Value first = At(v, {"scenarios", 0});
  EXPECT_EQ(Text(At(first, {"name"})), "plain") << r.out;
  EXPECT_EQ(At(first, {"needs_root"}).kind_case(), Value::kBoolValue) << r.out;
  EXPECT_EQ(r.out.find("needsRoot"), std::string::npos) << r.out;
}

TEST(JsonCli, CorpusCheckCountsAreNumbers) {
  CommandResult r =
      Proctape({"corpus", "check", kSource + "/corpus", "--entry", "exited-unshare", "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Value v = ExpectJsonOutput(r, "corpus check");
  // `jq '.drifted > 0'` must be false when nothing drifted.
  EXPECT_TRUE(IsNumber(At(v, {"drifted"}))) << r.out;
  EXPECT_EQ(At(v, {"drifted"}).number_value(), 0) << r.out;
  EXPECT_EQ(At(v, {"entries"}).number_value(), 1) << r.out;
  EXPECT_EQ(Text(At(v, {"results", 0, "replays", 1, "replayed_liveness", "state"})), "S") << r.out;
}

TEST(JsonCli, OwnershipShowsCommsAsText) {
  CommandResult r = Proctape({"ownership", "--baseline", kBaseline, "--current", kHostileComm,
                              "--uid", "0", "--cgroup", "/", "--self", "1", "--json"});
  Value v = ExpectJsonOutput(r, "ownership");
  EXPECT_EQ(Text(At(v, {"cgroup"})), "/") << r.out;
  EXPECT_TRUE(IsNumber(At(v, {"self_pid"}))) << r.out;
  const Value& decisions = At(v, {"decisions"});
  for (const Value& d : decisions.list_value().values()) {
    if (At(d, {"pid"}).number_value() == 1) {
      EXPECT_EQ(Text(At(d, {"comm"})), "sh") << r.out;
    }
  }
}

TEST(JsonCli, LivenessPrintsItsVerdictWithTheStateAsText) {
  // This test process, alive: its own start tick from its stat.
  std::string stat = FileBytes("/proc/self/stat");
  std::istringstream fields(stat.substr(stat.rfind(") ") + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
  }
  CommandResult r =
      Proctape({"liveness", "--pid", std::to_string(::getpid()), "--start", field, "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Value v = ExpectJsonOutput(r, "liveness");
  EXPECT_EQ(Text(At(v, {"status"})), "ALIVE") << r.out;
  // A running test's state is R or S: one letter, not base64 ("Uw==").
  EXPECT_EQ(Text(At(v, {"state"})).size(), 1u) << r.out;
}

TEST(JsonCli, CaptureEscapesItsOutputName) {
  TempDir dir("json");
  const std::string out = dir.File("caf\xe9.ptape");
  CommandResult r =
      Proctape({"capture", "--root", std::to_string(::getpid()), "-o", out, "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Value v = ExpectJsonOutput(r, "capture");
  EXPECT_EQ(Text(At(v, {"file"})), dir.File("caf\\xe9.ptape")) << r.out;
  EXPECT_EQ(At(v, {"frames"}).number_value(), 1) << r.out;
  EXPECT_TRUE(IsNumber(At(v, {"bytes_read"}))) << r.out;
}

// export and fingerprint write a file and report it: under --json, one
// document saying what was written (ExportReport, FingerprintReport).
TEST(JsonCli, ExportReportsWhatItWrote) {
  TempDir dir("json");
  const std::string dot = dir.File("tree.dot");
  CommandResult r =
      Proctape({"export", kPlainUnshare, "--format", "dot", "-o", dot, "--frame", "0", "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Value v = ExpectJsonOutput(r, "export dot");
  EXPECT_EQ(Text(At(v, {"file"})), dot) << r.out;
  EXPECT_EQ(Text(At(v, {"input"})), kPlainUnshare) << r.out;
  EXPECT_EQ(Text(At(v, {"format"})), "dot") << r.out;
  EXPECT_EQ(At(v, {"frame"}).number_value(), 0) << r.out;
  EXPECT_EQ(At(v, {"bytes"}).number_value(), static_cast<double>(FileBytes(dot).size())) << r.out;

  const std::string tree = dir.File("frame0");
  r = Proctape({"export", kPlainUnshare, "--format", "proc-dir", "-o", tree, "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  v = ExpectJsonOutput(r, "export proc-dir");
  EXPECT_EQ(Text(At(v, {"format"})), "proc-dir") << r.out;
  EXPECT_GT(At(v, {"processes"}).number_value(), 0) << r.out;
  EXPECT_GT(At(v, {"files"}).number_value(), At(v, {"processes"}).number_value()) << r.out;

  // The data on standard output: the report on standard error.
  r = Proctape({"export", kPlainUnshare, "--format", "json", "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(ParseDocument(r.out).ok) << "the export itself";
  Document report = ParseDocument(r.err);
  ASSERT_TRUE(report.ok) << r.err;
  EXPECT_EQ(Text(At(report.value, {"file"})), "standard output") << r.err;
  EXPECT_EQ(At(report.value, {"frame"}).kind_case(), Value::KIND_NOT_SET) << "the whole file";
  EXPECT_EQ(At(report.value, {"bytes"}).number_value(), static_cast<double>(r.out.size()));
}

TEST(JsonCli, FingerprintReportsTheRootItWrote) {
  TempDir dir("json");
  const std::string fp = dir.File("fp.ptape");
  CommandResult r =
      Proctape({"fingerprint", "--root", std::to_string(::getpid()), "-o", fp, "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Value v = ExpectJsonOutput(r, "fingerprint");
  EXPECT_EQ(Text(At(v, {"file"})), fp) << r.out;
  EXPECT_EQ(At(v, {"fingerprint", "root_pid"}).number_value(), ::getpid()) << r.out;
  EXPECT_FALSE(Text(At(v, {"fingerprint", "root_start_ticks"})).empty()) << r.out;
  EXPECT_FALSE(Text(At(v, {"fingerprint", "boot_id"})).empty()) << r.out;
  EXPECT_FALSE(Text(At(v, {"fingerprint", "exe_identity", "ino"})).empty()) << r.out;
}

// Several files under --json: one {"files":[...]} object, an entry per file
// given, in order, whether or not each could be read: show and verify alike.
// A file that cannot be read at all is an entry naming it and its error.
TEST(JsonCli, SeveralFilesWithAMissingOneAreAnEntryEachInShowAndVerify) {
  TempDir dir("json");
  const std::string missing = dir.File("missing.ptape");
  for (const std::string command : {"show", "verify"}) {
    for (const bool missing_first : {false, true}) {
      const std::vector<std::string> files = missing_first
                                                 ? std::vector<std::string>{missing, kPlainUnshare}
                                                 : std::vector<std::string>{kPlainUnshare, missing};
      CommandResult r = Proctape({command, files[0], files[1], "--json"});
      const std::string what = command + " " + files[0] + " " + files[1];
      EXPECT_EQ(r.exit_code, 10) << what << "\n" << Describe(r);
      Value v = ExpectJsonOutput(r, what);
      ASSERT_EQ(At(v, {"files"}).list_value().values_size(), 2) << what << "\n" << r.out;
      const int gone = missing_first ? 0 : 1;
      EXPECT_EQ(Text(At(v, {"files", gone, "file"})), missing) << what << "\n" << r.out;
      EXPECT_EQ(Text(At(v, {"files", gone, "error_kind"})), "io") << what << "\n" << r.out;
      EXPECT_FALSE(Text(At(v, {"files", gone, "error"})).empty()) << what << "\n" << r.out;
      EXPECT_EQ(Text(At(v, {"files", 1 - gone, "file"})), kPlainUnshare) << what;
      EXPECT_EQ(At(v, {"files", 1 - gone, "intact"}).bool_value(), true) << what << "\n" << r.out;
    }
  }
}

// One file that cannot be read at all (missing; cut inside its first chunk)
// is its report all the same, the one document on standard output, show as
// verify: its file, "intact": false, its error; the status the damage's.
TEST(JsonCli, OneFileThatCannotBeReadIsStillItsReportInShowAsInVerify) {
  TempDir dir("json");
  const std::string missing = dir.File("missing.ptape");
  const std::string cut = dir.File("cut.ptape");
  WriteFile(cut, FileBytes(kPlainUnshare).substr(0, 20));
  for (const std::string command : {"show", "verify"}) {
    for (const auto& [file, status, kind] :
         {std::tuple<std::string, int, std::string>{missing, 10, "io"}, {cut, 13, "truncated"}}) {
      CommandResult r = Proctape({command, file, "--json"});
      const std::string what = command + " " + file + " --json";
      EXPECT_EQ(r.exit_code, status) << what << "\n" << Describe(r);
      Value v = ExpectJsonOutput(r, what);
      EXPECT_EQ(Text(At(v, {"file"})), file) << what << "\n" << r.out;
      EXPECT_EQ(At(v, {"intact"}).bool_value(), false) << what << "\n" << r.out;
      EXPECT_EQ(Text(At(v, {"error_kind"})), kind) << what << "\n" << r.out;
      EXPECT_FALSE(Text(At(v, {"error"})).empty()) << what << "\n" << r.out;
    }
  }
}

TEST(JsonCli, ResolvePrintsItsVerdictWithCountsAsNumbers) {
  // A deadline of 0: DEADLINE after one attempt beneath the test process.
  CommandResult r = Proctape({"resolve", "--root", std::to_string(::getpid()), "--token",
                              "7f3c9e0b1a2d", "--deadline-ms", "0", "--json"});
  EXPECT_EQ(r.exit_code, 8) << Describe(r);
  Value v = ExpectJsonOutput(r, "resolve");
  EXPECT_EQ(Text(At(v, {"status"})), "DEADLINE") << r.out;
  EXPECT_EQ(At(v, {"attempts"}).number_value(), 1) << r.out;
  EXPECT_TRUE(IsNumber(At(v, {"bytes_read"}))) << r.out;
  EXPECT_EQ(At(v, {"pid"}).kind_case(), Value::KIND_NOT_SET) << r.out;  // a failure has none
}

TEST(JsonCli, CorpusAddAndListAreOneDocumentEach) {
  TempDir dir("json");
  const std::string corpus = dir.File("corpus");
  CommandResult add = Proctape({"corpus", "add", kPlainUnshare, "--corpus", corpus, "--json"});
  ASSERT_EQ(add.exit_code, 0) << Describe(add);
  Value a = ExpectJsonOutput(add, "corpus add");
  EXPECT_TRUE(At(a, {"added"}).bool_value()) << add.out;
  CommandResult list = Proctape({"corpus", "list", corpus, "--json"});
  ASSERT_EQ(list.exit_code, 0) << Describe(list);
  Value l = ExpectJsonOutput(list, "corpus list");
  EXPECT_EQ(At(l, {"entries"}).list_value().values_size(), 1) << list.out;
}

TEST(JsonCli, ALabRunIsOneDocumentWithItsChecksAsSummaries) {
  if (std::string why = live::SandboxUnavailable(live::SandboxKind::kUnshare); !why.empty()) {
    GTEST_SKIP() << why;
  }
  TempDir dir("json");
  CommandResult r = Proctape({"lab", "plain", "--record", dir.File("plain.ptape"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Value v = ExpectJsonOutput(r, "lab");
  EXPECT_EQ(Text(At(v, {"checks", 0, "verdict", "status"})), "RESOLVED") << r.out;
  EXPECT_TRUE(IsNumber(At(v, {"checks", 0, "verdict", "pid"}))) << r.out;
  EXPECT_TRUE(IsNumber(At(v, {"started", 0, "pid"}))) << r.out;
  EXPECT_EQ(Text(At(v, {"checks", 0, "resolve", "argv", 0})), "/bin/sleep") << r.out;
  EXPECT_TRUE(At(v, {"checks", 0, "resolve", "fingerprint", "boot_of_file"}).bool_value()) << r.out;
}
}  // namespace
}  // namespace proctape
