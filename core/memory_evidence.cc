#include "core/memory_evidence.h"

#include <cerrno>

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
  Process& p = procs_[pid];
  p.files.clear();
  p.files[ProcFile::kStat] = ReadResult{0, StatLine(pid, comm, state, ppid, start_ticks), false};
  p.files[ProcFile::kCmdline] = ReadResult{0, JoinNul(argv), false};
  p.files[ProcFile::kEnviron] = ReadResult{0, JoinNul(environ), false};
  p.files[ProcFile::kStatus] =
      ReadResult{0, "Name:\t" + comm + "\nState:\t" + state + "\nPid:\t" + std::to_string(pid) +
                        "\nPPid:\t" + std::to_string(ppid) + "\nNSpid:\t" + std::to_string(pid) +
                        "\n",
                 false};
  p.exe = exe;
  return p;
}

MemoryEvidence::Process* MemoryEvidence::Find(std::int64_t pid) {
  auto it = procs_.find(pid);
  return it == procs_.end() ? nullptr : &it->second;
}

void MemoryEvidence::SetFile(std::int64_t pid, ProcFile file, std::string data) {
  procs_[pid].files[file] = ReadResult{0, std::move(data), false};
}

void MemoryEvidence::SetFileError(std::int64_t pid, ProcFile file, int err) {
  procs_[pid].files[file] = ReadResult{err, {}, false};
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
  std::vector<std::string> names;
  if (listing) {
    names = *listing;
  } else {
    for (const auto& [pid, p] : procs_) names.push_back(std::to_string(pid));
  }
  if (names.size() > bound) {
    names.resize(bound);
    out.truncated = true;
  }
  out.names = std::move(names);
  return out;
}

ReadResult MemoryEvidence::ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) {
  Tick();
  Process* p = Find(pid);
  if (p == nullptr) return ReadResult{ENOENT, {}, false};
  auto it = p->files.find(file);
  if (it == p->files.end()) return ReadResult{ENOENT, {}, false};
  ReadResult out = it->second;
  if (out.ok() && out.data.size() > bound) {
    out.data.resize(bound);
    out.truncated = true;
  }
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
