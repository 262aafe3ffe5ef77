// The JSON contract of the command line (issue 11, section 3; docs/cli/json.md),
// from the built binary, read with a real JSON parser (protobuf's, into a
// google.protobuf.Value, which accepts one JSON text and nothing after it):
//   - every --json output is one JSON document;
//   - counts, pids, byte totals and durations are JSON numbers; a string that
//     holds a decimal integer is one of the documented 64-bit values (start
//     ticks, device and inode numbers, instants) or host text;
//   - bytes a host or a file controls are escaped text (\xNN), never base64,
//     so the output is ASCII;
//   - under --json, whatever a command says on standard error is JSON too:
//     one object a line, a failure's with its message and exit status.
#include <google/protobuf/struct.pb.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/files.h"
#include "tests/live/json_document.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using google::protobuf::Value;
using live::CommandResult;
using live::Describe;
using live::FileBytes;
using live::TempDir;
using live::WriteFile;

const std::string kSource = PROCTAPE_SOURCE_DIR;

// Corpus recordings (corpus/MANIFEST), by the entry they are.
const std::string kExitedUnshare = kSource + "/corpus/90f88ffa55b074b2.ptape";  // 3 checks
const std::string kHostileComm = kSource + "/corpus/d40fb836ad433348.ptape";
const std::string kPlainUnshare = kSource + "/corpus/f46add6575430d19.ptape";
const std::string kBaseline = kSource + "/corpus/021e7cdf322033a4.ptape";

CommandResult Proctape(std::vector<std::string> args) {
  args.insert(args.begin(), PROCTAPE_BINARY);
  return live::RunCommand(args, 120'000);
}

using Document = live::JsonDocument;
Document ParseDocument(const std::string& text) { return live::ParseJsonDocument(text); }

// The value at a path of keys and indexes, or a null Value when it is not
// there (the test then fails on its kind).
using Step = std::variant<std::string, int>;
Value At(const Value& root, std::initializer_list<Step> path) {
  const Value* v = &root;
  for (const Step& step : path) {
    if (const std::string* key = std::get_if<std::string>(&step)) {
      if (v->kind_case() != Value::kStructValue) return Value();
      auto it = v->struct_value().fields().find(*key);
      if (it == v->struct_value().fields().end()) return Value();
      v = &it->second;
    } else {
      const int i = std::get<int>(step);
      if (v->kind_case() != Value::kListValue || i >= v->list_value().values_size()) return Value();
      v = &v->list_value().values(i);
    }
  }
  return *v;
}

bool IsNumber(const Value& v) { return v.kind_case() == Value::kNumberValue; }
std::string Text(const Value& v) {
  return v.kind_case() == Value::kStringValue ? v.string_value() : "<not a string>";
}

// Keys whose values protobuf's mapping prints as strings because they need
// 64 bits (the documented list, docs/cli/json.md), and keys of host text,
// which may well be digits ("120" in an argv).
bool SixtyFourBit(const std::string& key) {
  static const std::set<std::string> keys = {
      "start_ticks", "root_start_ticks", "scanned_start_ticks", "subject_start_ticks",
      "baseline_start_ticks", "self_start_ticks", "expected_ticks", "dev", "ino",
      "capturer_pid_ns_inode"};
  auto ends = [&key](const std::string& suffix) {
    return key.size() >= suffix.size() &&
           key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return keys.count(key) > 0 || ends("_mono_ns") || ends("_realtime_ns");
}
bool HostText(const std::string& key) {
  static const std::set<std::string> keys = {"argv", "command_line", "comm", "root_comm", "marker",
                                             "hostname", "name", "file", "detail", "summary"};
  return keys.count(key) > 0;
}

bool DecimalInteger(const std::string& s) {
  std::size_t i = !s.empty() && s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

// The number rule, everywhere in `v`: a decimal integer in a string is a
// documented 64-bit value or host text; never a count.
void ExpectNumberRule(const Value& v, const std::string& key, const std::string& where) {
  switch (v.kind_case()) {
    case Value::kStringValue:
      if (DecimalInteger(v.string_value())) {
        EXPECT_TRUE(SixtyFourBit(key) || HostText(key))
            << where << ": \"" << key << "\" is the string \"" << v.string_value()
            << "\": a count or a pid must be a JSON number";
      }
      break;
    case Value::kStructValue:
      for (const auto& [k, child] : v.struct_value().fields()) {
        ExpectNumberRule(child, k, where + "." + k);
      }
      break;
    case Value::kListValue:
      for (int i = 0; i < v.list_value().values_size(); ++i) {
        ExpectNumberRule(v.list_value().values(i), key, where + "[" + std::to_string(i) + "]");
      }
      break;
    default: break;
  }
}

// Escaped text keeps every output byte printable ASCII.
void ExpectAscii(const std::string& text) {
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    ASSERT_TRUE(c == '\n' || (u >= 0x20 && u < 0x7f)) << "byte " << static_cast<int>(u);
  }
}

// A --json success: one document on standard output, keeping the rules, and
// nothing but JSON lines on standard error.
Value ExpectJsonOutput(const CommandResult& r, const std::string& what) {
  EXPECT_TRUE(r.started && !r.timed_out) << Describe(r);
  Document d = ParseDocument(r.out);
  EXPECT_TRUE(d.ok) << what << ": standard output is not one JSON document: " << d.why << "\n"
                    << r.out;
  ExpectAscii(r.out);
  ExpectNumberRule(d.value, "", what);
  std::istringstream err(r.err);
  for (std::string line; std::getline(err, line);) {
    EXPECT_TRUE(ParseDocument(line).ok) << what << ": standard error is not JSON: " << line;
  }
  return d.value;
}

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
  CommandResult r = Proctape({"corpus", "check", kSource + "/corpus", "--entry", "exited-unshare",
                         "--json"});
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
  CommandResult r = Proctape({"liveness", "--pid", std::to_string(::getpid()), "--start", field,
                         "--json"});
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
      const std::vector<std::string> files =
          missing_first ? std::vector<std::string>{missing, kPlainUnshare}
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
  EXPECT_TRUE(At(v, {"checks", 0, "resolve", "fingerprint", "boot_of_file"}).bool_value())
      << r.out;
}

// ---- Failures under --json -------------------------------------------------

// Every line of standard error is a JSON object; the last names the failure
// and the exit status the command returned.
void ExpectJsonFailure(const CommandResult& r, int status, const std::string& what) {
  ASSERT_TRUE(r.started && !r.timed_out) << Describe(r);
  EXPECT_EQ(r.exit_code, status) << what << "\n" << Describe(r);
  ASSERT_FALSE(r.err.empty()) << what;
  std::istringstream err(r.err);
  Value last;
  for (std::string line; std::getline(err, line);) {
    Document d = ParseDocument(line);
    ASSERT_TRUE(d.ok) << what << ": standard error is not JSON: " << line;
    last = d.value;
  }
  EXPECT_FALSE(Text(At(last, {"error"})).empty()) << what << ": " << r.err;
  EXPECT_EQ(At(last, {"exit_status"}).number_value(), status) << what << ": " << r.err;
  ExpectAscii(r.err);
}

// A run that fails under --json ends with its failure as the last line of
// standard error, every warning before it, even one given after the failure
// was found: diff of a cut file (the damage, then "the order looks
// reversed"), verify of a cut file and then one that keeps environment
// values (the damage, then the kept values' warning).
TEST(JsonCli, AFailureIsTheLastLineOfStandardErrorItsWarningsBeforeIt) {
  TempDir dir("json");
  const std::string cut = dir.File("cut.ptape");
  const std::string whole = FileBytes(kBaseline);
  WriteFile(cut, whole.substr(0, whole.size() - 100));
  const std::string kept = dir.File("kept.ptape");
  const CommandResult captured = Proctape(
      {"capture", "--root", std::to_string(::getpid()), "--env", "keep", "-o", kept});
  ASSERT_EQ(captured.exit_code, 0) << Describe(captured);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"diff", kBaseline, cut, "--json"},
        std::vector<std::string>{"verify", cut, kept, "--json"}}) {
    const CommandResult r = Proctape(args);
    std::string what;
    for (const std::string& a : args) what += a + " ";
    EXPECT_EQ(r.exit_code, 13) << what << "\n" << Describe(r);
    std::istringstream err(r.err);
    std::vector<Value> lines;
    for (std::string line; std::getline(err, line);) {
      Document d = ParseDocument(line);
      ASSERT_TRUE(d.ok) << what << ": standard error is not JSON: " << line;
      lines.push_back(d.value);
    }
    ASSERT_FALSE(lines.empty()) << what;
    std::size_t warnings = 0;
    bool failed = false;
    for (const Value& line : lines) {
      const bool is_warning = !Text(At(line, {"warning"})).empty();
      warnings += is_warning ? 1 : 0;
      EXPECT_FALSE(failed && is_warning) << what << ": a warning after the failure\n" << r.err;
      failed = failed || !Text(At(line, {"error"})).empty();
    }
    EXPECT_GE(warnings, 1u) << what << ": the warning this case is about\n" << r.err;
    EXPECT_FALSE(Text(At(lines.back(), {"error"})).empty()) << what << "\n" << r.err;
    EXPECT_EQ(At(lines.back(), {"exit_status"}).number_value(), 13) << what << "\n" << r.err;
  }
}

TEST(JsonCli, EveryFailureUnderJsonIsAJsonObjectOnStandardError) {
  TempDir dir("json");
  const std::string truncated = dir.File("truncated.ptape");
  const std::string whole = FileBytes(kExitedUnshare);
  WriteFile(truncated, whole.substr(0, whole.size() - 100));
  const std::string missing = dir.File("missing.ptape");

  ExpectJsonFailure(Proctape({"tree", missing, "--json"}), 10, "tree of a missing file");
  ExpectJsonFailure(Proctape({"tree", kPlainUnshare, "--frame", "9", "--json"}), 2,
                    "tree of a frame the file does not hold");
  ExpectJsonFailure(Proctape({"tree", truncated, "--json"}), 13, "tree of a truncated file");
  ExpectJsonFailure(Proctape({"diff", kPlainUnshare, "--frames", "0", "9", "--json"}), 2,
                    "diff of a frame the file does not hold");
  ExpectJsonFailure(Proctape({"diff", missing, kPlainUnshare, "--json"}), 10,
                    "diff of a missing file");
  ExpectJsonFailure(Proctape({"show", missing, "--json"}), 10, "show of a missing file");
  ExpectJsonFailure(Proctape({"show", truncated, "--json"}), 13, "show of a truncated file");
  ExpectJsonFailure(Proctape({"lab", "--record", dir.File("lab.ptape"), "--json"}), 2,
                    "lab without a scenario");
  ExpectJsonFailure(
      Proctape({"lab", "no-such-scenario", "--record", dir.File("lab.ptape"), "--json"}), 2,
      "lab of an unknown scenario");
  ExpectJsonFailure(Proctape({"resolve", "--token", "t", "--json"}), 2, "resolve without a root");
  ExpectJsonFailure(Proctape({"liveness", "--pid", "2147483647", "--start", "1", "--json"}), 2,
                    "liveness of a pid above pid_max");
}

}  // namespace
}  // namespace proctape
