// The frame scanner (issue 3, section 2) on the in-memory /proc: "Each
// process: the raw bytes of stat, cmdline, environ, status; exe identity or
// errno; pid-namespace inode; cgroup. A failed read is evidence (its errno is
// recorded), never an abort: a process that vanishes mid-scan, a permission
// error, a zombie's empty cmdline are all kept as observed."
#include "capture/frame_scanner.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/memory_evidence.h"
#include "core/proc_parse.h"

namespace proctape {
namespace {

using namespace std::string_literals;  // "...\0..."s keeps embedded NULs

const Identity kSleepExe{0, 0x803, 1311};
const Identity kShExe{0, 0x803, 1200};

// MemoryEvidence that counts reads per (pid, file) and can change the host
// right after a read (a process vanishing mid-scan).
class TestHost : public MemoryEvidence {
 public:
  ReadResult ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) override {
    ReadResult r = MemoryEvidence::ReadFile(pid, file, bound);
    ++reads[{pid, file}];
    if (after_read) after_read(pid, file);
    return r;
  }
  int ReadsOf(std::int64_t pid, ProcFile file) const {
    auto it = reads.find({pid, file});
    return it == reads.end() ? 0 : it->second;
  }
  std::map<std::pair<std::int64_t, ProcFile>, int> reads;
  std::function<void(std::int64_t, ProcFile)> after_read;
};

// Identity of /proc/PID/ns/pid in the tests: ino = 4026531836 for all, but
// pid 666 has gone (ENOENT).
Identity FakePidNs(std::int64_t pid) {
  if (pid == 666) return Identity{ENOENT, 0, 0};
  return Identity{0, 4, 4026531836};
}

struct Capture {
  std::vector<v1::ProcessRecord> records;
  ScanStats stats;
  std::int64_t begin_ns = -1;
  int begins = 0;
  int records_before_begin = 0;
};

Capture Scan(Evidence& evidence, const ScanOptions& options,
             const PidNamespaceFn& pid_ns = FakePidNs) {
  Capture c;
  FrameCallbacks cb;
  cb.begin = [&c](std::int64_t t) {
    c.begin_ns = t;
    ++c.begins;
  };
  cb.record = [&c](v1::ProcessRecord&& r) {
    if (c.begins == 0) ++c.records_before_begin;
    c.records.push_back(std::move(r));
    return true;
  };
  c.stats = ScanFrame(evidence, options, pid_ns, cb);
  return c;
}

std::vector<std::int64_t> Pids(const Capture& c) {
  std::vector<std::int64_t> out;
  for (const auto& r : c.records) out.push_back(r.pid());
  return out;
}

std::uint64_t DataBytes(const v1::ProcessRecord& r) {
  return r.stat().data().size() + r.cmdline().data().size() + r.environ().data().size() +
         r.status().data().size() + r.cgroup().data().size();
}

// A small host: 1 init, 10 shell with 11 and 12, 12 has 13; 20 with 21.
void SmallTree(MemoryEvidence& host) {
  host.AddProcess(1, 0, 10, "systemd", {"/sbin/init"}, {"HOME=/"}, kShExe);
  host.AddProcess(10, 1, 100, "sh", {"/bin/sh"}, {"HOME=/root"}, kShExe);
  host.AddProcess(11, 10, 110, "sleep", {"/bin/sleep", "11"}, {"A=1"}, kSleepExe);
  host.AddProcess(12, 10, 120, "sh", {"/bin/sh", "-c", "x"}, {"B=2"}, kShExe);
  host.AddProcess(13, 12, 130, "sleep", {"/bin/sleep", "13"}, {"C=3"}, kSleepExe);
  host.AddProcess(20, 1, 200, "cron", {"/usr/sbin/cron"}, {"D=4"}, kShExe);
  host.AddProcess(21, 20, 210, "sleep", {"/bin/sleep", "21"}, {"E=5"}, kSleepExe);
}

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
  EXPECT_EQ(r.cmdline().data(), "/bin/sleep\0" "120\0"s);
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

TEST(FrameScanner, MaxProcessesCutsTheFrameAfterThatManyRecords) {
  TestHost host;
  for (std::int64_t pid = 100; pid < 110; ++pid) {
    host.AddProcess(pid, 1, 1, "p", {"/p"}, {}, kShExe);
  }
  ScanOptions options;
  options.max_processes = 4;
  Capture c = Scan(host, options);
  EXPECT_EQ(Pids(c), (std::vector<std::int64_t>{100, 101, 102, 103}));
  EXPECT_EQ(c.stats.processes, 4u);
  EXPECT_EQ(c.stats.cut_reason, "max-processes");
  // Never read beyond the bound.
  EXPECT_EQ(host.ReadsOf(104, ProcFile::kStat), 0);

  // Exactly at the bound is whole, not cut.
  options.max_processes = 10;
  Capture whole = Scan(host, options);
  EXPECT_EQ(whole.records.size(), 10u);
  EXPECT_EQ(whole.stats.cut_reason, "");
}

TEST(FrameScanner, MaxBytesNeverReadsMoreAndKeepsRecordsWhole) {
  TestHost host;
  for (std::int64_t pid = 100; pid < 200; ++pid) {
    host.AddProcess(pid, 1, 1, "p", {"/bin/p", std::string(50, 'x')}, {"K=" + std::string(40, 'v')},
                    kShExe);
    host.SetFile(pid, ProcFile::kCgroup, "0::/\n");
  }
  ScanOptions options;
  options.stat_bytes = options.cmdline_bytes = options.environ_bytes = options.status_bytes =
      options.cgroup_bytes = 100;
  options.max_bytes = 2000;  // worst case per process: 500
  Capture c = Scan(host, options);
  EXPECT_EQ(c.stats.cut_reason, "max-bytes");
  EXPECT_LE(c.stats.bytes_read, options.max_bytes);
  // Another process would have fitted only if its worst case did.
  EXPECT_GT(c.stats.bytes_read + options.WorstCaseProcessBytes(), options.max_bytes);
  ASSERT_GT(c.records.size(), 0u);
  ASSERT_LT(c.records.size(), 100u);
  std::uint64_t sum = 0;
  for (const auto& r : c.records) {
    sum += DataBytes(r);
    EXPECT_TRUE(r.has_stat() && r.has_cmdline() && r.has_environ() && r.has_status() &&
                r.has_cgroup() && r.has_exe());
  }
  EXPECT_EQ(sum, c.stats.bytes_read);
  // Nothing of the first process not recorded was read.
  EXPECT_EQ(host.ReadsOf(100 + static_cast<std::int64_t>(c.records.size()), ProcFile::kStat), 0);

  // A budget that fits them all cuts nothing.
  options.max_bytes = 1u << 20;
  Capture whole = Scan(host, options);
  EXPECT_EQ(whole.records.size(), 100u);
  EXPECT_EQ(whole.stats.cut_reason, "");
}

TEST(FrameScanner, RootModeRecordsOnlyTheSubtreeReusingTheStatPass) {
  TestHost host;
  SmallTree(host);
  ScanOptions options;
  options.root_pid = 10;
  Capture c = Scan(host, options);
  EXPECT_EQ(Pids(c), (std::vector<std::int64_t>{10, 11, 12, 13}));
  EXPECT_TRUE(c.stats.root_found);
  EXPECT_EQ(c.stats.cut_reason, "");
  // Every listed process's stat read once, never twice; nothing else outside.
  for (std::int64_t pid : {1, 10, 11, 12, 13, 20, 21}) {
    EXPECT_EQ(host.ReadsOf(pid, ProcFile::kStat), 1) << pid;
  }
  for (std::int64_t pid : {1, 20, 21}) {
    EXPECT_EQ(host.ReadsOf(pid, ProcFile::kCmdline), 0) << pid;
    EXPECT_EQ(host.ReadsOf(pid, ProcFile::kEnviron), 0) << pid;
  }
  EXPECT_EQ(c.records[3].stat().data(), MemoryEvidence::StatLine(13, "sleep", 'S', 12, 130));
  EXPECT_EQ(c.records[3].cmdline().data(), "/bin/sleep\0" "13\0"s);
  EXPECT_EQ(c.records[3].stat().bound(), 4096u);
  // The stat pass counts: every stat byte of the host was read.
  std::uint64_t stat_bytes = 0;
  for (std::int64_t pid : {1, 10, 11, 12, 13, 20, 21}) {
    stat_bytes += host.Find(pid)->files[ProcFile::kStat].data.size();
  }
  std::uint64_t record_bytes = 0;
  for (const auto& r : c.records) record_bytes += DataBytes(r) - r.stat().data().size();
  EXPECT_EQ(c.stats.bytes_read, stat_bytes + record_bytes);

  // A leaf as root: only itself.
  options.root_pid = 21;
  EXPECT_EQ(Pids(Scan(host, options)), (std::vector<std::int64_t>{21}));
}

TEST(FrameScanner, RootModeWithAnAbsentRootRecordsNothing) {
  TestHost host;
  SmallTree(host);
  ScanOptions options;
  options.root_pid = 99;
  Capture c = Scan(host, options);
  EXPECT_TRUE(c.records.empty());
  EXPECT_FALSE(c.stats.root_found);
  EXPECT_EQ(c.stats.cut_reason, "");
}

TEST(FrameScanner, RootModeSurvivesCyclesAndUnparsableStats) {
  TestHost host;
  SmallTree(host);
  // 30 and 31 name each other as parent: never reached, never looping.
  host.AddProcess(30, 31, 1, "c1", {"/c1"}, {}, kShExe);
  host.AddProcess(31, 30, 1, "c2", {"/c2"}, {}, kShExe);
  // A stat that names itself as parent, and one that does not parse: their
  // parent is unknown, so they are not in the subtree.
  host.AddProcess(14, 14, 1, "self", {"/s"}, {}, kShExe);
  host.AddProcess(15, 10, 1, "junk", {"/j"}, {}, kShExe);
  host.SetFile(15, ProcFile::kStat, "15 (junk");
  // The root's own stat failed: it is still recorded, as observed.
  host.SetFileError(12, ProcFile::kStat, EACCES);
  ScanOptions options;
  options.root_pid = 10;
  Capture c = Scan(host, options);
  // Without 12's stat nothing says 12 is a child of 10, so neither 12 nor its
  // child 13 is in 10's subtree.
  EXPECT_EQ(Pids(c), (std::vector<std::int64_t>{10, 11}));

  options.root_pid = 12;
  Capture root_unreadable = Scan(host, options);
  EXPECT_EQ(Pids(root_unreadable), (std::vector<std::int64_t>{12, 13}));
  EXPECT_EQ(root_unreadable.records[0].stat().err(), EACCES);

  options.root_pid = 30;
  EXPECT_EQ(Pids(Scan(host, options)), (std::vector<std::int64_t>{30, 31}));
}

TEST(FrameScanner, RootModeAppliesMaxProcessesAndMaxBytes) {
  TestHost host;
  SmallTree(host);
  ScanOptions options;
  options.root_pid = 10;
  options.max_processes = 2;
  Capture c = Scan(host, options);
  EXPECT_EQ(Pids(c), (std::vector<std::int64_t>{10, 11}));
  EXPECT_EQ(c.stats.cut_reason, "max-processes");

  options.max_processes = 65536;
  options.max_bytes = 100;  // not even the stat pass fits
  Capture bytes = Scan(host, options);
  EXPECT_TRUE(bytes.records.empty());
  EXPECT_EQ(bytes.stats.cut_reason, "max-bytes");
  EXPECT_LE(bytes.stats.bytes_read, 100u);
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

// ---- The parallel scan: ScanFrame's records, in ScanFrame's order. ----

// A host of `n` processes with every kind of record: hostile bytes, failed
// reads of each errno, zombies, truncated reads, environs of varied sizes (so
// the byte budget is crossed at many different points), children in a tree
// (for root mode), and a listing with junk names and a duplicate. Built the
// same way for every instance: each thread gets its own copy.
void BuildVariedHost(TestHost& host, std::int64_t n) {
  std::vector<std::string> listing;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t pid = 1000 + i;
    const std::int64_t ppid = i == 0 ? 1 : 1000 + (i - 1) / 3;  // a ternary tree under 1000
    std::vector<std::string> argv = {"/bin/p" + std::to_string(i % 7),
                                     std::string(static_cast<std::size_t>(i * 37 % 300), 'a')};
    std::vector<std::string> env = {"HOME=/root", "V=" + std::string(static_cast<std::size_t>(i * 53 % 700), 'v'),
                                    "PROCTAPE_TOKEN=" + std::to_string(i % 5)};
    host.AddProcess(pid, ppid, static_cast<std::uint64_t>(pid) * 10, "p) x\n" + std::to_string(i),
                    argv, env, i % 2 ? kShExe : kSleepExe, i % 11 == 0 ? 'Z' : 'S');
    host.SetFile(pid, ProcFile::kCgroup, "0::/job/" + std::to_string(i % 4) + "\n");
    if (i % 13 == 5) host.SetFileError(pid, ProcFile::kEnviron, EACCES);
    if (i % 17 == 6) host.SetFileError(pid, ProcFile::kStatus, ESRCH);
    if (i % 19 == 7) host.SetFile(pid, ProcFile::kCmdline, std::string(70000, 'c'));  // truncated
    if (i % 23 == 8) host.SetFile(pid, ProcFile::kStatus, "\xff\xfe\0Name:\t\n"s);
    listing.push_back(std::to_string(pid));
    if (i % 29 == 9) listing.push_back("0" + std::to_string(pid));  // not canonical: skipped
  }
  // Listed but gone (every read ENOENT), and a duplicate.
  listing.push_back("999999");
  listing.push_back("1003");
  host.listing = listing;
}

Identity VariedPidNs(std::int64_t pid) {
  if (pid % 31 == 0) return Identity{EACCES, 0, 0};
  return Identity{0, 4, static_cast<std::uint64_t>(4026531836 + pid % 3)};
}

// Per-worker hosts, each a copy built the same way, and the workers on them.
struct Workers {
  std::vector<TestHost*> hosts;
  std::vector<ScanWorker> workers;
  Workers(std::size_t count, std::int64_t n, bool with_pid_ns = true) {
    for (std::size_t i = 0; i < count; ++i) {
      auto host = std::make_unique<TestHost>();
      BuildVariedHost(*host, n);
      hosts.push_back(host.get());
      workers.push_back(ScanWorker{std::move(host), with_pid_ns ? PidNamespaceFn(VariedPidNs)
                                                                : PidNamespaceFn{}});
    }
  }
  int ReadsOf(std::int64_t pid, ProcFile file) const {
    int sum = 0;
    for (const TestHost* h : hosts) sum += h->ReadsOf(pid, file);
    return sum;
  }
};

// The reads of all worker hosts together, per (pid, file).
std::map<std::pair<std::int64_t, ProcFile>, int> MergedReads(const std::vector<TestHost*>& hosts) {
  std::map<std::pair<std::int64_t, ProcFile>, int> out;
  for (const TestHost* h : hosts) {
    for (const auto& [key, count] : h->reads) out[key] += count;
  }
  return out;
}

Capture ScanParallel(Evidence& evidence, const ScanOptions& options, Workers& w,
                     ParallelScanOptions parallel = {}, const PidNamespaceFn& pid_ns = VariedPidNs) {
  Capture c;
  FrameCallbacks cb;
  cb.begin = [&c](std::int64_t t) {
    c.begin_ns = t;
    ++c.begins;
  };
  cb.record = [&c](v1::ProcessRecord&& r) {
    if (c.begins == 0) ++c.records_before_begin;
    c.records.push_back(std::move(r));
    return true;
  };
  c.stats = ScanFrameParallel(evidence, options, pid_ns, w.workers, cb, parallel);
  return c;
}

// Byte-identical records in identical order, and the same counts and cut.
void ExpectSameFrame(const Capture& seq, const Capture& par, const std::string& what) {
  ASSERT_EQ(seq.records.size(), par.records.size()) << what;
  for (std::size_t i = 0; i < seq.records.size(); ++i) {
    ASSERT_EQ(seq.records[i].SerializeAsString(), par.records[i].SerializeAsString())
        << what << ": record " << i << " (pid " << seq.records[i].pid() << " vs "
        << par.records[i].pid() << ")";
  }
  EXPECT_EQ(seq.stats.processes, par.stats.processes) << what;
  EXPECT_EQ(seq.stats.bytes_read, par.stats.bytes_read) << what;
  EXPECT_EQ(seq.stats.cut_reason, par.stats.cut_reason) << what;
  EXPECT_EQ(seq.stats.listed, par.stats.listed) << what;
  EXPECT_EQ(seq.stats.skipped_names, par.stats.skipped_names) << what;
  EXPECT_EQ(seq.stats.root_found, par.stats.root_found) << what;
  EXPECT_EQ(seq.stats.sink_failed, par.stats.sink_failed) << what;
  EXPECT_EQ(par.begins, 1) << what;
  EXPECT_EQ(par.records_before_begin, 0) << what;
}

TEST(FrameScannerParallel, GivesTheSequentialRecordsByteForByteInListingOrder) {
  constexpr std::int64_t kN = 700;
  TestHost host;
  BuildVariedHost(host, kN);
  for (bool keep : {false, true}) {
    ScanOptions options;
    options.keep_environ = keep;
    options.kept_entries = {"PROCTAPE_TOKEN=3"};
    Capture seq = Scan(host, options, VariedPidNs);
    ASSERT_EQ(seq.records.size(), static_cast<std::size_t>(kN) + 2);  // + the gone + the duplicate
    ASSERT_EQ(seq.stats.cut_reason, "");
    for (std::size_t threads : {1, 2, 3, 4}) {
      for (std::size_t batch : {1, 7, 64, 1000}) {
        for (std::size_t in_flight : {0, 1, 3}) {
          Workers w(threads, kN);
          TestHost main;
          BuildVariedHost(main, kN);
          Capture par = ScanParallel(main, options, w, ParallelScanOptions{batch, in_flight});
          const std::string what = "keep " + std::to_string(keep) + " threads " +
                                   std::to_string(threads) + " batch " + std::to_string(batch) +
                                   " in flight " + std::to_string(in_flight);
          ExpectSameFrame(seq, par, what);
          // The calling thread listed and kept the clock; the workers read
          // every file, each process exactly once (the duplicate twice).
          EXPECT_TRUE(main.reads.empty()) << what;
          EXPECT_EQ(w.ReadsOf(1000, ProcFile::kStat), 1) << what;
          EXPECT_EQ(w.ReadsOf(1003, ProcFile::kEnviron), 2) << what;
          EXPECT_EQ(w.ReadsOf(1000 + kN - 1, ProcFile::kCgroup), 1) << what;
          EXPECT_EQ(par.begin_ns, par.stats.scan_start_mono_ns) << what;
        }
      }
    }
  }
}

TEST(FrameScannerParallel, WithoutWorkersItIsTheSequentialScan) {
  TestHost host;
  BuildVariedHost(host, 50);
  Capture seq = Scan(host, ScanOptions{}, VariedPidNs);
  Workers none(0, 50);
  TestHost main;
  BuildVariedHost(main, 50);
  Capture par = ScanParallel(main, ScanOptions{}, none);
  ExpectSameFrame(seq, par, "no workers");
  EXPECT_EQ(main.ReadsOf(1000, ProcFile::kStat), 1);
  // A worker without an evidence is not started either.
  std::vector<ScanWorker> empty(2);
  TestHost main2;
  BuildVariedHost(main2, 50);
  FrameCallbacks cb;
  std::vector<v1::ProcessRecord> got;
  cb.record = [&got](v1::ProcessRecord&& r) {
    got.push_back(std::move(r));
    return true;
  };
  ScanStats s = ScanFrameParallel(main2, ScanOptions{}, VariedPidNs, empty, cb);
  EXPECT_EQ(s.processes, seq.stats.processes);
  ASSERT_EQ(got.size(), seq.records.size());
  EXPECT_EQ(got.back().SerializeAsString(), seq.records.back().SerializeAsString());
}

TEST(FrameScannerParallel, MaxBytesCutsAtTheSameProcessAndNeverReadsMore) {
  constexpr std::int64_t kN = 300;
  TestHost host;
  BuildVariedHost(host, kN);
  ScanOptions options;
  options.stat_bytes = 400;
  options.cmdline_bytes = 400;
  options.environ_bytes = 800;
  options.status_bytes = 400;
  options.cgroup_bytes = 100;  // worst case 2100 per process
  // Budgets from one process to about all of them, at uneven steps so the cut
  // falls inside batches, at their edges, and on a process of every size.
  for (std::uint64_t max_bytes = 2100; max_bytes < 400'000; max_bytes = max_bytes * 5 / 4 + 97) {
    options.max_bytes = max_bytes;
    TestHost seq_host;
    BuildVariedHost(seq_host, kN);
    Capture seq = Scan(seq_host, options, VariedPidNs);
    for (std::size_t threads : {2, 3}) {
      for (std::size_t batch : {1, 5, 64}) {
        Workers w(threads, kN);
        TestHost main;
        BuildVariedHost(main, kN);
        Capture par = ScanParallel(main, options, w, ParallelScanOptions{batch, 0});
        const std::string what = "max_bytes " + std::to_string(max_bytes) + " threads " +
                                 std::to_string(threads) + " batch " + std::to_string(batch);
        ExpectSameFrame(seq, par, what);
        EXPECT_LE(par.stats.bytes_read, max_bytes) << what;
        // Exactly the reads of the sequential scan, per process and file:
        // nothing of the first process not recorded (nor of a later one).
        EXPECT_EQ(MergedReads(w.hosts), seq_host.reads) << what;
      }
    }
  }
}

TEST(FrameScannerParallel, MaxProcessesCutsTheSame) {
  constexpr std::int64_t kN = 200;
  TestHost host;
  BuildVariedHost(host, kN);
  for (std::uint64_t max : {1, 2, 63, 64, 65, 150, 199, 200, 201, 202, 500}) {
    ScanOptions options;
    options.max_processes = max;
    TestHost seq_host;
    BuildVariedHost(seq_host, kN);
    Capture seq = Scan(seq_host, options, VariedPidNs);
    Workers w(2, kN);
    TestHost main;
    BuildVariedHost(main, kN);
    Capture par = ScanParallel(main, options, w, ParallelScanOptions{64, 0});
    ExpectSameFrame(seq, par, "max_processes " + std::to_string(max));
    EXPECT_EQ(MergedReads(w.hosts), seq_host.reads) << max;
  }
}

TEST(FrameScannerParallel, RootModeGivesTheSequentialSubtree) {
  constexpr std::int64_t kN = 400;
  for (std::int64_t root : {1000, 1001, 1005, 1100, 1399, 5}) {
    for (std::uint64_t max_processes : {std::uint64_t{65536}, std::uint64_t{20}}) {
      for (std::uint64_t max_bytes : {std::uint64_t{1} << 30, std::uint64_t{2'000'000}}) {
        ScanOptions options;
        options.root_pid = root;
        options.max_processes = max_processes;
        options.max_bytes = max_bytes;
        TestHost seq_host;
        BuildVariedHost(seq_host, kN);
        Capture seq = Scan(seq_host, options, VariedPidNs);
        Workers w(2, kN);
        TestHost main;
        BuildVariedHost(main, kN);
        Capture par = ScanParallel(main, options, w, ParallelScanOptions{8, 0});
        const std::string what = "root " + std::to_string(root) + " max_processes " +
                                 std::to_string(max_processes) + " max_bytes " +
                                 std::to_string(max_bytes);
        ExpectSameFrame(seq, par, what);
        // The stat pass is the calling thread's; the workers reuse its stats.
        EXPECT_EQ(main.ReadsOf(1000, ProcFile::kStat), 1) << what;
        EXPECT_EQ(w.ReadsOf(root, ProcFile::kStat), 0) << what;
      }
    }
  }
}

TEST(FrameScannerParallel, ACallbackThatFailsStopsTheScanPromptly) {
  constexpr std::int64_t kN = 2000;
  for (int fail_at : {1, 2, 64, 65, 1000}) {
    Workers w(2, kN);
    TestHost main;
    BuildVariedHost(main, kN);
    int calls = 0;
    std::vector<std::int64_t> pids;
    FrameCallbacks cb;
    cb.record = [&](v1::ProcessRecord&& r) {
      pids.push_back(r.pid());
      return ++calls < fail_at;
    };
    const ParallelScanOptions parallel{16, 4};
    ScanStats s = ScanFrameParallel(main, ScanOptions{}, VariedPidNs, w.workers, cb, parallel);
    EXPECT_EQ(calls, fail_at);
    EXPECT_TRUE(s.sink_failed);
    EXPECT_EQ(s.processes, static_cast<std::uint64_t>(fail_at));
    ASSERT_EQ(pids.size(), static_cast<std::size_t>(fail_at));
    for (std::size_t i = 0; i < pids.size(); ++i) EXPECT_EQ(pids[i], 1000 + static_cast<std::int64_t>(i));
    // At most the window (4 batches of 16) was read beyond the failing record.
    int stats_read = 0;
    for (std::int64_t pid = 1000; pid < 1000 + kN; ++pid) stats_read += w.ReadsOf(pid, ProcFile::kStat);
    EXPECT_LE(stats_read, fail_at + 4 * 16) << fail_at;
  }
}

TEST(FrameScannerParallel, WorkersAreReusedAcrossFrames) {
  constexpr std::int64_t kN = 300;
  TestHost host;
  BuildVariedHost(host, kN);
  Capture seq = Scan(host, ScanOptions{}, VariedPidNs);
  Workers w(2, kN);
  for (int frame = 0; frame < 3; ++frame) {
    TestHost main;
    BuildVariedHost(main, kN);
    ExpectSameFrame(seq, ScanParallel(main, ScanOptions{}, w), "frame " + std::to_string(frame));
  }
  EXPECT_EQ(w.ReadsOf(1000, ProcFile::kStat), 3);
}

TEST(FrameScannerParallel, AnExceptionInAWorkerReachesTheCaller) {
  // A worker's Evidence that throws (as an allocation failure would): the
  // caller gets the exception, the threads are joined, nothing is left
  // running.
  class Throwing : public TestHost {
   public:
    ReadResult ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) override {
      if (pid == 1100) throw std::runtime_error("no memory");
      return TestHost::ReadFile(pid, file, bound);
    }
  };
  std::vector<ScanWorker> workers;
  for (int i = 0; i < 2; ++i) {
    auto h = std::make_unique<Throwing>();
    BuildVariedHost(*h, 300);
    workers.push_back(ScanWorker{std::move(h), VariedPidNs});
  }
  TestHost main;
  BuildVariedHost(main, 300);
  std::vector<std::int64_t> pids;
  FrameCallbacks cb;
  cb.record = [&pids](v1::ProcessRecord&& r) {
    pids.push_back(r.pid());
    return true;
  };
  EXPECT_THROW(ScanFrameParallel(main, ScanOptions{}, VariedPidNs, workers, cb,
                                 ParallelScanOptions{10, 0}),
               std::runtime_error);
  // Everything before the batch holding 1100 was handed over, in order.
  ASSERT_EQ(pids.size(), 100u);
  EXPECT_EQ(pids.back(), 1099);
}

}  // namespace
}  // namespace proctape
