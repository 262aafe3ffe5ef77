// SPDX-License-Identifier: Apache-2.0
// One frame's scan (capture/frame_scanner.h): the listing, the stat pass of
// a subtree, the bounds (max_processes, max_bytes) and the order records are
// handed over in. The reads of one process, and the threads that do them in
// parallel, are in scan_workers.cc.
#include "capture/frame_scanner.h"

#include <algorithm>
#include <cerrno>
#include <exception>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "capture/scan_workers.h"
#include "core/proc_parse.h"

namespace proctape {
namespace {

using scan::Batch;
using scan::Item;
using scan::ReadRecord;
using scan::WorkerPool;

class Scanner {
 public:
  Scanner(Evidence& evidence, const ScanOptions& options, const PidNamespaceFn& pid_ns,
          const FrameCallbacks& callbacks, std::vector<ScanWorker>* workers,
          const ParallelScanOptions& parallel)
      : ev_(evidence),
        o_(options),
        pid_ns_(pid_ns),
        cb_(callbacks),
        workers_(workers),
        parallel_(parallel) {}

  ScanStats Run() {
    stats_.scan_start_mono_ns = start_ns_ = ev_.NowNs();
    if (cb_.begin) cb_.begin(stats_.scan_start_mono_ns);
    if (o_.root_pid) {
      ScanSubtree(*o_.root_pid);
    } else {
      ScanHost();
    }
    stats_.scan_end_mono_ns = ev_.NowNs();
    return std::move(stats_);
  }

 private:
  ReadResult Read(std::int64_t pid, ProcFile file, std::uint64_t bound) {
    ReadResult r = ev_.ReadFile(pid, file, bound);
    stats_.bytes_read += r.data.size();
    return r;
  }

  // The listed names that are canonical pids, in listing order (duplicates
  // kept: they are what the listing said). False when the listing failed.
  bool List(std::uint64_t bound, std::vector<std::int64_t>* pids, bool* truncated) {
    ListResult list = ev_.ListPids(bound);
    if (!list.ok()) {
      stats_.list_err = list.err;
      return false;
    }
    stats_.listed = list.names.size();
    *truncated = list.truncated;
    pids->reserve(list.names.size());
    for (std::string_view name : list.names) {
      std::optional<std::uint64_t> pid = ParseCanonicalDecimal(name, kMaxPid);
      if (!pid || *pid == 0) {
        ++stats_.skipped_names;
        continue;
      }
      pids->push_back(static_cast<std::int64_t>(*pid));
    }
    return true;
  }

  // Do `reserved` + 1 more processes of worst case `worst` each fit the byte
  // budget? With reserved = 0: does one more record fit?
  bool Fits(std::uint64_t worst, std::uint64_t reserved = 0) const {
    if (stats_.bytes_read > o_.max_bytes) return false;
    if (worst == 0) return true;
    return reserved < (o_.max_bytes - stats_.bytes_read) / worst;
  }

  // Hands one record over; false when the callback refused it.
  bool Emit(v1::ProcessRecord&& rec, std::uint64_t bytes) {
    stats_.bytes_read += bytes;
    ++stats_.processes;
    if (!cb_.record(std::move(rec))) {
      stats_.sink_failed = true;
      return false;
    }
    return true;
  }

  // Records every item in order, within max_processes and max_bytes (`worst`
  // per item). True when all were recorded; otherwise the cut reason is set or
  // the callback failed.
  bool RecordAll(std::vector<Item>& items, std::uint64_t worst) {
    if (workers_ != nullptr && !workers_->empty() && !items.empty()) {
      WorkerPool pool(o_, items);
      const std::size_t started = pool.Start(*workers_);
      if (started > 0) return RecordParallel(pool, started, items, worst);
    }
    for (Item& item : items) {
      if (stats_.processes >= o_.max_processes) {
        stats_.cut_reason = kCutMaxProcesses;
        return false;
      }
      if (!Fits(worst)) {
        stats_.cut_reason = kCutMaxBytes;
        return false;
      }
      std::uint64_t bytes = 0;
      v1::ProcessRecord rec = ReadRecord(ev_, pid_ns_, o_, item.pid, item.stat, &bytes);
      if (!Emit(std::move(rec), bytes)) return false;
    }
    return true;
  }

  // RecordAll with the reads done by the pool's `threads` threads.
  bool RecordParallel(WorkerPool& pool, std::size_t threads, std::vector<Item>& items,
                      std::uint64_t worst) {
    const std::size_t batch_size = std::max<std::size_t>(1, parallel_.batch);
    const std::size_t window =
        parallel_.batches_in_flight > 0 ? parallel_.batches_in_flight : 2 * threads;
    // Items past max_processes are never read (processes == index here).
    const std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(items.size(), o_.max_processes));
    std::size_t next = 0;           // first item not dispatched
    std::uint64_t outstanding = 0;  // dispatched, not handed over
    std::deque<std::unique_ptr<Batch>> in_flight;
    // However this returns (a cut, a failed callback, an exception), the
    // workers are stopped and joined before the batches they write are freed.
    struct StopPool {
      WorkerPool& pool;
      ~StopPool() { pool.Stop(); }
    } stop_pool{pool};
    for (;;) {
      // Dispatch what surely fits, up to the window.
      while (in_flight.size() < window && next < n) {
        const std::size_t first = next;
        while (next < n && next - first < batch_size && Fits(worst, outstanding + (next - first))) {
          ++next;
        }
        if (next == first) break;  // undecidable until the batches before are in
        auto b = std::make_unique<Batch>();
        b->first = first;
        b->count = next - first;
        outstanding += b->count;
        pool.Submit(b.get());
        in_flight.push_back(std::move(b));
      }
      if (in_flight.empty()) break;
      Batch& b = *in_flight.front();
      pool.WaitDone(&b);
      if (b.error) std::rethrow_exception(b.error);
      for (std::size_t i = 0; i < b.records.size(); ++i) {
        --outstanding;
        if (!Emit(std::move(b.records[i]), b.bytes[i])) return false;  // the pool stops
      }
      in_flight.pop_front();
    }
    // Nothing in flight: stats_ is exact, as in the sequential scan.
    if (next < n) {
      stats_.cut_reason = kCutMaxBytes;
      return false;
    }
    if (n < items.size()) {
      stats_.cut_reason = kCutMaxProcesses;
      return false;
    }
    return true;
  }

  void ScanHost() {
    std::vector<std::int64_t> pids;
    bool truncated = false;
    if (!List(o_.max_processes, &pids, &truncated)) return;
    std::vector<Item> items(pids.size());
    for (std::size_t i = 0; i < pids.size(); ++i) items[i].pid = pids[i];
    if (!RecordAll(items, o_.WorstCaseProcessBytes())) return;
    if (truncated) stats_.cut_reason = kCutMaxProcesses;
  }

  // Root mode through FrameCallbacks::children. False when the kernel has
  // no children files: nothing was handed over and stats_ is as it was.
  bool WalkSubtree(std::int64_t root) {
    struct Found {
      std::int64_t pid;
      StoredRead stat;
    };
    std::vector<Found> found;
    std::unordered_set<std::int64_t> seen{root};
    std::deque<std::pair<std::int64_t, std::int64_t>> queue{{root, 0}};  // pid, parent
    std::vector<std::int64_t> children;
    while (!queue.empty()) {
      const auto [pid, parent] = queue.front();
      queue.pop_front();
      if (!Fits(o_.stat_bytes)) {
        stats_.cut_reason = kCutMaxBytes;
        break;
      }
      StoredRead stat(Read(pid, ProcFile::kStat, o_.stat_bytes));
      if (pid == root) {
        // As in the stat pass, the root is recorded whatever its stat says,
        // unless it is gone.
        stats_.root_found = stat.ok() || (stat.err != ENOENT && stat.err != ESRCH);
        if (!stats_.root_found) break;
      } else {
        if (!stat.ok()) continue;  // it ended since its parent's list was read
        StatViewParse parsed = ParseStatView(stat.data);
        if (!parsed.ok() || parsed.fields.pid != pid || parsed.fields.ppid != parent) continue;
      }
      children.clear();
      bool truncated = false;
      const std::uint64_t room = o_.max_entries > seen.size() ? o_.max_entries - seen.size() : 0;
      const int err = cb_.children(pid, room, &children, &truncated);
      if (err == ENOTSUP) {
        const std::uint64_t read = stats_.bytes_read;  // the root's stat was read
        stats_ = ScanStats{};
        stats_.scan_start_mono_ns = start_ns_;
        stats_.bytes_read = read;
        return false;
      }
      found.push_back(Found{pid, std::move(stat)});
      for (std::int64_t child : children) {
        if (seen.insert(child).second) queue.emplace_back(child, pid);
      }
      if (truncated) stats_.cut_reason = kCutMaxEntries;
    }
    stats_.walked = true;
    // Pid order: the order the stat pass, like a listing of /proc, gives.
    std::sort(found.begin(), found.end(),
              [](const Found& a, const Found& b) { return a.pid < b.pid; });
    std::vector<Item> items;
    items.reserve(found.size());
    for (Found& f : found) items.push_back(Item{f.pid, &f.stat});
    RecordAll(items, o_.WorstCaseProcessBytes() - o_.stat_bytes);
    return true;
  }

  void ScanSubtree(std::int64_t root) {
    if (cb_.children && WalkSubtree(root)) return;
    std::vector<std::int64_t> pids;
    bool truncated = false;
    if (!List(o_.max_entries, &pids, &truncated)) return;
    // Pass 1: every stat, kept for reuse (copied: a read's view lasts only
    // until the next call); parents from the parsable ones.
    std::vector<StoredRead> stats;
    stats.reserve(pids.size());
    std::unordered_map<std::int64_t, std::vector<std::int64_t>> children;
    for (std::int64_t pid : pids) {
      if (!Fits(o_.stat_bytes)) {
        stats_.cut_reason = kCutMaxBytes;
        break;
      }
      stats.emplace_back(Read(pid, ProcFile::kStat, o_.stat_bytes));
      if (pid == root) stats_.root_found = true;
      if (!stats.back().ok()) continue;
      StatViewParse parsed = ParseStatView(stats.back().data);
      // The directory name is the pid; a stat naming another pid is not
      // trusted for the tree (it is still recorded if the entry is included).
      if (!parsed.ok() || parsed.fields.pid != pid || parsed.fields.ppid == pid) continue;
      children[parsed.fields.ppid].push_back(pid);
    }
    if (stats_.cut_reason.empty() && truncated) stats_.cut_reason = kCutMaxEntries;
    // The subtree, breadth first from the root; `visited` stops any cycle.
    std::unordered_set<std::int64_t> subtree;
    std::deque<std::int64_t> queue;
    if (stats_.root_found) {
      subtree.insert(root);
      queue.push_back(root);
    }
    while (!queue.empty()) {
      std::int64_t parent = queue.front();
      queue.pop_front();
      auto it = children.find(parent);
      if (it == children.end()) continue;
      for (std::int64_t child : it->second) {
        if (subtree.insert(child).second) queue.push_back(child);
      }
    }
    children.clear();
    // Pass 2: full records of the subtree, in listing order.
    std::vector<Item> items;
    for (std::size_t i = 0; i < stats.size(); ++i) {
      if (subtree.count(pids[i]) != 0) items.push_back(Item{pids[i], &stats[i]});
    }
    RecordAll(items, o_.WorstCaseProcessBytes() - o_.stat_bytes);
  }

  Evidence& ev_;
  const ScanOptions& o_;
  const PidNamespaceFn& pid_ns_;
  const FrameCallbacks& cb_;
  std::vector<ScanWorker>* workers_;  // null or empty: sequential
  const ParallelScanOptions& parallel_;
  ScanStats stats_;
  std::int64_t start_ns_ = 0;
};

}  // namespace

ScanStats ScanFrame(Evidence& evidence, const ScanOptions& options, const PidNamespaceFn& pid_ns,
                    const FrameCallbacks& callbacks) {
  return Scanner(evidence, options, pid_ns, callbacks, nullptr, ParallelScanOptions{}).Run();
}

ScanStats ScanFrameParallel(Evidence& evidence, const ScanOptions& options,
                            const PidNamespaceFn& pid_ns, std::vector<ScanWorker>& workers,
                            const FrameCallbacks& callbacks, const ParallelScanOptions& parallel) {
  return Scanner(evidence, options, pid_ns, callbacks, &workers, parallel).Run();
}

}  // namespace proctape
