// SPDX-License-Identifier: Apache-2.0
// The frame scanner (`docs/format.md` section 3) on the in-memory /proc, what a
// record holds: "Each process: the raw bytes of stat, cmdline, environ,
// status; exe identity or errno; pid-namespace inode; cgroup. A failed read is
// evidence (its errno is recorded), never an abort: a process that vanishes
// mid-scan, a permission error, a zombie's empty cmdline are all kept as
// observed." Also: environ redaction, junk in the listing, a failed listing
// and a callback that stops the scan.
#include "capture/frame_scanner.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "core/memory_evidence.h"
#include "core/proc_parse.h"
#include "tests/unit/frame_scanner_fixture.h"

namespace proctape {
namespace {

using namespace std::string_literals;  // "...\0..."s keeps embedded NULs
using namespace test;                  // TestHost, Scan, Capture, SmallTree

TEST(FrameScanner, RecordsEveryFileExactlyAsReadWithItsBound) {
  TestHost host;
  host.call_cost_ns = 1000;
  host.AddProcess(42, 1, 4242, "sleep", {"/bin/sleep", "120"}, {"HOME=/root", "X=y"}, kSleepExe);
  host.SetFile(42, ProcFile::kCgroup, "0::/user.slice/session-1.scope\n");
  ScanOptions options;
  options.keep_environ = true;
  Capture c = Scan(host, options);

  ASSERT_EQ(c.records.size(), 1u);
  EXPECT_EQ(c.begins, 1);
  EXPECT_EQ(c.records_before_begin, 0);
  const v1::ProcessRecord& r = c.records[0];
  EXPECT_EQ(r.pid(), 42);
  EXPECT_EQ(r.stat().data(), MemoryEvidence::StatLine(42, "sleep", 'S', 1, 4242));
  EXPECT_EQ(r.stat().bound(), 4096u);
  EXPECT_EQ(r.cmdline().data(),
            "/bin/sleep\0"
            "120\0"s);
  EXPECT_EQ(r.cmdline().bound(), 65536u);
  EXPECT_EQ(r.environ().data(), "HOME=/root\0X=y\0"s);
  EXPECT_EQ(r.environ().bound(), 65536u);
  EXPECT_FALSE(r.environ().redacted());
  EXPECT_EQ(r.status().data().substr(0, 12), "Name:\tsleep\n");
  EXPECT_EQ(r.status().bound(), 16384u);
  EXPECT_EQ(r.cgroup().data(), "0::/user.slice/session-1.scope\n");
  EXPECT_EQ(r.cgroup().bound(), 4096u);
  for (const v1::FileRead* f : {&r.stat(), &r.cmdline(), &r.environ(), &r.status(), &r.cgroup()}) {
    EXPECT_EQ(f->err(), 0);
    EXPECT_FALSE(f->truncated());
    EXPECT_EQ(f->blob(), 0u);
  }
  EXPECT_EQ(r.exe().err(), 0);
  EXPECT_EQ(r.exe().dev(), kSleepExe.dev);
  EXPECT_EQ(r.exe().ino(), kSleepExe.ino);
  ASSERT_TRUE(r.has_pid_ns());
  EXPECT_EQ(r.pid_ns().ino(), 4026531836u);

  EXPECT_EQ(c.stats.processes, 1u);
  EXPECT_EQ(c.stats.bytes_read, DataBytes(r));
  EXPECT_EQ(c.stats.cut_reason, "");
  EXPECT_EQ(c.stats.listed, 1u);
  // Start before the listing, end after the last call; begin() got the start.
  EXPECT_EQ(c.begin_ns, c.stats.scan_start_mono_ns);
  EXPECT_GT(c.stats.scan_end_mono_ns, c.stats.scan_start_mono_ns);
  EXPECT_EQ(c.stats.scan_end_mono_ns, host.now_ns);
}

TEST(FrameScanner, WithoutAPidNamespaceSourceThePidNsIsAbsent) {
  TestHost host;
  host.AddProcess(42, 1, 4242, "sleep", {"/bin/sleep"}, {}, kSleepExe);
  Capture c = Scan(host, ScanOptions{}, PidNamespaceFn{});
  ASSERT_EQ(c.records.size(), 1u);
  EXPECT_FALSE(c.records[0].has_pid_ns());
}

TEST(FrameScanner, HostileBytesAreKeptByteForByte) {
  TestHost host;
  // comm with ") " and a newline, non-UTF-8, NULs and a missing final NUL.
  const std::string comm = "evil) S 1 (\n\xff\xfe";
  host.AddProcess(77, 1, 7, comm, {}, {}, kShExe);
  const std::string cmdline = "\xc3\x28\0\0--x=\x80\x81\0no-final-nul"s;
  const std::string environ = "K=\xff\0=\0NOEQ\0\0"s;
  const std::string status = "Name:\tevil) S\nState:\tZ\n\0\xff"s;
  host.SetFile(77, ProcFile::kCmdline, cmdline);
  host.SetFile(77, ProcFile::kEnviron, environ);
  host.SetFile(77, ProcFile::kStatus, status);
  host.SetFile(77, ProcFile::kCgroup, "\0\0\0"s);
  ScanOptions keep;
  keep.keep_environ = true;
  Capture c = Scan(host, keep);
  ASSERT_EQ(c.records.size(), 1u);
  const v1::ProcessRecord& r = c.records[0];
  EXPECT_EQ(r.stat().data(), MemoryEvidence::StatLine(77, comm, 'S', 1, 7));
  EXPECT_EQ(r.cmdline().data(), cmdline);
  EXPECT_EQ(r.environ().data(), environ);
  EXPECT_EQ(r.status().data(), status);
  EXPECT_EQ(r.cgroup().data(), "\0\0\0"s);

  // Redacted: same length and NUL structure, no value byte left.
  Capture red = Scan(host, ScanOptions{});
  ASSERT_EQ(red.records.size(), 1u);
  EXPECT_EQ(red.records[0].environ().data(), "K=*\0=\0****\0\0"s);
  EXPECT_TRUE(red.records[0].environ().redacted());
}

TEST(FrameScanner, AProcessThatVanishesMidScanIsKeptWithItsErrno) {
  TestHost host;
  host.AddProcess(50, 1, 5, "a", {"/bin/a"}, {"A=1"}, kShExe);
  host.AddProcess(51, 1, 5, "b", {"/bin/b"}, {"B=1"}, kShExe);
  host.AddProcess(52, 1, 5, "c", {"/bin/c"}, {"C=1"}, kShExe);
  // 51 exits right after its stat was read: its other reads fail.
  host.after_read = [&host](std::int64_t pid, ProcFile file) {
    if (pid == 51 && file == ProcFile::kStat) host.Remove(51);
  };
  // 52 is listed but gone before any read (vanished between listing and read).
  host.listing = std::vector<std::string>{"50", "51", "52", "53"};
  Capture c = Scan(host, ScanOptions{});
  ASSERT_EQ(Pids(c), (std::vector<std::int64_t>{50, 51, 52, 53}));
  const v1::ProcessRecord& b = c.records[1];
  EXPECT_EQ(b.stat().err(), 0);
  EXPECT_EQ(b.stat().data(), MemoryEvidence::StatLine(51, "b", 'S', 1, 5));
  for (const v1::FileRead* f : {&b.cmdline(), &b.environ(), &b.status(), &b.cgroup()}) {
    EXPECT_EQ(f->err(), ENOENT);
    EXPECT_EQ(f->data(), "");
  }
  EXPECT_EQ(b.exe().err(), ENOENT);
  const v1::ProcessRecord& gone = c.records[3];
  EXPECT_EQ(gone.pid(), 53);
  EXPECT_EQ(gone.stat().err(), ENOENT);
  EXPECT_EQ(gone.exe().err(), ENOENT);
  // The environ of a failed read says the policy, but holds no data.
  EXPECT_TRUE(gone.environ().redacted());
  EXPECT_EQ(c.stats.cut_reason, "");
}

TEST(FrameScanner, EveryErrnoKindIsKeptPerFile) {
  TestHost host;
  host.AddProcess(60, 1, 6, "root-owned", {"/sbin/x"}, {"SECRET=1"}, Identity{EACCES, 0, 0});
  host.SetFileError(60, ProcFile::kEnviron, EACCES);
  host.SetFileError(60, ProcFile::kStatus, ESRCH);
  host.SetFileError(60, ProcFile::kCgroup, EIO);
  host.SetFileError(60, ProcFile::kCmdline, EPERM);
  host.AddProcess(666, 1, 6, "x", {"/x"}, {}, kShExe);
  Capture c = Scan(host, ScanOptions{});
  ASSERT_EQ(c.records.size(), 2u);
  const v1::ProcessRecord& r = c.records[0];
  EXPECT_EQ(r.stat().err(), 0);
  EXPECT_EQ(r.cmdline().err(), EPERM);
  EXPECT_EQ(r.environ().err(), EACCES);
  EXPECT_EQ(r.status().err(), ESRCH);
  EXPECT_EQ(r.cgroup().err(), EIO);
  EXPECT_EQ(r.exe().err(), EACCES);
  EXPECT_EQ(c.records[1].pid_ns().err(), ENOENT);
}

TEST(FrameScanner, AZombieIsKeptAsObserved) {
  TestHost host;
  host.AddProcess(70, 1, 7, "defunct", {}, {}, Identity{ENOENT, 0, 0}, 'Z');
  Capture c = Scan(host, ScanOptions{});
  ASSERT_EQ(c.records.size(), 1u);
  const v1::ProcessRecord& r = c.records[0];
  EXPECT_EQ(r.stat().data(), MemoryEvidence::StatLine(70, "defunct", 'Z', 1, 7));
  EXPECT_EQ(r.cmdline().err(), 0);
  EXPECT_TRUE(r.has_cmdline());
  EXPECT_EQ(r.cmdline().data(), "");
  EXPECT_EQ(r.environ().data(), "");
  EXPECT_EQ(r.exe().err(), ENOENT);
}

TEST(FrameScanner, AReadOverItsBoundKeepsTheBoundAndSaysTruncated) {
  TestHost host;
  host.AddProcess(80, 1, 8, "big", {std::string(70000, 'a')}, {"K=" + std::string(70000, 'v')},
                  kShExe);
  host.SetFile(80, ProcFile::kStatus, std::string(16384, 's'));  // exactly the bound: whole
  ScanOptions keep;
  keep.keep_environ = true;
  Capture c = Scan(host, keep);
  ASSERT_EQ(c.records.size(), 1u);
  const v1::ProcessRecord& r = c.records[0];
  EXPECT_TRUE(r.cmdline().truncated());
  EXPECT_EQ(r.cmdline().data(), std::string(65536, 'a'));
  EXPECT_TRUE(r.environ().truncated());
  EXPECT_EQ(r.environ().data().size(), 65536u);
  EXPECT_FALSE(r.status().truncated());
  EXPECT_EQ(r.status().data().size(), 16384u);
}

TEST(FrameScanner, EnvironIsRedactedExceptKeptEntries) {
  TestHost host;
  host.AddProcess(90, 1, 9, "sleep", {"/bin/sleep"},
                  {"HOME=/root", "AWS_SECRET_ACCESS_KEY=hunter2", "PROCTAPE_TOKEN=3f9c", "NOEQ"},
                  kSleepExe);
  ScanOptions options;
  options.kept_entries = {"PROCTAPE_TOKEN=3f9c"};
  Capture c = Scan(host, options);
  ASSERT_EQ(c.records.size(), 1u);
  const v1::FileRead& env = c.records[0].environ();
  EXPECT_TRUE(env.redacted());
  EXPECT_EQ(env.data(), "HOME=*****\0AWS_SECRET_ACCESS_KEY=*******\0PROCTAPE_TOKEN=3f9c\0****\0"s);
  EXPECT_EQ(env.data().find("hunter2"), std::string::npos);
  // The bytes counted are the bytes read (redaction keeps the length).
  EXPECT_EQ(c.stats.bytes_read, DataBytes(c.records[0]));
}

TEST(FrameScanner, KeepModeStoresEnvironVerbatim) {
  TestHost host;
  const std::vector<std::string> env = {"HOME=/root", "AWS_SECRET_ACCESS_KEY=hunter2"};
  host.AddProcess(90, 1, 9, "sleep", {"/bin/sleep"}, env, kSleepExe);
  ScanOptions options;
  options.keep_environ = true;
  options.kept_entries = {"HOME=/root"};
  Capture c = Scan(host, options);
  ASSERT_EQ(c.records.size(), 1u);
  EXPECT_FALSE(c.records[0].environ().redacted());
  EXPECT_EQ(c.records[0].environ().data(), JoinNul(env));
}

TEST(FrameScanner, JunkNamesInTheListingAreSkippedAndDuplicatesKept) {
  TestHost host;
  host.AddProcess(5, 1, 1, "p", {"/p"}, {}, kShExe);
  host.listing = std::vector<std::string>{"0", "007", "5", "5", "99999999999"};
  Capture c = Scan(host, ScanOptions{});
  EXPECT_EQ(Pids(c), (std::vector<std::int64_t>{5, 5}));
  EXPECT_EQ(c.stats.listed, 5u);
  EXPECT_EQ(c.stats.skipped_names, 3u);
}

TEST(FrameScanner, AFailedListingIsReportedWithNoRecords) {
  TestHost host;
  SmallTree(host);
  host.list_err = EMFILE;
  Capture c = Scan(host, ScanOptions{});
  EXPECT_TRUE(c.records.empty());
  EXPECT_EQ(c.stats.list_err, EMFILE);
  EXPECT_EQ(c.begins, 1);
  EXPECT_GE(c.stats.scan_end_mono_ns, c.stats.scan_start_mono_ns);
}

TEST(FrameScanner, ACallbackThatFailsStopsTheScan) {
  TestHost host;
  SmallTree(host);
  int calls = 0;
  FrameCallbacks cb;
  cb.record = [&calls](v1::ProcessRecord&&) { return ++calls < 2; };
  ScanStats s = ScanFrame(host, ScanOptions{}, FakePidNs, cb);
  EXPECT_EQ(calls, 2);
  EXPECT_TRUE(s.sink_failed);
  EXPECT_EQ(host.ReadsOf(11, ProcFile::kStat), 0);
}

}  // namespace
}  // namespace proctape
