// SPDX-License-Identifier: Apache-2.0
// `proctape show` (analyze/show.h) on hand-built snapshots: header facts,
// frames, resolutions, redaction (never a token or a kept value), damage,
// hostile header bytes.
#include "analyze/show.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "proto/convert.h"
#include "views_fixture.h"

namespace proctape {
namespace {

using test::MakeFrame;
using test::MakeSnapshot;
using test::Proc;

std::vector<Proc> Procs() {
  return {Proc(1).Comm("init").Ppid(0).Start(1), Proc(50).Start(500), Proc(61).Ppid(50).Start(601)};
}

// Two frames around one recorded resolution and a liveness check.
Snapshot Recording() {
  Snapshot s =
      MakeSnapshot({MakeFrame(0, Procs(), 1'000'000'000), MakeFrame(1, Procs(), 3'000'000'000)});
  s.header.mutable_redaction()->add_kept_entries("PROCTAPE_TOKEN=t0k3n-secret-value");
  s.resolutions.push_back(test::Resolved(50, 500, 61, 601, 2'000'000'000));
  s.resolutions[0].set_observation_count(3);
  v1::Resolution live;
  live.mutable_liveness()->set_pid(61);
  live.mutable_liveness()->set_start_ticks(601);
  live.mutable_liveness_verdict()->set_status(v1::LivenessVerdict::ERROR);
  live.mutable_liveness_verdict()->set_reason(v1::Verdict::PID_REUSED);
  live.mutable_liveness_verdict()->set_state("S");
  live.mutable_liveness_verdict()->set_detail(
      "pid 61 started at tick 700, not 601: the pid was reused");
  live.set_first_observation(3);
  live.set_observation_count(1);
  live.set_start_mono_ns(2'500'000'000);
  live.set_end_mono_ns(2'500'250'000);
  s.resolutions.push_back(live);
  s.observations.resize(4);
  return s;
}

TEST(ShowTest, ReportsHeaderFramesAndResolutions) {
  Snapshot s = Recording();
  v1::ShowReport r = BuildShow(s, FormatError{}, "rec.ptape");
  EXPECT_TRUE(r.intact());
  EXPECT_EQ(r.boot_id(), "b00t");  // the trailing newline of the file, removed
  EXPECT_EQ(r.capture_start_utc(), "2026-12-01T03:24:48.781Z");
  EXPECT_TRUE(r.capturer_in_initial_pid_ns());
  ASSERT_EQ(r.frames_size(), 2);
  EXPECT_EQ(r.frames(0).processes(), 3u);
  EXPECT_EQ(r.frames(0).scan_ns(), 2'000'000);
  EXPECT_EQ(r.frames(0).before_resolution(), 0);
  EXPECT_EQ(r.frames(1).before_resolution(), -1);
  ASSERT_EQ(r.resolutions_size(), 2);
  EXPECT_EQ(r.resolutions(0).token_bytes(), 18u);
  EXPECT_TRUE(r.resolutions(0).observations_read());
  EXPECT_EQ(RenderShow(r),
            "file: rec.ptape\n"
            "written by: proctape 0.1.0 (format 1): proctape capture\n"
            "host: \"ci-1\", kernel \"6.1.0-18-amd64\", boot_id \"b00t\"\n"
            "  pid_max 4194304, 100 clock ticks per second, page size 4096\n"
            "capture: started 2026-12-01T03:24:48.781Z (monotonic 0.900000000 s), ended "
            "1000.000 ms later\n"
            "capturer: pid 42, uid 0, pid namespace 4026531836 (the initial one: pids are host "
            "pids)\n"
            "environ: REDACTED (each value stored as '*' of its length); kept verbatim: "
            "PROCTAPE_TOKEN (a value of 18 bytes, not shown)\n"
            "frames: 2 (6 process records)\n"
            "  frame 0: 3 processes, scan 2.000 ms, 1000 bytes read, before resolution 0\n"
            "  frame 1: 3 processes, scan 2.000 ms, 1000 bytes read, after the last resolution\n"
            "tape: 4 observations\n"
            "resolutions: 2\n"
            "  resolution 0: resolve beneath root 50@500, token PROCTAPE_TOKEN (18 bytes, not "
            "shown), argv \"/bin/sleep\" \"120\", exe \"/bin/sleep\" 8:11\n"
            "    verdict: RESOLVED host pid 61, start tick 601, 1 attempt, 0 bytes read: pid 61 "
            "started at tick 601\n"
            "    observations 0..2 (3), 1.000 ms\n"
            "  resolution 1: liveness of 61@601\n"
            "    verdict: ERROR PID_REUSED (state S): pid 61 started at tick 700, not 601: the "
            "pid was reused\n"
            "    observations 3..3 (1), 0.250 ms\n"
            "damage: none (4 chunks, footer present)\n");
}

TEST(ShowTest, NeverShowsTheTokenOrAKeptValue) {
  Snapshot s = Recording();
  v1::ShowReport r = BuildShow(s, FormatError{}, "rec.ptape");
  EXPECT_EQ(RenderShow(r).find("t0k3n"), std::string::npos);
  EXPECT_EQ(ToJson(r).find("t0k3n"), std::string::npos);
  ASSERT_EQ(r.kept_entries_size(), 1);
  EXPECT_EQ(r.kept_entries(0).name(), "PROCTAPE_TOKEN");
  EXPECT_EQ(r.kept_entries(0).value_bytes(), 18u);
}

TEST(ShowTest, KeptEnvironmentsAreAWarning) {
  Snapshot s = Recording();
  s.header.mutable_redaction()->set_environ(v1::RedactionPolicy::ENVIRON_KEPT);
  v1::ShowReport r = BuildShow(s, FormatError{}, "rec.ptape");
  EXPECT_EQ(r.environ(), "KEPT");
  EXPECT_FALSE(r.warning().empty());
  EXPECT_NE(RenderShow(r).find("\nenviron: KEPT; kept verbatim: PROCTAPE_TOKEN (a value of 18 "
                               "bytes, not shown)\nWARNING: environment values are stored as read "
                               "(--env keep)"),
            std::string::npos)
      << RenderShow(r);
}

TEST(ShowTest, FrameProblemsAreCounted) {
  v1::Frame f = MakeFrame(0, Procs());
  f.mutable_processes(1)->mutable_cmdline()->set_truncated(true);
  f.mutable_processes(2)->mutable_stat()->set_truncated(true);
  f.mutable_processes(2)->mutable_stat()->set_data("61 (sleep");
  *f.add_processes() = f.processes(0);  // pid 1 twice
  f.set_cut_by_bounds(true);
  f.set_cut_reason("NODE_BOUND: more than 4 process records");
  v1::Frame partial = MakeFrame(1, Procs());
  partial.set_complete(false);
  partial.set_scan_end_mono_ns(0);
  Snapshot s = MakeSnapshot({f, partial});
  s.footer.reset();
  FormatError damage{
      FormatErrorKind::kTruncated, 3, 1388,
      "truncated after chunk 2 at byte 1388: no footer (the capture did not finish)"};
  v1::ShowReport r = BuildShow(s, damage, "cut.ptape");
  EXPECT_FALSE(r.intact());
  EXPECT_EQ(r.error_kind(), "truncated");
  EXPECT_EQ(r.frames(0).records(), 4u);
  EXPECT_EQ(r.frames(0).processes(), 3u);
  EXPECT_EQ(r.frames(0).unidentified(), 1u);
  EXPECT_EQ(r.frames(0).truncated_reads(), 2u);
  std::string out = RenderShow(r);
  EXPECT_NE(out.find("  frame 0: 3 processes (1 duplicate record), 1 without identity, scan "
                     "2.000 ms, 1000 bytes read, 2 reads truncated at its bound, CUT by a bound: "
                     "NODE_BOUND: more than 4 process records\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  frame 1: 3 processes, INCOMPLETE (the capture stopped inside it), 1000 "
                     "bytes read\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(", no end recorded (no footer)\n"), std::string::npos) << out;
  // The damage is the last line.
  const std::string last =
      "damage: truncated: truncated after chunk 2 at byte 1388: no footer "
      "(the capture did not finish) (everything above was read before it)\n";
  ASSERT_GE(out.size(), last.size());
  EXPECT_EQ(out.substr(out.size() - last.size()), last);
}

TEST(ShowTest, HostileHeaderBytesAreEscaped) {
  Snapshot s = MakeSnapshot({});
  s.header.mutable_host()->set_hostname("evil\n\x1b[31mhost\"");
  s.header.set_tool_version("0.1\r\n");
  s.header.set_command_line(1, "cap\nture");
  s.header.set_capturer_pid_ns_inode(4026532178);
  std::string out = RenderShow(BuildShow(s, FormatError{}, "h.ptape"));
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
  EXPECT_EQ(out.find('\r'), std::string::npos);
  EXPECT_NE(out.find("host: \"evil\\x0a\\x1b[31mhost\\x22\", kernel"), std::string::npos) << out;
  EXPECT_NE(out.find("written by: proctape 0.1\\x0d\\x0a (format 1): proctape cap\\x0ature\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("pid namespace 4026532178 (not the initial one, 4026531836: every pid in "
                     "this file is a pid of that namespace)"),
            std::string::npos)
      << out;
}

// A fact the file does not hold (an import of a fixture records no host
// facts of the machine that imported it) is "unknown", never 0 or an empty
// quoted name; a capturer namespace it never saw is not claimed.
TEST(ShowTest, AnAbsentHostFactIsUnknownNeverZero) {
  Snapshot s = MakeSnapshot({});
  s.header.clear_host();
  s.header.set_capturer_pid_ns_inode(0);
  v1::ShowReport r = BuildShow(s, FormatError{}, "import.ptape");
  EXPECT_FALSE(r.has_hostname());
  EXPECT_FALSE(r.has_pid_max());
  EXPECT_FALSE(r.has_capturer_pid_ns_inode());
  EXPECT_FALSE(r.capturer_in_initial_pid_ns());
  EXPECT_EQ(
      std::vector<std::string>(r.unknown().begin(), r.unknown().end()),
      (std::vector<std::string>{"hostname", "kernel_release", "boot_id", "pid_max",
                                "clock_ticks_per_second", "page_size", "capturer_pid_ns_inode"}));
  const std::string out = RenderShow(r);
  EXPECT_NE(out.find("\nhost: unknown, kernel unknown, boot_id unknown\n"
                     "  pid_max unknown, clock ticks per second unknown, page size unknown\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\ncapturer: pid 42, uid 0, pid namespace unknown (the pids in this file "
                     "are of a namespace the file does not name)\n"),
            std::string::npos)
      << out;
  for (const char* zero : {"pid_max 0", " 0 clock", "page size 0", "namespace 0", "\"\""}) {
    EXPECT_EQ(out.find(zero), std::string::npos) << zero << "\n" << out;
  }
  // JSON: the fields are absent and named in "unknown".
  const std::string json = ToJson(r);
  EXPECT_EQ(json.find("\"hostname\":"), std::string::npos) << json;
  EXPECT_EQ(json.find("\"pid_max\":"), std::string::npos) << json;
  EXPECT_EQ(json.find("\"capturer_pid_ns_inode\":"), std::string::npos) << json;
  EXPECT_NE(json.find("\"unknown\":[\"hostname\",\"kernel_release\",\"boot_id\",\"pid_max\","
                      "\"clock_ticks_per_second\",\"page_size\",\"capturer_pid_ns_inode\"]"),
            std::string::npos)
      << json;
  // Facts it holds are shown, the others still unknown.
  s.header.mutable_host()->set_hostname("ci-1");
  s.header.mutable_host()->set_clock_ticks_per_second(100);
  const std::string some = RenderShow(BuildShow(s, FormatError{}, "import.ptape"));
  EXPECT_NE(some.find("\nhost: \"ci-1\", kernel unknown, boot_id unknown\n"
                      "  pid_max unknown, 100 clock ticks per second, page size unknown\n"),
            std::string::npos)
      << some;
}

TEST(ShowTest, NothingReadIsOneDamageLine) {
  Snapshot s;
  FormatError error{FormatErrorKind::kBadMagic, 0, 0, "not a proctape file (bad magic)"};
  EXPECT_EQ(RenderShow(BuildShow(s, error, "x.txt")),
            "file: x.txt\ndamage: not a proctape file (bad magic); nothing could be read\n");
}

v1::RootFingerprint Fingerprint(const std::string& boot_id) {
  v1::RootFingerprint f;
  f.set_root_pid(50);
  f.set_root_start_ticks(500);
  f.set_root_comm("app\nserver");
  f.set_exe_path("/bin/sleep");
  f.mutable_exe_identity()->set_dev(2049);
  f.mutable_exe_identity()->set_ino(1311);
  f.set_boot_id(boot_id);
  f.set_taken_realtime_ns(1'764'559'488'781'000'000);
  return f;
}

// A fingerprint file (`proctape fingerprint`): header, the fingerprint, footer.
TEST(ShowTest, FingerprintFileShowsTheFingerprint) {
  Snapshot s = MakeSnapshot({});
  s.fingerprints.push_back(Fingerprint("b00t\n"));
  v1::ShowReport r = BuildShow(s, FormatError{}, "root.ptape");
  ASSERT_EQ(r.fingerprints_size(), 1);
  EXPECT_EQ(r.fingerprints(0).root_comm(), "app\\x0aserver");
  EXPECT_TRUE(r.fingerprints(0).boot_of_file());
  EXPECT_EQ(r.fingerprints(0).taken_utc(), "2025-12-01T03:24:48.781Z");
  const std::string text = RenderShow(r);
  EXPECT_NE(text.find("\nfingerprints: 1\n  fingerprint 0: root 50 \"app\\x0aserver\" at start "
                      "tick 500, exe \"/bin/sleep\" 2049:1311, taken 2025-12-01T03:24:48.781Z, "
                      "in the file's boot\n"),
            std::string::npos)
      << text;

  s.fingerprints[0].set_boot_id("0ther\n");
  EXPECT_NE(RenderShow(BuildShow(s, FormatError{}, "root.ptape"))
                .find(", in boot \"0ther\" (NOT the file's)\n"),
            std::string::npos);
}

// How the root of a recorded resolution was fingerprinted: before the turn
// (the request holds the fingerprint), late (on the tape), or given.
TEST(ShowTest, ResolutionSaysHowItsRootWasFingerprinted) {
  Snapshot before = Recording();
  *before.resolutions[0].mutable_resolve()->mutable_fingerprint() = Fingerprint("b00t\n");
  v1::ShowReport r = BuildShow(before, FormatError{}, "rec.ptape");
  ASSERT_TRUE(r.resolutions(0).has_fingerprint());
  std::string text = RenderShow(r);
  EXPECT_NE(text.find("  resolution 0: resolve beneath root 50@500 (fingerprinted before the "
                      "turn), token"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\n    fingerprint: root 50 \"app\\x0aserver\" at start tick 500, exe "
                      "\"/bin/sleep\" 2049:1311, taken 2025-12-01T03:24:48.781Z, in the file's "
                      "boot\n    verdict: "),
            std::string::npos)
      << text;

  Snapshot late = Recording();
  late.resolutions[0].mutable_resolve()->set_fingerprint_on_tape(true);
  text = RenderShow(BuildShow(late, FormatError{}, "rec.ptape"));
  EXPECT_NE(text.find("  resolution 0: resolve beneath root 50@500 (fingerprinted late, on the "
                      "tape: a restarted root cannot be detected), token"),
            std::string::npos)
      << text;

  text = RenderShow(BuildShow(Recording(), FormatError{}, "rec.ptape"));
  EXPECT_NE(text.find("  resolution 0: resolve beneath root 50@500, token"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("fingerprint"), std::string::npos) << text;
}

}  // namespace
}  // namespace proctape
