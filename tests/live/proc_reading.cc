// SPDX-License-Identifier: Apache-2.0
#include "tests/live/proc_reading.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <map>
#include <random>

#include "lab/procs.h"
#include "tests/live/posix_helpers.h"

namespace proctape::live {

using namespace detail;  // tests/live/posix_helpers.h

namespace {

bool AllDigits(const char* s) {
  if (*s == '\0') return false;
  for (; *s != '\0'; ++s) {
    if (*s < '0' || *s > '9') return false;
  }
  return true;
}

std::vector<pid_t> ListProc() {
  std::vector<pid_t> pids;
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) return pids;
  while (struct dirent* e = ::readdir(dir)) {
    if (AllDigits(e->d_name)) pids.push_back(static_cast<pid_t>(std::atol(e->d_name)));
  }
  ::closedir(dir);
  return pids;
}

}  // namespace

std::optional<std::string> ReadProc(pid_t pid, const std::string& name, int* err) {
  return lab::ReadProcFile(pid, name.c_str(), err);  // the lab's one plain /proc read
}

std::optional<ProcStat> ReadStat(pid_t pid) {
  std::optional<std::string> stat = ReadProc(pid, "stat");
  if (!stat) return std::nullopt;
  std::size_t close = stat->rfind(')');
  if (close == std::string::npos || close + 2 > stat->size()) return std::nullopt;
  std::vector<std::string> fields;  // fields[0] is field 3 (state)
  std::size_t pos = close + 2;
  while (pos < stat->size()) {
    std::size_t end = stat->find_first_of(" \n", pos);
    if (end == std::string::npos) end = stat->size();
    fields.push_back(stat->substr(pos, end - pos));
    pos = end + 1;
  }
  if (fields.size() < 20 || fields[0].size() != 1) return std::nullopt;
  ProcStat out;
  out.pid = static_cast<pid_t>(std::atol(stat->c_str()));
  out.state = fields[0][0];
  out.ppid = static_cast<pid_t>(std::atol(fields[1].c_str()));
  out.start_ticks = std::strtoull(fields[19].c_str(), nullptr, 10);
  if (out.pid != pid) return std::nullopt;
  return out;
}

std::vector<long> NsPids(pid_t pid) {
  std::vector<long> out;
  std::optional<std::string> status = ReadProc(pid, "status");
  if (!status) return out;
  std::size_t at = status->find("\nNSpid:");
  if (at == std::string::npos) return out;
  std::size_t end = status->find('\n', at + 1);
  std::string line = status->substr(at + 7, end - (at + 7));
  char* p = line.data();
  for (;;) {
    char* next = nullptr;
    long v = std::strtol(p, &next, 10);
    if (next == p) break;
    out.push_back(v);
    p = next;
  }
  return out;
}

std::vector<pid_t> Descendants(pid_t root) {
  std::vector<pid_t> pids = ListProc();
  std::map<pid_t, pid_t> parent;
  for (pid_t pid : pids) {
    if (auto st = ReadStat(pid)) parent[pid] = st->ppid;
  }
  std::vector<pid_t> out;
  for (pid_t pid : pids) {
    pid_t p = pid;
    for (int depth = 0; depth < 512; ++depth) {
      auto it = parent.find(p);
      if (it == parent.end()) break;
      p = it->second;
      if (p == root) {
        out.push_back(pid);
        break;
      }
    }
  }
  return out;
}

std::string RandomHex(std::size_t bytes) {
  std::random_device rd;
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < bytes; ++i) {
    unsigned v = rd() & 0xff;
    out += kHex[v >> 4];
    out += kHex[v & 0xf];
  }
  return out;
}

std::string FindOnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
  std::size_t pos = 0;
  while (pos <= dirs.size()) {
    std::size_t end = dirs.find(':', pos);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(pos, end - pos);
    if (!dir.empty() && dir[0] == '/') {
      std::string candidate = dir + "/" + program;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    pos = end + 1;
  }
  return "";
}

bool WaitGoneOrDead(pid_t pid, int timeout_ms) {
  std::int64_t until = MonoMs() + timeout_ms;
  for (;;) {
    std::optional<ProcStat> st = ReadStat(pid);
    if (!st || st->state == 'Z' || st->state == 'X' || st->state == 'x') return true;
    if (MonoMs() > until) return false;
    SleepMs(2);
  }
}

}  // namespace proctape::live
