// SPDX-License-Identifier: Apache-2.0
#include "core/memory_evidence.h"

#include <algorithm>
#include <cerrno>
#include <cstddef>

#include "core/proc_parse.h"

namespace proctape {

std::string MemoryEvidence::StatLine(std::int64_t pid, const std::string& comm, char state,
                                     std::int64_t ppid, std::uint64_t start_ticks) {
  // Fields 5.. as a sleeping process shows them; field 22 is the start time.
  std::string s = std::to_string(pid) + " (" + comm + ") " + state + " " + std::to_string(ppid) +
                  " " + std::to_string(ppid) + " " + std::to_string(ppid) +
                  " 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 " + std::to_string(start_ticks) +
                  " 8523776 230 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 "
                  "0 0 0 0 0\n";
  return s;
}

MemoryEvidence::Process& MemoryEvidence::AddProcess(std::int64_t pid, std::int64_t ppid,
                                                    std::uint64_t start_ticks,
                                                    const std::string& comm,
                                                    const std::vector<std::string>& argv,
                                                    const std::vector<std::string>& environ,
                                                    Identity exe, char state) {
  Process& p = Slot(pid);
  p.files.clear();
  p.files[ProcFile::kStat] = StoredRead{0, StatLine(pid, comm, state, ppid, start_ticks), false};
  p.files[ProcFile::kCmdline] = StoredRead{0, JoinNul(argv), false};
  p.files[ProcFile::kEnviron] = StoredRead{0, JoinNul(environ), false};
  p.files[ProcFile::kStatus] =
      StoredRead{0,
                 "Name:\t" + comm + "\nState:\t" + state + "\nPid:\t" + std::to_string(pid) +
                     "\nPPid:\t" + std::to_string(ppid) + "\nNSpid:\t" + std::to_string(pid) + "\n",
                 false};
  p.exe = exe;
  return p;
}

MemoryEvidence::Process& MemoryEvidence::Slot(std::int64_t pid) {
  ++*changes_;
  auto [it, added] = procs_.try_emplace(pid);
  if (added) {
    names_stale_ = true;
    it->second.files.changes_ = changes_.get();
  }
  return it->second;
}

MemoryEvidence::Process* MemoryEvidence::Find(std::int64_t pid) {
  auto it = procs_.find(pid);
  return it == procs_.end() ? nullptr : &it->second;
}

void MemoryEvidence::SetFile(std::int64_t pid, ProcFile file, std::string data) {
  Slot(pid).files[file] = StoredRead{0, std::move(data), false};
}

void MemoryEvidence::SetFileError(std::int64_t pid, ProcFile file, int err) {
  Slot(pid).files[file] = StoredRead{err, {}, false};
}

const MemoryEvidence::StatRow* MemoryEvidence::StatOf(std::int64_t pid) {
  if (column_at_ != *changes_) {
    std::vector<std::int64_t> pids;
    pids.reserve(procs_.size());
    std::size_t bytes = 0;
    for (const auto& [p, process] : procs_) {
      if (const StoredRead* stat = process.files.Get(ProcFile::kStat)) {
        pids.push_back(p);
        bytes += stat->data.size();
      }
    }
    std::sort(pids.begin(), pids.end());
    stat_rows_.clear();
    stat_bytes_.clear();
    stat_bytes_.reserve(bytes);
    for (std::int64_t p : pids) {
      const StoredRead& stat = *procs_.find(p)->second.files.Get(ProcFile::kStat);
      stat_rows_.push_back(StatRow{p, static_cast<std::uint32_t>(stat_bytes_.size()),
                                   static_cast<std::uint32_t>(stat.data.size()), stat.err,
                                   stat.truncated});
      stat_bytes_ += stat.data;
    }
    column_at_ = *changes_;
    stat_cursor_ = 0;
  }
  // A scan reads in pid order: the row after the last one found, first.
  const std::size_t next = stat_cursor_ + 1;
  if (next < stat_rows_.size() && stat_rows_[next].pid == pid) {
    stat_cursor_ = next;
  } else {
    auto it = std::lower_bound(stat_rows_.begin(), stat_rows_.end(), pid,
                               [](const StatRow& r, std::int64_t p) { return r.pid < p; });
    if (it == stat_rows_.end() || it->pid != pid) return nullptr;
    stat_cursor_ = static_cast<std::size_t>(it - stat_rows_.begin());
  }
  return &stat_rows_[stat_cursor_];
}

void MemoryEvidence::Tick() {
  ++calls;
  now_ns += call_cost_ns;
}

ListResult MemoryEvidence::ListPids(std::uint64_t bound) {
  Tick();
  ListResult out;
  if (list_err != 0) {
    out.err = list_err;
    return out;
  }
  if (!listing && names_stale_) {
    std::vector<std::int64_t> pids;
    pids.reserve(procs_.size());
    for (const auto& entry : procs_) pids.push_back(entry.first);
    std::sort(pids.begin(), pids.end());
    names_.clear();
    names_.reserve(pids.size());
    for (std::int64_t pid : pids) names_.push_back(std::to_string(pid));
    names_stale_ = false;
  }
  if (listing) {
    names_ = *listing;  // a copy: a hook may change `listing` within a call
    names_stale_ = true;
  }
  const std::vector<std::string>& names = names_;
  std::size_t n = names.size();
  if (n > bound) {
    n = static_cast<std::size_t>(bound);
    out.truncated = true;
  }
  out.names.assign(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(n));
  return out;
}

ListResult MemoryEvidence::ListPidsWithin(const ListLimits& limits) {
  ListResult out = ListPids(limits.max_entries);
  if (!out.ok()) return out;
  for (std::size_t i = 0; i < out.names.size(); ++i) {
    out.bytes += out.names[i].size();
    now_ns += list_entry_cost_ns;
    const bool bytes = out.bytes > limits.max_bytes;
    if (bytes || now_ns > limits.deadline_ns) {
      out.stopped = bytes ? ListStop::kBytes : ListStop::kDeadline;
      out.truncated = false;
      out.names.resize(i);
      return out;
    }
  }
  return out;
}

ReadResult MemoryEvidence::ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) {
  Tick();
  if (file == ProcFile::kStat) {
    // Served from the column: a view of it stays valid until the next read
    // (the only call that rebuilds it), whatever a hook changes meanwhile.
    const StatRow* row = StatOf(pid);
    if (row == nullptr) return ReadResult{ENOENT, {}, false};
    ReadResult out{row->err, std::string_view(stat_bytes_).substr(row->offset, row->size),
                   row->truncated};
    if (out.ok() && out.data.size() > bound) {
      out.data = out.data.substr(0, static_cast<std::size_t>(bound));
      out.truncated = true;
    }
    return out;
  }
  Process* p = Find(pid);
  if (p == nullptr) return ReadResult{ENOENT, {}, false};
  const StoredRead* found = p->files.Get(file);
  if (found == nullptr) return ReadResult{ENOENT, {}, false};
  const StoredRead& stored = *found;
  ReadResult out{stored.err, {}, stored.truncated};
  std::string_view data = stored.data;
  if (out.ok() && data.size() > bound) {
    data = data.substr(0, static_cast<std::size_t>(bound));
    out.truncated = true;
  }
  read_.assign(data);
  out.data = read_;
  return out;
}

Identity MemoryEvidence::ExeIdentity(std::int64_t pid) {
  Tick();
  Process* p = Find(pid);
  if (p == nullptr) return Identity{ENOENT, 0, 0};
  return p->exe;
}

Identity MemoryEvidence::PathIdentity(const std::string& path) {
  Tick();
  auto it = paths_.find(path);
  if (it == paths_.end()) return Identity{ENOENT, 0, 0};
  return it->second;
}

std::int64_t MemoryEvidence::NowNs() {
  Tick();
  return now_ns;
}

void MemoryEvidence::SleepUntil(std::int64_t mono_ns) {
  Tick();
  if (mono_ns > now_ns) now_ns = mono_ns;
  if (on_sleep) on_sleep(*this);
}

}  // namespace proctape
