// SPDX-License-Identifier: Apache-2.0
// What the live tests of `proctape ownership` share (ownership_live_test.cc,
// ownership_bootstrap_live_test.cc; root only): a fresh cgroup v2 directory
// whose processes are all ended by pidfd, the runtime shell that starts the
// keepalive and then the verifier, the children a verifier starts, and
// readers of what the scripts and the plan wrote.
#pragma once

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/live/files.h"
#include "tests/live/sandbox.h"

namespace proctape::ownership_live {

using live::TempDir;

// The mount point of the cgroup2 file system, from /proc/self/mountinfo
// ("ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS ... - cgroup2 SOURCE ..."), or "".
inline std::string Cgroup2Mount() {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::size_t dash = line.find(" - ");
    if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0) continue;
    std::istringstream fields(line.substr(0, dash));
    std::string id, parent, dev, root, mount;
    if (fields >> id >> parent >> dev >> root >> mount) return mount;
  }
  return "";
}

// The path after "0::" in /proc/PID/cgroup, or "".
inline std::string V2Path(pid_t pid) {
  std::optional<std::string> file = live::ReadProc(pid, "cgroup");
  if (!file) return "";
  std::istringstream lines(*file);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  }
  return "";
}

// A fresh cgroup v2 directory, and the child cgroups made in it. On
// destruction every process in any of them is ended by pidfd (opened, then
// checked against the start time read just before) and the directories are
// removed, children first.
class FreshCgroup {
 public:
  static std::unique_ptr<FreshCgroup> Create(std::string* why) {
    if (::geteuid() != 0) {
      *why = "needs root to create a cgroup v2 directory";
      return nullptr;
    }
    std::string mount = Cgroup2Mount();
    if (mount.empty()) {
      *why = "no cgroup2 file system is mounted (cgroup v1 only)";
      return nullptr;
    }
    std::string dir = mount + "/proctape-ownership-" + live::RandomHex(6);
    if (::mkdir(dir.c_str(), 0755) != 0) {
      *why = "cannot create " + dir + ": " + std::strerror(errno);
      return nullptr;
    }
    return std::unique_ptr<FreshCgroup>(new FreshCgroup(dir));
  }
  ~FreshCgroup() {
    for (int round = 0; round < 100; ++round) {
      bool empty = true;
      for (const std::string& d : dirs_) {
        std::vector<pid_t> pids = Members(d);
        empty = empty && pids.empty();
        for (pid_t pid : pids) End(pid);
      }
      if (empty && RemoveAll()) return;
      ::usleep(20000);
    }
    ADD_FAILURE() << "could not empty and remove " << dirs_.front();
  }
  FreshCgroup(const FreshCgroup&) = delete;
  FreshCgroup& operator=(const FreshCgroup&) = delete;

  const std::string& dir() const { return dirs_.front(); }
  std::vector<pid_t> Members() const { return Members(dir()); }

  // A child cgroup NAME made in it (its path: dir() + "/" + NAME), or "" with
  // the failure added.
  std::string Child(const std::string& name) {
    std::string d = dir() + "/" + name;
    if (::mkdir(d.c_str(), 0755) != 0) {
      ADD_FAILURE() << "cannot create " << d << ": " << std::strerror(errno);
      return "";
    }
    dirs_.insert(dirs_.begin() + 1, d);
    return d;
  }

 private:
  explicit FreshCgroup(std::string dir) : dirs_{std::move(dir)} {}

  static std::vector<pid_t> Members(const std::string& d) {
    std::vector<pid_t> out;
    std::ifstream in(d + "/cgroup.procs");
    long pid = 0;
    while (in >> pid) out.push_back(static_cast<pid_t>(pid));
    return out;
  }
  static void End(pid_t pid) {
    std::optional<live::ProcStat> st = live::ReadStat(pid);
    if (!st) return;
    std::string error;
    live::PidFd fd = live::PidFd::Open(pid, st->start_ticks, &error);
    if (!fd.valid()) return;
    fd.Kill();
    fd.WaitExited(3000);
  }
  // Children first (the last made first), then the directory itself.
  bool RemoveAll() {
    while (dirs_.size() > 1) {
      if (::rmdir(dirs_[1].c_str()) != 0 && errno != ENOENT) return false;
      dirs_.erase(dirs_.begin() + 1);
    }
    return ::rmdir(dirs_[0].c_str()) == 0;
  }

  std::vector<std::string> dirs_;  // the directory, then its children, the last made first
};

// The runtime: enters the fresh cgroup, starts the keepalive, waits until
// the clock tick has passed the keepalive's start (a process started now has
// a later start tick: the keepalive truly predates the verifier,
// docs/ownership.md "Started before the verifier"), then runs the verifier
// in the foreground. $1 = cgroup.procs, $2 = work dir, $3 = proctape, $4 =
// passed to the verifier as its $3.
inline constexpr const char* kRuntime = R"sh(set -e
echo $$ > "$1"
echo "$$ $(cut -d' ' -f22 /proc/$$/stat)" > "$2/runtime.id"
/bin/sleep 300 </dev/null >/dev/null 2>&1 &
echo $! > "$2/keepalive.pid"
k=$(cut -d' ' -f22 /proc/$!/stat)
while [ "$(cut -d' ' -f22 /proc/self/stat)" -le "$k" ]; do :; done
/bin/sh "$2/verifier.sh" "$2" "$3" "$4"
)sh";

// Starts a detached child (setsid -f) and a double-forked one, writing their
// pids to detached.pid and double.pid, and waits until both are written.
// Sourced (children.sh) by the verifiers of the tests; $1 = work dir.
inline constexpr const char* kChildren = R"sh(
setsid -f /bin/sh -c 'echo $$ > "$1/detached.pid"; exec /bin/sleep 300' sh "$1" </dev/null >/dev/null 2>&1
/bin/sh -c '/bin/sleep 300 </dev/null >/dev/null 2>&1 & echo $! > "$1/double.pid"' sh "$1"
n=0
while [ ! -s "$1/detached.pid" ] && [ $n -lt 500 ]; do sleep 0.01; n=$((n+1)); done
)sh";

inline long ReadPid(const TempDir& dir, const std::string& name) {
  std::istringstream in(live::FileBytes(dir.File(name)));
  long pid = 0;
  in >> pid;
  return pid;
}

// "PID START" as written by the scripts, as "PID@START".
inline std::string ReadId(const TempDir& dir, const std::string& name) {
  std::istringstream in(live::FileBytes(dir.File(name)));
  long pid = 0;
  unsigned long long start = 0;
  in >> pid >> start;
  return std::to_string(pid) + "@" + std::to_string(start);
}

// "PID@START" of a live process, read independently of proctape.
inline std::string LiveId(long pid) {
  std::optional<live::ProcStat> st = live::ReadStat(static_cast<pid_t>(pid));
  if (!st) return "gone:" + std::to_string(pid);
  return std::to_string(pid) + "@" + std::to_string(st->start_ticks);
}

// The start tick of "PID@START".
inline unsigned long long StartOf(const std::string& id) {
  return std::stoull(id.substr(id.find('@') + 1));
}

struct Line {
  std::string action, id, reason, rest;
};
// The KEEP/REMOVE lines of the text plan, by pid@start.
inline std::map<std::string, Line> Decisions(const std::string& out) {
  std::map<std::string, Line> lines;
  std::istringstream in(out);
  std::string text;
  while (std::getline(in, text)) {
    std::istringstream fields(text);
    Line l;
    fields >> l.action >> l.id >> l.reason;
    if (l.action != "KEEP" && l.action != "REMOVE") continue;
    std::getline(fields, l.rest);
    lines[l.id] = l;
  }
  return lines;
}

}  // namespace proctape::ownership_live
