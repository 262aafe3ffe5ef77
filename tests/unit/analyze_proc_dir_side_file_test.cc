// SPDX-License-Identifier: Apache-2.0
// The side files of an exported proc-dir on hand-made snapshots: the identity
// and frame facts print every fact in order, escaped, and parse back strictly.
// The directory itself is in analyze_proc_dir_test.cc.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "procdir/facts.h"
#include "procdir/writer.h"
#include "tests/unit/analyze_export_fixture.h"
#include "tests/unit/failure_text.h"

namespace proctape {
namespace {

using namespace test;  // kHostileComm, kWorseComm, Record, HostileSnapshot

// ---- Side files ------------------------------------------------------------

TEST(ProcDirSideFileTest, IdentityPrintsEveryFactInOrderAndParsesBack) {
  const Snapshot s = HostileSnapshot();
  const IdentityFacts plain = IdentityFactsOf(s.frames[0].processes(1));
  EXPECT_EQ(PrintIdentityFacts(plain),
            "proctape-identity 1\nexe 65024:1040\npid_ns 4:4026531836\n");
  const IdentityFacts unreadable = IdentityFactsOf(s.frames[0].processes(3));
  EXPECT_EQ(PrintIdentityFacts(unreadable),
            "proctape-identity 1\nexe error 2\npid_ns 4:4026531836\nstat error 13\n"
            "environ error 13\n");
  const IdentityFacts truncated = IdentityFactsOf(s.frames[0].processes(4));
  EXPECT_EQ(PrintIdentityFacts(truncated),
            "proctape-identity 1\nexe 65024:1043\npid_ns 4:4026531836\nstatus truncated\n");
  for (const IdentityFacts& f : {plain, unreadable, truncated, IdentityFacts{}}) {
    IdentityFacts back;
    std::string error;
    ASSERT_EQ(Why(ParseIdentityFacts(PrintIdentityFacts(f), &back)), "");
    EXPECT_TRUE(back == f) << PrintIdentityFacts(f);
  }
}

TEST(ProcDirSideFileTest, IdentityParseIsStrict) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "empty"},
      {"proctape-identity 2\n", "line 1 is not"},
      {"proctape-identity 1", "no newline"},
      {"proctape-identity 1\nexe 1:2", "line 2 has no newline"},
      {"proctape-identity 1\nexe 1:2\nexe 1:2\n", "line 3 (exe): repeated or out of order"},
      {"proctape-identity 1\npid_ns 1:2\nexe 1:2\n", "line 3 (exe): repeated or out of order"},
      {"proctape-identity 1\nstatus truncated\nstat error 2\n", "line 3 (stat)"},
      {"proctape-identity 1\nexe 1:-2\n", "wants DEV:INO"},
      {"proctape-identity 1\nexe error 0\n", "wants DEV:INO"},
      {"proctape-identity 1\nexe 01:2\n", "wants DEV:INO"},
      {"proctape-identity 1\nstat error x\n", "wants \"error ERRNO\""},
      {"proctape-identity 1\nstat truncated \n", "wants \"error ERRNO\""},
      {"proctape-identity 1\nfd 3\n", "line 2 (fd): unknown key"},
      {"proctape-identity 1\nexe\n", "line 2 is not \"KEY VALUE\""},
  };
  for (const auto& [text, why] : bad) {
    IdentityFacts f;
    std::string error;
    error = Why(ParseIdentityFacts(text, &f));
    EXPECT_NE(error, "") << text;
    EXPECT_NE(error.find(why), std::string::npos) << text << " -> " << error;
  }
}

TEST(ProcDirSideFileTest, LinkTextsPrintEscapedInOrderAndParseBack) {
  v1::ProcessRecord r;
  r.mutable_exe()->set_err(ELOOP);
  r.mutable_exe()->set_link_text("/bin/sl eep\n\\");
  r.mutable_pid_ns()->set_err(ELOOP);
  r.mutable_pid_ns()->set_link_text("pid:[4026531836]");
  const IdentityFacts f = IdentityFactsOf(r);
  const std::string text = PrintIdentityFacts(f);
  EXPECT_EQ(text,
            "proctape-identity 1\nexe error 40\nexe_link /bin/sl eep\\x0a\\x5c\n"
            "pid_ns error 40\npid_ns_link pid:[4026531836]\n");
  IdentityFacts back;
  std::string error;
  ASSERT_EQ(Why(ParseIdentityFacts(text, &back)), "");
  EXPECT_TRUE(back == f);
  for (const auto& [bad, why] : std::vector<std::pair<std::string, std::string>>{
           {"proctape-identity 1\nexe_link \n", "line 2 (exe_link): not printable"},
           {"proctape-identity 1\nexe_link a\\q\n", "line 2 (exe_link): not printable"},
           {"proctape-identity 1\npid_ns 1:2\nexe_link a\n", "line 3 (exe_link): repeated or out"},
           {"proctape-identity 1\npid_ns_link a\npid_ns 1:2\n", "line 3 (pid_ns): repeated or out"},
       }) {
    error = Why(ParseIdentityFacts(bad, &back));
    EXPECT_NE(error, "") << bad;
    EXPECT_NE(error.find(why), std::string::npos) << bad << " -> " << error;
  }
}

TEST(ProcDirSideFileTest, FrameFactsOfASnapshot) {
  const FrameFacts f = FrameFactsOf(HostileSnapshot(), 0);
  EXPECT_EQ(f.scan_start_realtime_ns, 1'796'000'000'500'000'000);  // + (1.5 s - 1 s)
  EXPECT_EQ(f.dropped_pids, (std::vector<std::int64_t>{41, 0}));
  EXPECT_EQ(PrintFrameFacts(f),
            "proctape-frame 1\n"
            "scan_start_mono_ns 1500000000\n"
            "scan_end_mono_ns 1600000000\n"
            "scan_start_realtime_ns 1796000000500000000\n"
            "hostname ci\\x0ahost\n"
            "boot_id 0b0e-1d\\x0a\n"
            "clock_ticks_per_second 100\n"
            "environ redacted\n"
            "kept_entry PROCTAPE_TOKEN=t0k3n-42\n"
            "dropped_pid 41\n"
            "dropped_pid 0\n");
}

TEST(ProcDirSideFileTest, FrameFactsRoundTripHostileBytes) {
  FrameFacts f;
  f.scan_start_mono_ns = -5;
  f.scan_end_mono_ns = INT64_MAX;
  f.cut_reason = "max-bytes";
  f.host.set_hostname(" lead and trail ");
  f.host.set_kernel_release("6.1\\x0a");  // a literal backslash, not an escape
  f.host.set_boot_id("\xff\x00\x1b\n"s);
  f.host.set_pid_max(4194304);
  f.host.set_page_size(4096);
  f.capturer_pid_ns_inode = 4026532178;
  f.environ = v1::RedactionPolicy::ENVIRON_KEPT;
  f.kept_entries = {"A=1", "", "B=\"x\" y"};
  f.dropped_pids = {-3};
  const std::string text = PrintFrameFacts(f);
  for (char c : text) EXPECT_TRUE(c == '\n' || (c >= 0x20 && c < 0x7f)) << static_cast<int>(c);
  FrameFacts back;
  std::string error;
  ASSERT_EQ(Why(ParseFrameFacts(text, &back)), "");
  EXPECT_EQ(PrintFrameFacts(back), text);
  EXPECT_EQ(back.host.kernel_release(), "6.1\\x0a");
  EXPECT_EQ(back.host.boot_id(), "\xff\x00\x1b\n"s);
  EXPECT_EQ(back.kept_entries, f.kept_entries);
  EXPECT_EQ(back.scan_end_mono_ns, INT64_MAX);
  EXPECT_EQ(back.environ, v1::RedactionPolicy::ENVIRON_KEPT);
  EXPECT_EQ(back.capturer_pid_ns_inode, 4026532178u);
}

TEST(ProcDirSideFileTest, FrameParseIsStrict) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"proctape-identity 1\n", "line 1 is not \"proctape-frame 1\""},
      {"proctape-frame 1\nhostname a\\x4\n", "\\xNN"},
      {"proctape-frame 1\nhostname a\\q00\n", "\\xNN"},
      {"proctape-frame 1\nhostname a\xc3\xa9\n", "\\xNN"},
      {"proctape-frame 1\nhostname a\tb\n", "\\xNN"},
      {"proctape-frame 1\npid_max -0\n", "not a decimal"},
      {"proctape-frame 1\npid_max 007\n", "not a decimal"},
      {"proctape-frame 1\npid_max 9223372036854775808\n", "not a decimal"},
      {"proctape-frame 1\ncapturer_pid_ns_inode -1\n", "not a decimal"},
      {"proctape-frame 1\nenviron kept\ncapturer_pid_ns_inode 5\n", "repeated or out of order"},
      {"proctape-frame 1\nenviron maybe\n", "wants \"redacted\" or \"kept\""},
      {"proctape-frame 1\nhostname a\nhostname b\n", "repeated or out of order"},
      {"proctape-frame 1\nenviron kept\nhostname a\n", "repeated or out of order"},
      {"proctape-frame 1\nindex 3\n", "unknown key"},
  };
  for (const auto& [text, why] : bad) {
    FrameFacts f;
    std::string error;
    error = Why(ParseFrameFacts(text, &f));
    EXPECT_NE(error, "") << text;
    EXPECT_NE(error.find(why), std::string::npos) << text << " -> " << error;
  }
  FrameFacts f;
  std::string error;
  EXPECT_EQ(Why(ParseFrameFacts("proctape-frame 1\nkept_entry a\nkept_entry a\n", &f)), "");
  EXPECT_EQ(f.kept_entries.size(), 2u);
}

}  // namespace
}  // namespace proctape
