// SPDX-License-Identifier: Apache-2.0
// A recording's token appears in no view (replay/token_mask.h): the mask
// itself (which tokens, which forms, which fields), and every view of a
// hand-made recording whose token sits where views print bytes: the command
// line that wrote the file (`--token VALUE`, `--token=VALUE`), the kept
// environ entry, argv elements (one long enough to be cut in text), a comm,
// the environ of the sandbox. The corpus recordings are checked through the
// binary in tests/live/token_views_test.cc.
#include "replay/token_mask.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analyze/diff.h"
#include "analyze/export.h"
#include "procdir/writer.h"
#include "analyze/show.h"
#include "analyze/tree.h"
#include "proto/convert.h"
#include "views_fixture.h"
#include "tests/unit/failure_text.h"

namespace proctape {
namespace {

using namespace std::string_literals;
using test::MakeFrame;
using test::MakeSnapshot;
using test::Proc;

const std::string kToken = "7f3c9e0b5a1d4c2e8f6a9b0c1d2e3f40";
const std::string kStars(kToken.size(), '*');

// No 8 consecutive bytes of the token: not the token, not a part of it that a
// cut left behind.
void ExpectNoTokenIn(const std::string& what, const std::string& text) {
  for (std::size_t i = 0; i + 8 <= kToken.size(); ++i) {
    ASSERT_EQ(text.find(kToken.substr(i, 8)), std::string::npos)
        << what << " holds \"" << kToken.substr(i, 8) << "\":\n"
        << text;
  }
}

TEST(TokenMaskTest, TheTokensOfARecordingAreItsRequestsKeptEntriesAndCommandLine) {
  Snapshot s = MakeSnapshot({});
  s.resolutions.push_back(test::Resolved(50, 500, 61, 601, 2'000'000'000));  // t0k3n-secret-value
  s.header.mutable_redaction()->add_kept_entries("PROCTAPE_TOKEN=kept-value");
  s.header.mutable_redaction()->add_kept_entries("NOT_AN_ENTRY");
  s.header.clear_command_line();
  for (const char* arg :
       {"proctape", "resolve", "--token", "spaced-value", "--token=joined-value", "--token="}) {
    s.header.add_command_line(arg);
  }
  const TokenMask mask = TokenMask::Of(s);
  EXPECT_EQ(mask.Masked("a t0k3n-secret-value b kept-value c spaced-value d joined-value e"),
            "a ****************** b ********** c ************ d ************ e");
  EXPECT_EQ(mask.size(), 4u);
  EXPECT_EQ(mask.Masked("NOT_AN_ENTRY --token= resolve"), "NOT_AN_ENTRY --token= resolve");
  EXPECT_TRUE(TokenMask::Of(MakeSnapshot({})).empty());
}

TEST(TokenMaskTest, ATokenIsStarsOfItsLengthRawEscapedOrQuoted) {
  TokenMask mask;
  mask.Add("a\"b\nc-0123");                                      // 10 bytes: a quote and a newline
  mask.Add("");                                                  // not a token
  EXPECT_EQ(mask.Masked("x a\"b\nc-0123 y"), "x ********** y");  // raw
  // As printed, every byte of the printed token is a star.
  EXPECT_EQ(mask.Masked("x a\"b\\x0ac-0123 y"), "x ************* y");        // EscapeBytes
  EXPECT_EQ(mask.Masked("x a\\x22b\\x0ac-0123 y"), "x **************** y");  // QuoteBytes
  // One token that holds another, and two that meet: all of both.
  TokenMask nested;
  nested.Add("abcdefgh");
  nested.Add("xxabcdefghxx");
  EXPECT_EQ(nested.Masked("xxabcdefghxx abcdefgh"), "************ ********");
}

// docs/security.md "The token in outputs": any run of 8 or more of a token's
// bytes, wherever a cut, a comm's 15 bytes or a file name left it, and
// nothing shorter.
TEST(TokenMaskTest, EveryRunOfEightOrMoreOfATokensBytesIsMasked) {
  TokenMask mask;
  mask.Add(kToken);
  EXPECT_EQ(mask.Masked(kToken.substr(0, 15)), std::string(15, '*'));                   // a comm
  EXPECT_EQ(mask.Masked("argv=" + kToken.substr(16)), "argv=" + std::string(16, '*'));  // a cut
  EXPECT_EQ(mask.Masked("/tmp/" + kToken.substr(3, 8) + ".ptape"), "/tmp/********.ptape");
  // Seven bytes are no piece: left as they are.
  EXPECT_EQ(mask.Masked("x" + kToken.substr(0, 7) + "y"), "x" + kToken.substr(0, 7) + "y");
  // Two pieces from different places of the token, end to end: both.
  EXPECT_EQ(mask.Masked(kToken.substr(20, 8) + kToken.substr(2, 9)), std::string(17, '*'));
  EXPECT_TRUE(mask.Holds("..." + kToken.substr(9, 8)));
  EXPECT_FALSE(mask.Holds(kToken.substr(9, 7)));
}

// A token shorter than kMinRun cannot be told from ordinary text: it is not
// masked, and proctape's words (and the host's) are left whole.
TEST(TokenMaskTest, ATokenShorterThanEightIsNotMaskedAndCounted) {
  TokenMask mask;
  mask.Add("t");
  mask.Add("retry");
  EXPECT_TRUE(mask.empty());
  EXPECT_EQ(mask.size(), 2u);
  EXPECT_EQ(mask.short_tokens(), 2u);
  EXPECT_EQ(mask.Masked("the retry interval"), "the retry interval");
  mask.Add(kToken);
  EXPECT_FALSE(mask.empty());
  EXPECT_EQ(mask.short_tokens(), 2u);
  EXPECT_EQ(mask.Masked("the retry interval " + kToken), "the retry interval " + kStars);
}

// Many tokens cost each text its length, not its length times the tokens:
// 100,000 tokens (a header that keeps that many entries) mask a text once.
TEST(TokenMaskTest, AHundredThousandTokensAreOneSetOfWindows) {
  TokenMask mask;
  for (int i = 0; i < 100'000; ++i) {
    EXPECT_TRUE(mask.Add("token-" + std::to_string(1'000'000 + i)));
  }
  EXPECT_FALSE(mask.Add("token-1000000"));  // known already
  EXPECT_EQ(mask.size(), 100'000u);
  EXPECT_EQ(mask.Masked("a token-1099999 b token-2000000"), "a ************* b token-2000000");
  // Adding a mask to a mask adds what it holds, once.
  TokenMask more;
  more.Add(mask);
  EXPECT_EQ(more.size(), mask.size());
}

// Shown: masked first, then escaped and cut, so a cut leaves no piece.
TEST(TokenMaskTest, HostBytesAreMaskedBeforeTheyAreCut) {
  TokenMask mask;
  mask.Add(kToken);
  const std::string argv = std::string(20, 'x') + kToken;
  EXPECT_EQ(mask.Shown(argv, 36), std::string(20, 'x') + std::string(16, '*') + "...");
  EXPECT_EQ(mask.Shown("a\n" + kToken), "a\\x0a" + kStars);
}

TEST(TokenMaskTest, EveryStringAndBytesFieldOfAMessage) {
  TokenMask mask;
  mask.Add(kToken);
  v1::ShowReport report;
  report.add_command_line("--token");
  report.add_command_line(kToken);
  report.add_resolutions()->mutable_verdict()->set_evidence("PROCTAPE_TOKEN=" + kToken + "\0"s);
  report.mutable_bounds()->set_stat_bytes(4096);
  report.set_hostname("host-" + kToken);
  mask.Mask(&report);
  ExpectNoTokenIn("report", report.SerializeAsString());
  EXPECT_EQ(report.command_line(1), kStars);
  EXPECT_EQ(report.hostname(), "host-" + kStars);
  EXPECT_EQ(report.resolutions(0).verdict().evidence(), "PROCTAPE_TOKEN=" + kStars + "\0"s);
  EXPECT_EQ(report.bounds().stat_bytes(), 4096u);
}

// A recording made by `resolve --token VALUE --record`: the token on the
// command line, in the kept entry and the request, in the sandbox shell's
// argv (once as a long argument cut in text), in a comm (a hand-made file's:
// a kernel cuts a comm at 15 bytes), and in the sleep's environ.
Snapshot Recording() {
  const std::string script = std::string(240, 'x') + " export PROCTAPE_TOKEN=" + kToken + "; exec";
  std::vector<Proc> procs = {
      Proc(1).Comm("init").Ppid(0).Start(1), Proc(50).Comm("app-server").Start(500),
      Proc(60).Comm(kToken).Ppid(50).Start(600).Argv({"sh", "-c", script, kToken}),
      Proc(61).Ppid(60).Start(601)};
  Snapshot s = MakeSnapshot({MakeFrame(0, procs), MakeFrame(1, procs, 3'000'000'000)});
  for (v1::Frame& f : s.frames) {
    for (v1::ProcessRecord& r : *f.mutable_processes()) {
      r.mutable_environ()->set_data("HOME=*****\0PROCTAPE_TOKEN="s + kToken + "\0"s);
      r.mutable_environ()->set_redacted(true);
    }
    f.mutable_processes(3)->mutable_cmdline()->set_data(
        "/bin/sleep\0"
        "120\0"s);
  }
  s.header.clear_command_line();
  for (const std::string& arg :
       {"proctape"s, "resolve"s, "--root"s, "50"s, "--token"s, kToken, "--token="s + kToken}) {
    s.header.add_command_line(arg);
  }
  s.header.mutable_redaction()->add_kept_entries("PROCTAPE_TOKEN=" + kToken);
  s.resolutions.push_back(test::Resolved(50, 500, 61, 601, 2'000'000'000));
  s.resolutions[0].mutable_resolve()->set_token(kToken);
  return s;
}

TEST(TokenViewsTest, ShowTreeAndDiffNeverPrintTheToken) {
  const Snapshot s = Recording();
  v1::ShowReport show = BuildShow(s, FormatError{}, "r.ptape");
  ExpectNoTokenIn("show", RenderShow(show));
  ExpectNoTokenIn("show --json", ToJson(show));
  EXPECT_NE(RenderShow(show).find("--token " + kStars + " --token=" + kStars), std::string::npos)
      << RenderShow(show);
  for (std::size_t frame : {0u, 1u}) {
    TreeOptions options;
    options.frame = frame;
    Failure failure;
    std::optional<v1::TreeReport> tree = BuildTree(s, "r.ptape", options, &failure);
    ASSERT_TRUE(tree) << failure.message;
    ExpectNoTokenIn("tree", RenderTree(*tree));
    ExpectNoTokenIn("tree --json", ToJson(*tree));
    // The token's argument keeps its length.
    EXPECT_NE(RenderTree(*tree).find(" \"" + kStars + "\""), std::string::npos)
        << RenderTree(*tree);
  }
  Snapshot other = Recording();
  other.frames[1].mutable_processes(2)->mutable_cmdline()->set_data("sh\0-c\0"s + kToken + "\0"s);
  Failure failure;
  std::optional<v1::DiffReport> diff =
      BuildDiff(DiffSide{&s, "a", 0}, DiffSide{&other, "b", 1}, &failure);
  ASSERT_TRUE(diff) << failure.message;
  ASSERT_GT(diff->changes_size(), 0);
  ExpectNoTokenIn("diff", RenderDiff(*diff));
  ExpectNoTokenIn("diff --json", ToJson(*diff));
}

TEST(TokenViewsTest, ADotTreeNeverPrintsTheToken) {
  const Snapshot s = Recording();
  const std::string dot = FrameDot(s, 0);
  ExpectNoTokenIn("dot", dot);
  EXPECT_NE(dot.find("\\n" + kStars + "\""), std::string::npos) << dot;  // the comm, masked
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(TokenViewsTest, AProcDirExportHoldsTheTokensLengthNotItsValue) {
  const Snapshot s = Recording();
  std::string tmpl = "/tmp/proctape-token-unit-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  const std::string dir = tmpl + "/frame0";
  ProcDirStats stats;
  std::string error;
  ASSERT_EQ(Why(WriteProcDir(s, 0, dir, false, &stats)), "");
  std::string all;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) all += Slurp(e.path().string());
  }
  std::filesystem::remove_all(tmpl);
  ExpectNoTokenIn("the proc-dir", all);
  EXPECT_NE(all.find("PROCTAPE_TOKEN=" + kStars + "\0"s), std::string::npos);  // environ
  EXPECT_NE(all.find("\nkept_entry PROCTAPE_TOKEN=" + kStars + "\n"), std::string::npos);
}

}  // namespace
}  // namespace proctape
