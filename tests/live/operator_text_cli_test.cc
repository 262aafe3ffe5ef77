// SPDX-License-Identifier: Apache-2.0
// Operator-supplied text is escaped exactly like host text (docs/cli/json.md,
// "Text from the host is escaped text"): every command that can echo a string the operator typed — a
// path (an input, an output, --proc, --proc-root, --baseline), --exe, --name,
// --expect, --token, --token-var, --argv, --comm, --cgroup, --output, a corpus
// entry name, an option or a value CLI11 refuses — is run here with a hostile
// string in that place: an ESC sequence, a newline, 0xff and a lone 0xc3. In
// text output, --json output and error messages alike:
//   - no raw byte below 0x20 (but the newline ending a line, and a tab) nor
//     0x7f reaches standard output or standard error;
//   - with --json, standard output is empty or one JSON document, and every
//     line of standard error one JSON object, each strict UTF-8 and read by a
//     real parser.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/proc_parse.h"
#include "tests/live/build_paths.h"
#include "tests/live/cli_contract.h"
#include "tests/live/files.h"
#include "tests/live/json_document.h"
#include "tests/live/output_writers.h"
#include "tests/live/sandbox.h"

namespace proctape::live {
namespace {

using Args = std::vector<std::string>;

// ESC starting a colour, a newline, 0xff (never UTF-8), and 0xc3 alone (a
// UTF-8 lead byte with nothing after it).
const std::string kHostile = "x\x1b[31m\ny\xff\xc3";

std::string Recording() { return SourceCorpus() + "/f46add6575430d19.ptape"; }
std::string Baseline() { return SourceCorpus() + "/021e7cdf322033a4.ptape"; }
std::string Current() { return SourceCorpus() + "/d40fb836ad433348.ptape"; }

// Strict UTF-8: no overlong form, no surrogate, nothing past U+10FFFF.
bool IsUtf8(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = s[i];
    std::size_t more = 0;
    std::uint32_t cp = c;
    if (c >= 0xc2 && c <= 0xdf) {
      more = 1, cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      more = 2, cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      more = 3, cp = c & 0x07;
    } else if (c >= 0x80) {
      return false;
    }
    if (i + more >= s.size() && more > 0) return false;  // cut short
    for (std::size_t k = 1; k <= more; ++k) {
      const unsigned char d = s[i + k];
      if ((d & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    if ((more == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (more == 3 && (cp < 0x10000 || cp > 0x10ffff))) {
      return false;
    }
    i += more + 1;
  }
  return true;
}

// The binary run with an empty standard input.
CommandResult ProctapeWithInput(const Args& args) {
  Args argv = {"/bin/sh", "-c", "exec \"$0\" \"$@\" </dev/null", ::proctape::live::TestedBinary()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, 120'000);
}

// The first raw control byte of `text` other than a newline or a tab, as a
// description with what surrounds it; empty when there is none.
std::string RawControl(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = text[i];
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      const std::size_t from = i < 40 ? 0 : i - 40;
      return "byte " + std::to_string(c) + " at " + std::to_string(i) + " in \"" +
             EscapeBytes(text.substr(from, 80)) + "\"";
    }
  }
  return "";
}

struct Case {
  std::string what;  // where the hostile string goes
  Args args;
};

class OperatorText : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    hostile_path_ = dir_.File(kHostile);
    // A recording under the hostile name, for the commands that read one
    // and print its name on success.
    std::filesystem::copy_file(Recording(), dir_.File("present" + kHostile));
  }

  std::vector<Case> Cases() const {
    const std::string self = SelfPid();
    const std::string start = SelfStart();
    const std::string& h = kHostile;
    const std::string& p = hostile_path_;
    const std::string present = dir_.File("present" + kHostile);
    const std::string d = dir_.path();
    return {
        // Paths read: missing inputs, and a present one named by the operator.
        {"fingerprint --exe", {"fingerprint", "--root", self, "--exe", p, "-o", d + "/fp"}},
        {"fingerprint --proc", {"fingerprint", "--root", self, "--proc", p, "-o", d + "/fp"}},
        {"fingerprint -o", {"fingerprint", "--root", self, "-o", p + ".fp"}},
        {"resolve --fingerprint", {"resolve", "--fingerprint", p, "--token", "t"}},
        {"resolve --exe",
         {"resolve", "--root", self, "--token", "t", "--deadline-ms", "0", "--exe", p}},
        {"resolve --proc",
         {"resolve", "--root", self, "--token", "t", "--deadline-ms", "0", "--proc", p}},
        {"resolve --token", {"resolve", "--root", self, "--token", h, "--deadline-ms", "0"}},
        {"resolve --token-var",
         {"resolve", "--root", self, "--token", "t", "--token-var", h, "--deadline-ms", "0"}},
        {"resolve --argv",
         {"resolve", "--root", self, "--token", "t", "--argv", h, "--deadline-ms", "0"}},
        {"resolve --record",
         {"resolve", "--root", self, "--token", "t", "--deadline-ms", "0", "--record", p + ".r"}},
        {"liveness --proc", {"liveness", "--pid", self, "--start", start, "--proc", p}},
        {"liveness --record", {"liveness", "--pid", self, "--start", start, "--record", p + ".l"}},
        {"capture -o", {"capture", "--root", self, "-o", p + ".c"}},
        {"capture --proc", {"capture", "--root", self, "-o", d + "/c", "--proc", p}},
        {"capture --proc-root", {"capture", "--proc-root", p, "-o", d + "/c2"}},
        {"verify missing", {"verify", p}},
        {"verify present", {"verify", present}},
        {"show missing", {"show", p}},
        {"show present", {"show", present}},
        {"show --comm", {"show", Recording(), "--comm", h}},
        {"tree missing", {"tree", p}},
        {"tree present", {"tree", present}},
        {"tree --comm", {"tree", Recording(), "--comm", h}},
        {"diff missing", {"diff", Recording(), p}},
        {"diff present", {"diff", present, Recording()}},
        {"diff --comm", {"diff", Recording(), "--comm", h}},
        {"explain missing", {"explain", p}},
        {"explain present", {"explain", present}},
        {"export missing", {"export", p, "--format", "dot"}},
        {"export present", {"export", present, "--format", "dot", "-o", d + "/e.dot"}},
        {"export -o", {"export", Recording(), "--format", "dot", "-o", p + ".dot"}},
        {"export --format", {"export", Recording(), "--format", h}},
        {"replay missing", {"replay", p}},
        {"replay present", {"replay", present}},
        {"replay --fingerprint", {"replay", Recording(), "--fingerprint", p}},
        {"replay --token", {"replay", Recording(), "--token", h}},
        {"replay --token-var", {"replay", Recording(), "--token-var", h}},
        {"replay --argv", {"replay", Recording(), "--argv", h}},
        {"corpus add missing", {"corpus", "add", p, "--corpus", d + "/c"}},
        {"corpus add present", {"corpus", "add", present, "--corpus", d + "/cp"}},
        {"corpus add --corpus", {"corpus", "add", Recording(), "--corpus", p + ".corpus"}},
        {"corpus add --name", {"corpus", "add", Recording(), "--corpus", d + "/cn", "--name", h}},
        {"corpus add --expect",
         {"corpus", "add", Recording(), "--corpus", d + "/ce", "--expect", h}},
        {"corpus check DIR", {"corpus", "check", p}},
        {"corpus check --entry", {"corpus", "check", SourceCorpus(), "--entry", h}},
        {"corpus check --junit",
         {"corpus", "check", SourceCorpus(), "--entry", "plain-unshare", "--junit", p + ".xml"}},
        {"corpus list DIR", {"corpus", "list", p}},
        {"corpus rm NAME", {"corpus", "rm", h, "--corpus", SourceCorpus()}},
        {"corpus rm --corpus", {"corpus", "rm", "x", "--corpus", p}},
        {"lab SCENARIO", {"lab", h}},
        {"lab --record", {"lab", "--list", "--record", p}},
        {"ownership --baseline",
         {"ownership", "--baseline", p, "--current", Current(), "--uid", "0", "--cgroup", "/",
          "--self", "1"}},
        {"ownership --cgroup",
         {"ownership", "--baseline", Baseline(), "--current", Current(), "--uid", "0", "--cgroup",
          "/" + h, "--self", "1"}},
        {"ownership --output",
         {"ownership", "--baseline", Baseline(), "--current", Current(), "--uid", "0", "--cgroup",
          "/", "--self", "1", "--output", h}},
        // What CLI11 refuses: an option it does not know, a value it cannot read.
        {"unknown option", {"show", Recording(), "--" + h}},
        {"unknown command", {h}},
        {"unknown top-level option", {"-" + h}},
        {"--version WORD", {"--version", h}},
        {"--print-jail WORD", {"--print-jail", h}},
        {"help TOPIC", {"help", h}},
        {"help COMMAND SUB", {"help", "corpus", h}},
        {"help exit-codes WORD", {"help", "exit-codes", h}},
        {"integer value", {"liveness", "--pid", h, "--start", start}},
    };
  }

  TempDir dir_{"operator-text"};
  std::string hostile_path_;
};

bool HasJson(const Args& args) {
  CommandWords command = {args[0]};
  if (args[0] == "corpus") command.push_back(args[1]);
  const Help help = HelpOf(command);
  for (const HelpEntry& e : HelpEntries(help.text)) {
    if (e.Has("--json")) return true;
  }
  return false;
}

TEST_F(OperatorText, HostileOperatorStringsReachNoTerminalRawAndNoJsonInvalid) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.what);
    const CommandResult text = ProctapeWithInput(c.args);
    EXPECT_EQ(RawControl(text.out), "") << c.what << " (text, stdout)\n" << Describe(text);
    EXPECT_EQ(RawControl(text.err), "") << c.what << " (text, stderr)\n" << Describe(text);
    if (c.args[0] == kHostile || c.args[0][0] == '-' || c.args[0] == "help" || !HasJson(c.args))
      continue;
    Args json_args = c.args;
    json_args.push_back("--json");
    const CommandResult json = ProctapeWithInput(json_args);
    EXPECT_EQ(RawControl(json.out), "") << c.what << " (json, stdout)\n" << Describe(json);
    EXPECT_EQ(RawControl(json.err), "") << c.what << " (json, stderr)\n" << Describe(json);
    if (!json.out.empty()) {
      EXPECT_TRUE(IsUtf8(json.out)) << c.what << " (json stdout not UTF-8)\n" << Describe(json);
      const JsonDocument doc = ParseJsonDocument(json.out);
      EXPECT_TRUE(doc.ok) << c.what << ": " << doc.why << "\n" << Describe(json);
    }
    for (const std::string& line : LinesOf(json.err)) {
      EXPECT_TRUE(IsUtf8(line)) << c.what << " (json stderr not UTF-8)\n" << Describe(json);
      const JsonDocument doc = ParseJsonDocument(line);
      EXPECT_TRUE(doc.ok && doc.value.has_struct_value())
          << c.what << ": stderr line is no JSON object: " << doc.why << "\n"
          << Describe(json);
    }
  }
}

}  // namespace
}  // namespace proctape::live
