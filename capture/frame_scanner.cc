#include "capture/frame_scanner.h"

#include <deque>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "capture/redact.h"
#include "core/proc_parse.h"

namespace proctape {
namespace {

void Fill(v1::FileRead* out, ReadResult&& read, std::uint64_t bound) {
  out->set_err(read.err);
  out->set_truncated(read.truncated);
  out->set_bound(bound);
  out->set_data(std::move(read.data));
}

void Fill(v1::FileIdentity* out, const Identity& identity) {
  out->set_err(identity.err);
  out->set_dev(identity.dev);
  out->set_ino(identity.ino);
}

class Scanner {
 public:
  Scanner(Evidence& evidence, const ScanOptions& options, const PidNamespaceFn& pid_ns,
          const FrameCallbacks& callbacks)
      : ev_(evidence), o_(options), pid_ns_(pid_ns), cb_(callbacks) {}

  ScanStats Run() {
    stats_.scan_start_mono_ns = ev_.NowNs();
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
    for (const std::string& name : list.names) {
      std::optional<std::uint64_t> pid = ParseCanonicalDecimal(name, kMaxPid);
      if (!pid || *pid == 0) {
        ++stats_.skipped_names;
        continue;
      }
      pids->push_back(static_cast<std::int64_t>(*pid));
    }
    return true;
  }

  // Does one more record fit the byte budget? `worst` is its worst case.
  bool Fits(std::uint64_t worst) const {
    return stats_.bytes_read <= o_.max_bytes && worst <= o_.max_bytes - stats_.bytes_read;
  }

  // Reads everything but stat (given) and hands the record over.
  bool Emit(std::int64_t pid, ReadResult&& stat) {
    v1::ProcessRecord rec;
    rec.set_pid(pid);
    Fill(rec.mutable_stat(), std::move(stat), o_.stat_bytes);
    Fill(rec.mutable_cmdline(), Read(pid, ProcFile::kCmdline, o_.cmdline_bytes), o_.cmdline_bytes);
    ReadResult environ = Read(pid, ProcFile::kEnviron, o_.environ_bytes);
    if (!o_.keep_environ && environ.ok()) {
      environ.data = RedactEnviron(environ.data, o_.kept_entries);
    }
    Fill(rec.mutable_environ(), std::move(environ), o_.environ_bytes);
    rec.mutable_environ()->set_redacted(!o_.keep_environ);
    Fill(rec.mutable_status(), Read(pid, ProcFile::kStatus, o_.status_bytes), o_.status_bytes);
    Fill(rec.mutable_cgroup(), Read(pid, ProcFile::kCgroup, o_.cgroup_bytes), o_.cgroup_bytes);
    Fill(rec.mutable_exe(), ev_.ExeIdentity(pid));
    if (pid_ns_) Fill(rec.mutable_pid_ns(), pid_ns_(pid));
    ++stats_.processes;
    if (!cb_.record(std::move(rec))) {
      stats_.sink_failed = true;
      return false;
    }
    return true;
  }

  void ScanHost() {
    std::vector<std::int64_t> pids;
    bool truncated = false;
    if (!List(o_.max_processes, &pids, &truncated)) return;
    const std::uint64_t worst = o_.WorstCaseProcessBytes();
    for (std::int64_t pid : pids) {
      if (stats_.processes >= o_.max_processes) {
        stats_.cut_reason = kCutMaxProcesses;
        return;
      }
      if (!Fits(worst)) {
        stats_.cut_reason = kCutMaxBytes;
        return;
      }
      if (!Emit(pid, Read(pid, ProcFile::kStat, o_.stat_bytes))) return;
    }
    if (truncated) stats_.cut_reason = kCutMaxProcesses;
  }

  void ScanSubtree(std::int64_t root) {
    std::vector<std::int64_t> pids;
    bool truncated = false;
    if (!List(o_.max_entries, &pids, &truncated)) return;
    // Pass 1: every stat, kept for reuse; parents from the parsable ones.
    std::vector<ReadResult> stats;
    stats.reserve(pids.size());
    std::unordered_map<std::int64_t, std::vector<std::int64_t>> children;
    for (std::int64_t pid : pids) {
      if (!Fits(o_.stat_bytes)) {
        stats_.cut_reason = kCutMaxBytes;
        break;
      }
      stats.push_back(Read(pid, ProcFile::kStat, o_.stat_bytes));
      if (pid == root) stats_.root_found = true;
      if (!stats.back().ok()) continue;
      StatParse parsed = ParseStat(stats.back().data);
      // The directory name is the pid; a stat naming another pid is not
      // trusted for the tree (it is still recorded if the entry is included).
      if (!parsed.ok() || parsed.fields->pid != pid || parsed.fields->ppid == pid) continue;
      children[parsed.fields->ppid].push_back(pid);
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
    const std::uint64_t worst = o_.WorstCaseProcessBytes() - o_.stat_bytes;
    for (std::size_t i = 0; i < stats.size(); ++i) {
      if (subtree.count(pids[i]) == 0) continue;
      if (stats_.processes >= o_.max_processes) {
        stats_.cut_reason = kCutMaxProcesses;
        return;
      }
      if (!Fits(worst)) {
        stats_.cut_reason = kCutMaxBytes;
        return;
      }
      if (!Emit(pids[i], std::move(stats[i]))) return;
    }
  }

  Evidence& ev_;
  const ScanOptions& o_;
  const PidNamespaceFn& pid_ns_;
  const FrameCallbacks& cb_;
  ScanStats stats_;
};

}  // namespace

ScanStats ScanFrame(Evidence& evidence, const ScanOptions& options, const PidNamespaceFn& pid_ns,
                    const FrameCallbacks& callbacks) {
  return Scanner(evidence, options, pid_ns, callbacks).Run();
}

}  // namespace proctape
