// proctape export's building blocks on hand-made snapshots: DOT escaping of
// hostile names, the process tree, the side files of a proc-dir (print and
// strict parse), the proc-dir writer and its refusals, and ProcDirEvidence
// reading a directory back through the capture's own scanner. The CLI, the
// corpus and the golden files are in tests/live/export_cli_test.cc.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <google/protobuf/util/json_util.h>

#include "analyze/export.h"
#include "format/output_file.h"
#include "analyze/proc_dir_evidence.h"
#include "analyze/proc_dir_writer.h"
#include "replay/token_mask.h"
#include "proto/convert.h"
#include "capture/frame_scanner.h"

namespace proctape {
namespace {

using namespace std::string_literals;

// The comm of the corpus's hostile-comm scenario, and one with every other
// byte a printer must not pass through.
const std::string kHostileComm = "x) Z 1 1 1\nx";
const std::string kWorseComm = "a\"b\\c\x1b[31m\") \xff";

class TempDir {
 public:
  TempDir() {
    std::string tmpl = "/tmp/proctape-export-unit-XXXXXX";
    path_ = ::mkdtemp(tmpl.data()) != nullptr ? tmpl : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The names in `dir`, sorted.
std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Stat(std::int64_t pid, const std::string& comm, char state, std::int64_t ppid,
                 std::uint64_t start) {
  const std::string p = std::to_string(ppid);
  return std::to_string(pid) + " (" + comm + ") " + state + " " + p + " " + p + " " + p +
         " 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 " + std::to_string(start) + " 1000 10\n";
}

void SetRead(v1::FileRead* r, const std::string& data, std::uint64_t bound, int err = 0,
             bool truncated = false) {
  r->set_data(err == 0 ? data : "");
  r->set_err(err);
  r->set_bound(bound);
  r->set_truncated(truncated);
}

// A record shaped as ScanFrame makes one with the default bounds.
v1::ProcessRecord Record(std::int64_t pid, const std::string& comm, std::int64_t ppid,
                         std::uint64_t start, char state = 'S') {
  const ScanOptions o;
  v1::ProcessRecord r;
  r.set_pid(pid);
  SetRead(r.mutable_stat(), Stat(pid, comm, state, ppid, start), o.stat_bytes);
  SetRead(r.mutable_cmdline(), comm + "\0arg\0"s, o.cmdline_bytes);
  SetRead(r.mutable_environ(), "PATH=****\0PROCTAPE_TOKEN=t0k3n\0"s, o.environ_bytes);
  r.mutable_environ()->set_redacted(true);
  SetRead(r.mutable_status(), "Name:\t" + comm + "\nUid:\t0\t0\t0\t0\n", o.status_bytes);
  SetRead(r.mutable_cgroup(), "0::/lab\n", o.cgroup_bytes);
  r.mutable_exe()->set_dev(65024);
  r.mutable_exe()->set_ino(1000 + static_cast<std::uint64_t>(pid));
  r.mutable_pid_ns()->set_dev(4);
  r.mutable_pid_ns()->set_ino(4026531836);
  return r;
}

// One frame: init; app-server 40 (the root of resolution 0) with the
// hostile sleep 41 (RESOLVED by it) beneath; 42 with unreadable stat; 43
// whose parent 44 started after it; a zombie with the worst comm; a
// duplicate of 41 and an invalid pid, which a proc-dir cannot hold.
Snapshot HostileSnapshot() {
  Snapshot s;
  s.header.set_capture_start_mono_ns(1'000'000'000);
  s.header.set_capture_start_realtime_ns(1'796'000'000'000'000'000);
  s.header.mutable_host()->set_hostname("ci\nhost");
  s.header.mutable_host()->set_boot_id("0b0e-1d\n");
  s.header.mutable_host()->set_clock_ticks_per_second(100);
  s.header.mutable_redaction()->set_environ(v1::RedactionPolicy::ENVIRON_REDACTED);
  s.header.mutable_redaction()->add_kept_entries("PROCTAPE_TOKEN=t0k3n");
  v1::Frame& f = s.frames.emplace_back();
  f.set_scan_start_mono_ns(1'500'000'000);
  f.set_scan_end_mono_ns(1'600'000'000);
  f.set_complete(true);
  *f.add_processes() = Record(1, "init", 0, 5);
  *f.add_processes() = Record(40, "app-server", 1, 100);
  *f.add_processes() = Record(41, kHostileComm, 40, 120);
  v1::ProcessRecord unreadable = Record(42, "gone", 1, 130);
  SetRead(unreadable.mutable_stat(), "", 4096, EACCES);
  SetRead(unreadable.mutable_environ(), "", 65536, EACCES);
  unreadable.mutable_environ()->set_redacted(true);
  unreadable.mutable_exe()->Clear();
  unreadable.mutable_exe()->set_err(ENOENT);
  *f.add_processes() = unreadable;
  v1::ProcessRecord truncated = Record(43, "child", 44, 140);
  SetRead(truncated.mutable_status(), std::string(16384, 's'), 16384, 0, true);
  *f.add_processes() = truncated;
  *f.add_processes() = Record(44, "late-parent", 1, 150);
  v1::ProcessRecord zombie = Record(45, kWorseComm, 40, 160, 'Z');
  SetRead(zombie.mutable_cmdline(), "", 65536);
  *f.add_processes() = zombie;
  *f.add_processes() = Record(41, "duplicate", 40, 999);
  *f.add_processes() = Record(0, "invalid", 1, 1);
  v1::Resolution& r = s.resolutions.emplace_back();
  r.mutable_resolve()->set_root_pid(40);
  r.mutable_resolve()->set_root_start_ticks(100);
  r.mutable_verdict()->set_status(v1::Verdict::RESOLVED);
  r.mutable_verdict()->set_pid(41);
  r.mutable_verdict()->set_start_ticks(120);
  v1::Resolution& gone = s.resolutions.emplace_back();
  gone.mutable_resolve()->set_root_pid(40);
  gone.mutable_resolve()->set_root_start_ticks(100);
  gone.mutable_verdict()->set_status(v1::Verdict::RESOLVED);
  gone.mutable_verdict()->set_pid(77);
  gone.mutable_verdict()->set_start_ticks(700);
  return s;
}

// ---- DOT -----------------------------------------------------------------

TEST(ExportDotTest, EscapesHostileNamesToAsciiThatRendersAsEscapeBytes) {
  EXPECT_EQ(DotEscape("sleep"), "sleep");
  EXPECT_EQ(DotEscape("a\"b"), "a\\\"b");                     // a\"b
  EXPECT_EQ(DotEscape("\") \""), "\\\") \\\"");               // \") \"
  EXPECT_EQ(DotEscape(kHostileComm), "x) Z 1 1 1\\\\x0ax");     // x) Z 1 1 1\\x0ax
  EXPECT_EQ(DotEscape("\x1b[31mred"), "\\\\x1b[31mred");       // \\x1b[31mred
  EXPECT_EQ(DotEscape("back\\n"), "back\\\\x5cn");             // never a DOT \n escape
  EXPECT_EQ(DotEscape("\xff\x7f"), "\\\\xff\\\\x7f");
  EXPECT_EQ(DotEscape("abcdef", 3), "abc...");
}

TEST(ExportDotTest, TreeOfAHostileFrame) {
  const Snapshot s = HostileSnapshot();
  const std::string dot = FrameDot(s, 0);
  // The first record of pid 41, its comm escaped, filled as RESOLVED.
  EXPECT_NE(dot.find("  p41_120 [label=\"41 start 120 S\\nx) Z 1 1 1\\\\x0ax\\nRESOLVED "
                     "(resolution 0)\", style=\"filled,bold\", fillcolor=\"#ffd966\"];\n"),
            std::string::npos)
      << dot;
  EXPECT_EQ(dot.find("duplicate"), std::string::npos) << dot;
  EXPECT_NE(dot.find("  p40_100 [label=\"40 start 100 S\\napp-server\\nroot of resolutions 0, 1\", "
                     "peripheries=2];\n"),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("  p45_160 [label=\"45 start 160 Z\\na\\\"b\\\\x5cc\\\\x1b[31m\\\") "
                     "\\\\xff\"];\n"),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("  p42 [label=\"42\\n(stat unreadable: Permission denied)\", style=dashed];\n"),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("  p40_100 -> p41_120;\n"), std::string::npos) << dot;
  EXPECT_NE(dot.find("  p44_150 -> p43_140 [style=dashed];\n"), std::string::npos) << dot;
  EXPECT_NE(dot.find("resolution 1: RESOLVED 77 start 700, not in this frame"), std::string::npos)
      << dot;
  EXPECT_EQ(dot.find(" -> p42"), std::string::npos) << dot;
  // ASCII only, one statement per line, and the same text every time.
  for (char c : dot) EXPECT_TRUE(c == '\n' || (c >= 0x20 && c < 0x7f)) << static_cast<int>(c);
  EXPECT_EQ(dot, FrameDot(s, 0));
}

TEST(ExportJsonTest, TheWholeSnapshot) {
  Snapshot s = HostileSnapshot();
  s.footer.emplace().set_frames(1);
  v1::SnapshotExport e = ToExport(s);
  EXPECT_EQ(e.header().host().hostname(), "ci\nhost");
  ASSERT_EQ(e.frames_size(), 1);
  EXPECT_EQ(e.frames(0).processes_size(), s.frames[0].processes_size());
  EXPECT_EQ(e.resolutions_size(), 2);
  EXPECT_EQ(e.footer().frames(), 1u);
}

// The JSON printed piece by piece (proto/json_pieces.h: protobuf's printer
// alone builds the whole document as a tree, gigabytes for a 60,000-process
// file) is protobuf's own, byte for byte: the export and a view's report.
TEST(ExportJsonTest, PrintedPieceByPieceIsProtobufsDocumentByteForByte) {
  Snapshot s = HostileSnapshot();
  s.footer.emplace().set_frames(1);
  s.frames.push_back(s.frames[0]);
  s.observations.emplace_back().set_index(0);
  s.observations.back().mutable_read_file()->set_pid(7);
  s.observations.emplace_back().mutable_list_pids()->add_names("1\xff");
  s.fingerprints.emplace_back().set_root_pid(4000);
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string whole;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(ToExport(s), &whole, options).ok());
  std::string pieces, error;
  ASSERT_TRUE(ExportJson(s, &pieces, &error)) << error;
  EXPECT_EQ(pieces, whole);
  EXPECT_EQ(ToJson(ToExport(s)), whole);
  std::string checked;
  ASSERT_TRUE(ToJsonChecked(ToExport(s), &checked, &error)) << error;
  EXPECT_EQ(checked, whole);
}

// A fingerprint file (`proctape fingerprint`) exports its fingerprint too.
TEST(ExportJsonTest, TheFingerprintOfAFingerprintFile) {
  Snapshot s;
  s.header.mutable_host()->set_boot_id("b00t\n");
  v1::RootFingerprint& f = s.fingerprints.emplace_back();
  f.set_root_pid(4000);
  f.set_root_start_ticks(500000);
  f.set_boot_id("b00t\n");
  v1::SnapshotExport e = ToExport(s);
  ASSERT_EQ(e.fingerprints_size(), 1);
  EXPECT_EQ(e.fingerprints(0).root_start_ticks(), 500000u);
  EXPECT_NE(ToJson(e).find("\"fingerprints\":[{\"root_pid\":\"4000\",\"root_start_ticks\":"
                           "\"500000\""),
            std::string::npos)
      << ToJson(e);
}

// ---- Side files ------------------------------------------------------------

TEST(ProcDirSideFileTest, IdentityPrintsEveryFactInOrderAndParsesBack) {
  const Snapshot s = HostileSnapshot();
  const IdentityFacts plain = IdentityFactsOf(s.frames[0].processes(1));
  EXPECT_EQ(PrintIdentityFacts(plain), "proctape-identity 1\nexe 65024:1040\npid_ns 4:4026531836\n");
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
    ASSERT_TRUE(ParseIdentityFacts(PrintIdentityFacts(f), &back, &error)) << error;
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
    EXPECT_FALSE(ParseIdentityFacts(text, &f, &error)) << text;
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
  EXPECT_EQ(text, "proctape-identity 1\nexe error 40\nexe_link /bin/sl eep\\x0a\\x5c\n"
                  "pid_ns error 40\npid_ns_link pid:[4026531836]\n");
  IdentityFacts back;
  std::string error;
  ASSERT_TRUE(ParseIdentityFacts(text, &back, &error)) << error;
  EXPECT_TRUE(back == f);
  for (const auto& [bad, why] : std::vector<std::pair<std::string, std::string>>{
           {"proctape-identity 1\nexe_link \n", "line 2 (exe_link): not printable"},
           {"proctape-identity 1\nexe_link a\\q\n", "line 2 (exe_link): not printable"},
           {"proctape-identity 1\npid_ns 1:2\nexe_link a\n", "line 3 (exe_link): repeated or out"},
           {"proctape-identity 1\npid_ns_link a\npid_ns 1:2\n", "line 3 (pid_ns): repeated or out"},
       }) {
    EXPECT_FALSE(ParseIdentityFacts(bad, &back, &error)) << bad;
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
            "kept_entry PROCTAPE_TOKEN=t0k3n\n"
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
  ASSERT_TRUE(ParseFrameFacts(text, &back, &error)) << error;
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
    EXPECT_FALSE(ParseFrameFacts(text, &f, &error)) << text;
    EXPECT_NE(error.find(why), std::string::npos) << text << " -> " << error;
  }
  FrameFacts f;
  std::string error;
  EXPECT_TRUE(ParseFrameFacts("proctape-frame 1\nkept_entry a\nkept_entry a\n", &f, &error));
  EXPECT_EQ(f.kept_entries.size(), 2u);
}

// ---- The directory -----------------------------------------------------------

TEST(ProcDirWriterTest, WritesTheRecordedBytesAndSideFiles) {
  TempDir tmp;
  const Snapshot s = HostileSnapshot();
  ProcDirStats stats;
  std::string error;
  ASSERT_TRUE(WriteProcDir(s, 0, tmp.File("out"), false, &stats, &error)) << error;
  EXPECT_EQ(stats.processes, 7u);  // the duplicate 41 and pid 0 are dropped
  const std::string dir = tmp.File("out");
  const v1::ProcessRecord& hostile = s.frames[0].processes(2);
  EXPECT_EQ(Slurp(dir + "/41/stat"), hostile.stat().data());
  EXPECT_EQ(Slurp(dir + "/41/cmdline"), hostile.cmdline().data());
  // The kept token entry by its length only (replay/token_mask.h).
  EXPECT_EQ(Slurp(dir + "/41/environ"), "PATH=****\0PROCTAPE_TOKEN=*****\0"s);
  EXPECT_EQ(Slurp(dir + "/41/status"), hostile.status().data());
  EXPECT_EQ(Slurp(dir + "/41/cgroup"), "0::/lab\n");
  EXPECT_EQ(Slurp(dir + "/41/proctape-identity"),
            PrintIdentityFacts(IdentityFactsOf(hostile)));
  FrameFacts facts = FrameFactsOf(s, 0);
  facts.kept_entries = {"PROCTAPE_TOKEN=*****"};
  EXPECT_EQ(Slurp(dir + "/proctape-frame"), PrintFrameFacts(facts));
  // A failed read is no file; an empty read is an empty file.
  struct stat st;
  EXPECT_NE(::lstat((dir + "/42/stat").c_str(), &st), 0);
  EXPECT_NE(::lstat((dir + "/42/environ").c_str(), &st), 0);
  ASSERT_EQ(::lstat((dir + "/45/cmdline").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 0);
  EXPECT_EQ(Slurp(dir + "/43/status"), std::string(16384, 's'));
  ASSERT_EQ(::lstat((dir + "/41/environ").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_NE(::lstat((dir + "/0").c_str(), &st), 0);
  EXPECT_EQ(Names(tmp.path()), std::vector<std::string>{"out"}) << "no temporary is left";
}

TEST(ProcDirWriterTest, RefusesWhatItMustNotReplace) {
  TempDir tmp;
  const Snapshot s = HostileSnapshot();
  ProcDirStats stats;
  std::string error;
  // A symbolic link, even to an empty directory, and even with force.
  ASSERT_EQ(::mkdir(tmp.File("empty").c_str(), 0755), 0);
  ASSERT_EQ(::symlink(tmp.File("empty").c_str(), tmp.File("link").c_str()), 0);
  EXPECT_FALSE(WriteProcDir(s, 0, tmp.File("link"), true, &stats, &error));
  EXPECT_NE(error.find("is a symbolic link: refused"), std::string::npos) << error;
  EXPECT_TRUE(std::filesystem::is_empty(tmp.File("empty")));
  // A file.
  std::ofstream(tmp.File("file")) << "x";
  EXPECT_FALSE(WriteProcDir(s, 0, tmp.File("file"), true, &stats, &error));
  EXPECT_NE(error.find("is not a directory"), std::string::npos) << error;
  // A non-empty directory that is not an export: never, even with force, and
  // the refusal says so up front (not "use --force" first).
  ASSERT_EQ(::mkdir(tmp.File("home").c_str(), 0755), 0);
  std::ofstream(tmp.File("home/notes")) << "mine";
  for (bool force : {false, true}) {
    EXPECT_FALSE(WriteProcDir(s, 0, tmp.File("home"), force, &stats, &error));
    EXPECT_NE(error.find("is a directory that is not an earlier export (it holds no "
                         "proctape-frame): refused, --force or not"),
              std::string::npos)
        << error;
  }
  EXPECT_EQ(Slurp(tmp.File("home/notes")), "mine");
  // An empty directory is replaced; an earlier export only with force.
  EXPECT_TRUE(WriteProcDir(s, 0, tmp.File("empty"), false, &stats, &error)) << error;
  EXPECT_FALSE(WriteProcDir(s, 0, tmp.File("empty"), false, &stats, &error));
  EXPECT_NE(error.find("holds an earlier export: refused (use --force to replace it)"),
            std::string::npos)
      << error;
  std::ofstream(tmp.File("empty/1/extra")) << "stale";
  EXPECT_TRUE(WriteProcDir(s, 0, tmp.File("empty"), true, &stats, &error)) << error;
  struct stat st;
  EXPECT_NE(::lstat(tmp.File("empty/1/extra").c_str(), &st), 0);
  // Temporaries left by earlier runs (of this version, of an older one)
  // block nothing and are left alone.
  ASSERT_EQ(::mkdir(tmp.File("new.partial").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(tmp.File("new.abc123.partial").c_str(), 0755), 0);
  EXPECT_TRUE(WriteProcDir(s, 0, tmp.File("new"), false, &stats, &error)) << error;
  EXPECT_EQ(Names(tmp.path()), (std::vector<std::string>{"empty", "file", "home", "link", "new",
                                                         "new.abc123.partial", "new.partial"}));
}

TEST(WriteOutputFileTest, AtomicAndRefusesLinksAndExistingFiles) {
  TempDir tmp;
  std::string error;
  ASSERT_TRUE(WriteOutputFile(tmp.File("a.dot"), "one", false, &error)) << error;
  EXPECT_EQ(Slurp(tmp.File("a.dot")), "one");
  EXPECT_FALSE(WriteOutputFile(tmp.File("a.dot"), "two", false, &error));
  EXPECT_NE(error.find("exists: refused (use --force"), std::string::npos) << error;
  ASSERT_TRUE(WriteOutputFile(tmp.File("a.dot"), "two", true, &error)) << error;
  EXPECT_EQ(Slurp(tmp.File("a.dot")), "two");
  ASSERT_EQ(::symlink(tmp.File("a.dot").c_str(), tmp.File("l.dot").c_str()), 0);
  EXPECT_FALSE(WriteOutputFile(tmp.File("l.dot"), "three", true, &error));
  EXPECT_NE(error.find("is a symbolic link: refused"), std::string::npos) << error;
  EXPECT_EQ(Slurp(tmp.File("a.dot")), "two");
  EXPECT_EQ(Names(tmp.path()), (std::vector<std::string>{"a.dot", "l.dot"}));
}

// ---- Reading it back ---------------------------------------------------------

// Every record ScanFrame makes of `dir` read through a ProcDirEvidence.
std::vector<v1::ProcessRecord> ScanDir(const std::string& dir, const ScanOptions& scan,
                                       std::string* error) {
  std::vector<v1::ProcessRecord> out;
  auto ev = ProcDirEvidence::Open(dir, error);
  if (!ev) return out;
  FrameCallbacks callbacks;
  callbacks.begin = [](std::int64_t) {};
  callbacks.record = [&out, &ev](v1::ProcessRecord&& r) {
    ev->AddLinkTexts(&r);
    out.push_back(std::move(r));
    return true;
  };
  ScanFrame(*ev, scan, [&ev](std::int64_t pid) { return ev->PidNamespace(pid); }, callbacks);
  *error = ev->error();
  return out;
}

TEST(ProcDirEvidenceTest, TheCapturesScannerReadsBackTheRecordedRecords) {
  TempDir tmp;
  const Snapshot s = HostileSnapshot();
  ProcDirStats stats;
  std::string error;
  ASSERT_TRUE(WriteProcDir(s, 0, tmp.File("dir"), false, &stats, &error)) << error;
  ScanOptions scan;
  scan.kept_entries = {"PROCTAPE_TOKEN=*****"};  // as capture --proc-root takes them
  std::vector<v1::ProcessRecord> back = ScanDir(tmp.File("dir"), scan, &error);
  EXPECT_EQ(error, "");
  // Pids in numeric order, as /proc lists them; the two dropped records absent.
  // The records are the recorded ones with the token masked.
  ASSERT_EQ(back.size(), 7u);
  const TokenMask mask = TokenMask::Of(s);
  for (std::size_t i = 0; i < back.size(); ++i) {
    v1::ProcessRecord original = s.frames[0].processes(static_cast<int>(i));
    mask.Mask(&original);
    EXPECT_EQ(back[i].SerializeAsString(), original.SerializeAsString())
        << "pid " << original.pid() << "\n"
        << back[i].DebugString() << "\nexpected\n"
        << original.DebugString();
  }
}

TEST(ProcDirEvidenceTest, AFixtureOfAnotherToolWithoutSideFiles) {
  TempDir tmp;
  const std::string dir = tmp.File("proc");
  for (const char* pid : {"10", "9", "100"}) {
    ASSERT_TRUE(std::filesystem::create_directories(dir + "/" + pid));
    std::ofstream(dir + "/" + pid + "/stat") << Stat(std::stol(pid), "sh", 'S', 1, 7);
  }
  ASSERT_EQ(::symlink("/bin/sh", (dir + "/9/exe").c_str()), 0);
  std::string error;
  auto ev = ProcDirEvidence::Open(dir, &error);
  ASSERT_TRUE(ev) << error;
  EXPECT_FALSE(ev->frame().has_value());
  ListResult list = ev->ListPids(2);
  EXPECT_EQ(list.names, (std::vector<std::string>{"9", "10"}));
  EXPECT_TRUE(list.truncated);
  // An exe link is never followed (tests/unit/proc_dir_seal_test.cc): its
  // identity is unknown (ELOOP), its text is kept.
  EXPECT_EQ(ev->ExeIdentity(9), (Identity{ELOOP, 0, 0}));
  v1::ProcessRecord nine;
  nine.set_pid(9);
  nine.mutable_exe()->set_err(ELOOP);
  ev->AddLinkTexts(&nine);
  EXPECT_EQ(nine.exe().link_text(), "/bin/sh");
  EXPECT_EQ(ev->ExeIdentity(10).err, ENOENT);
  EXPECT_EQ(ev->PidNamespace(10).err, ENOENT);
  EXPECT_EQ(ev->ReadFile(10, ProcFile::kCmdline, 100).err, ENOENT);
  ReadResult stat = ev->ReadFile(10, ProcFile::kStat, 4096);
  EXPECT_EQ(stat.err, 0);
  EXPECT_FALSE(stat.truncated);
  EXPECT_EQ(ev->error(), "");
}

TEST(ProcDirEvidenceTest, AMalformedSideFileIsReportedNotGuessedAround) {
  TempDir tmp;
  const std::string dir = tmp.File("proc");
  ASSERT_TRUE(std::filesystem::create_directories(dir + "/5"));
  std::ofstream(dir + "/5/proctape-identity") << "proctape-identity 1\nexe 1:2\nexe 3:4\n";
  std::string error;
  auto ev = ProcDirEvidence::Open(dir, &error);
  ASSERT_TRUE(ev) << error;
  EXPECT_EQ(ev->ExeIdentity(5).err, ENOENT);
  EXPECT_NE(ev->error().find("/5/proctape-identity: line 3 (exe): repeated or out of order"),
            std::string::npos)
      << ev->error();
  // A malformed proctape-frame refuses the directory.
  std::ofstream(dir + "/proctape-frame") << "proctape-frame 1\nenviron secret\n";
  EXPECT_FALSE(ProcDirEvidence::Open(dir, &error));
  EXPECT_NE(error.find("/proctape-frame: line 2 (environ)"), std::string::npos) << error;
}

}  // namespace
}  // namespace proctape
