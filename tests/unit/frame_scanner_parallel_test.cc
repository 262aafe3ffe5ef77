// SPDX-License-Identifier: Apache-2.0
// The frame scanner (`docs/format.md` section 3), the parallel scan:
// ScanFrame's records, in ScanFrame's order, byte for byte, with the same cuts,
// the same root mode, a failing callback stopping it promptly, workers reused
// across frames and a worker's exception reaching the caller.
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
#include "tests/unit/frame_scanner_fixture.h"

namespace proctape {
namespace {

using namespace std::string_literals;  // "...\0..."s keeps embedded NULs
using namespace test;                  // TestHost, Scan, Capture, SmallTree

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
    std::vector<std::string> env = {"HOME=/root",
                                    "V=" + std::string(static_cast<std::size_t>(i * 53 % 700), 'v'),
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
      workers.push_back(ScanWorker{std::move(host),
                                   with_pid_ns ? PidNamespaceFn(VariedPidNs) : PidNamespaceFn{}});
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
                     ParallelScanOptions parallel = {},
                     const PidNamespaceFn& pid_ns = VariedPidNs) {
  Capture c;
  c.stats = ScanFrameParallel(evidence, options, pid_ns, w.workers, CollectInto(c), parallel);
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
    for (std::size_t i = 0; i < pids.size(); ++i)
      EXPECT_EQ(pids[i], 1000 + static_cast<std::int64_t>(i));
    // At most the window (4 batches of 16) was read beyond the failing record.
    int stats_read = 0;
    for (std::int64_t pid = 1000; pid < 1000 + kN; ++pid)
      stats_read += w.ReadsOf(pid, ProcFile::kStat);
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
  EXPECT_THROW(
      ScanFrameParallel(main, ScanOptions{}, VariedPidNs, workers, cb, ParallelScanOptions{10, 0}),
      std::runtime_error);
  // Everything before the batch holding 1100 was handed over, in order.
  ASSERT_EQ(pids.size(), 100u);
  EXPECT_EQ(pids.back(), 1099);
}

}  // namespace
}  // namespace proctape
