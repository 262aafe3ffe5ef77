// SPDX-License-Identifier: Apache-2.0
// A typical Linux host for the core's unit tests, in the in-memory /proc of
// MemoryEvidence, plus a call log and a hook so a test can see every call the
// resolver makes and change the host in the middle of a resolution.
//
// The typical host, in host pids (namespace pids in brackets):
//
//   1     systemd                       (not scanned: outside 2..2147483647)
//   2     kthreadd                      kernel thread, empty cmdline
//   3     postgres                      another user's process: the pid the
//                                       sandbox's marker names on the host
//   3900  bash                          the user's shell
//   4000  codex app-server              the fingerprinted root
//   4001    node mcp-server.js          an unrelated child of the root
//   4100    bwrap --unshare-pid ...     the sandbox launcher
//   4101      bwrap            [1]      the sandbox's init
//   4102        sh             [2]
//   4103          /bin/sleep 120 [3]    the tracked sleep: `echo $$` wrote 3
#pragma once

#include <cerrno>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "core/memory_evidence.h"
#include "core/proc_parse.h"
#include "core/resolver.h"

namespace proctape::test {

inline constexpr std::int64_t kKthreadd = 2;
inline constexpr std::int64_t kHostPid3 = 3;
inline constexpr std::int64_t kUserShell = 3900;
inline constexpr std::int64_t kAppServer = 4000;
inline constexpr std::int64_t kMcpServer = 4001;
inline constexpr std::int64_t kBwrap = 4100;
inline constexpr std::int64_t kSandboxInit = 4101;
inline constexpr std::int64_t kSandboxShell = 4102;
inline constexpr std::int64_t kSleep = 4103;

inline constexpr std::uint64_t kAppServerStart = 500000;
inline constexpr std::uint64_t kBwrapStart = 510000;
inline constexpr std::uint64_t kSandboxInitStart = 510001;
inline constexpr std::uint64_t kSandboxShellStart = 510002;
inline constexpr std::uint64_t kSleepStart = 510003;

inline const Identity kSleepExe{0, 0x803, 1311};
inline const Identity kShExe{0, 0x803, 1200};
inline const Identity kOtherExe{0, 0x803, 4242};

inline const std::string kToken = "3f9c1e7a-new";
inline const std::string kOldToken = "8b2d44e0-old";

inline std::vector<std::string> SleepEnviron(const std::string& token) {
  return {"HOME=/root", "PATH=/usr/bin:/bin", "PROCTAPE_TOKEN=" + token, "PWD=/tmp"};
}

// A stat line laid out like MemoryEvidence::StatLine, with every identity
// field given as text so a test can write non-canonical values.
inline std::string RawStat(const std::string& pid, const std::string& comm,
                           const std::string& state, const std::string& ppid,
                           const std::string& start) {
  return pid + " (" + comm + ") " + state + " " + ppid + " " + ppid + " " + ppid +
         " 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 " + start +
         " 8523776 230 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 "
         "0\n";
}

// A comm that makes StatLine(pid, comm, 'S', ppid, start) exactly `size` bytes.
inline std::string CommForStatSize(std::int64_t pid, std::int64_t ppid, std::uint64_t start,
                                   std::size_t size) {
  std::size_t base = MemoryEvidence::StatLine(pid, "", 'S', ppid, start).size();
  return std::string(size - base, 'c');
}

// One call through the Evidence interface, as the hook sees it.
struct Call {
  std::string kind;  // "list", "read", "exe", "path", "now", "sleep"
  std::int64_t pid = 0;
  ProcFile file = ProcFile::kStat;
};

class FakeHost : public MemoryEvidence {
 public:
  enum class Shape { kTypical, kEmpty };

  explicit FakeHost(Shape shape = Shape::kTypical) {
    if (shape == Shape::kEmpty) return;
    AddProcess(1, 0, 1, "systemd", {"/sbin/init"}, {}, Identity{0, 0x803, 10});
    AddProcess(kKthreadd, 0, 2, "kthreadd", {}, {}, Identity{ENOENT, 0, 0});
    AddProcess(kHostPid3, 1, 900, "postgres", {"/usr/lib/postgresql/15/bin/postgres"},
               {"PGDATA=/var/lib/postgresql"}, Identity{0, 0x803, 77});
    AddProcess(kUserShell, 1, 400000, "bash", {"-bash"}, {"HOME=/root"}, Identity{0, 0x803, 66});
    AddProcess(kAppServer, kUserShell, kAppServerStart, "codex", {"codex", "app-server"},
               {"HOME=/root"}, Identity{0, 0x803, 500});
    AddProcess(kMcpServer, kAppServer, 500100, "node", {"node", "mcp-server.js"}, {"HOME=/root"},
               Identity{0, 0x803, 501});
    AddProcess(kBwrap, kAppServer, kBwrapStart, "bwrap",
               {"bwrap", "--unshare-pid", "--", "/bin/sh", "-c", "echo $$ >m; exec sleep 120"},
               {"HOME=/root"}, Identity{0, 0x803, 600});
    AddProcess(kSandboxInit, kBwrap, kSandboxInitStart, "bwrap", {"bwrap"}, {},
               Identity{0, 0x803, 600});
    AddProcess(kSandboxShell, kSandboxInit, kSandboxShellStart, "sh", {"/bin/sh", "-c", "..."},
               SleepEnviron(kToken), kShExe);
    AddSleep(kSleep, kSandboxShell, kSleepStart, kToken);
    SetFile(kSleep, ProcFile::kStatus,
            "Name:\tsleep\nState:\tS (sleeping)\nPid:\t4103\n"
            "PPid:\t4102\nNSpid:\t4103\t3\n");
    SetPath("/bin/sleep", kSleepExe);
  }

  // The request a checker would make for the typical host's sleep.
  static Request TypicalRequest() {
    Request r;
    r.root_pid = kAppServer;
    r.root_start_ticks = kAppServerStart;
    r.token = kToken;
    r.exe = kSleepExe;
    return r;
  }

  // An exact `/bin/sleep 120` whose environment carries `token`.
  Process& AddSleep(std::int64_t pid, std::int64_t ppid, std::uint64_t start,
                    const std::string& token, char state = 'S') {
    return AddProcess(pid, ppid, start, "sleep", {"/bin/sleep", "120"}, SleepEnviron(token),
                      kSleepExe, state);
  }

  // Every call, in order, with its arguments and result (while `logging`).
  std::vector<std::string> log;
  bool logging = true;
  // Runs after each call has been answered; may change the host.
  std::function<void(FakeHost&, const Call&)> after_call;

  int Reads(std::int64_t pid, ProcFile file) const {
    std::string prefix =
        "read " + std::to_string(pid) + " " + std::string(ProcFileName(file)) + " ";
    int n = 0;
    for (const auto& line : log) n += line.rfind(prefix, 0) == 0 ? 1 : 0;
    return n;
  }
  int ReadsOf(ProcFile file) const {
    // Built by appends: GCC 12 at -O2 warns falsely (-Wrestrict) on
    // `" " + std::string(...)`.
    std::string needle(" ");
    needle.append(ProcFileName(file)).append(" ");
    int n = 0;
    for (const auto& line : log) {
      n += line.rfind("read ", 0) == 0 && line.find(needle) != std::string::npos ? 1 : 0;
    }
    return n;
  }

  ListResult ListPids(std::uint64_t bound) override {
    ListResult r = MemoryEvidence::ListPids(bound);
    Note(Call{"list", 0, ProcFile::kStat},
         "list " + std::to_string(bound) + " -> " + std::to_string(r.err) + " " +
             std::to_string(r.names.size()) + (r.truncated ? " truncated" : ""));
    return r;
  }
  ReadResult ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) override {
    ReadResult r = MemoryEvidence::ReadFile(pid, file, bound);
    Note(Call{"read", pid, file}, "read " + std::to_string(pid) + " " +
                                      std::string(ProcFileName(file)) + " " +
                                      std::to_string(bound) + " -> " + std::to_string(r.err) + " " +
                                      EscapeBytes(r.data, 64) + (r.truncated ? " T" : ""));
    return r;
  }
  Identity ExeIdentity(std::int64_t pid) override {
    Identity id = MemoryEvidence::ExeIdentity(pid);
    Note(Call{"exe", pid, ProcFile::kExe},
         "exe " + std::to_string(pid) + " -> " + std::to_string(id.err) + " " +
             std::to_string(id.dev) + ":" + std::to_string(id.ino));
    return id;
  }
  Identity PathIdentity(const std::string& path) override {
    Identity id = MemoryEvidence::PathIdentity(path);
    Note(Call{"path", 0, ProcFile::kExe}, "path " + path + " -> " + std::to_string(id.err));
    return id;
  }
  std::int64_t NowNs() override {
    std::int64_t now = MemoryEvidence::NowNs();
    Note(Call{"now", 0, ProcFile::kStat}, "now -> " + std::to_string(now));
    return now;
  }
  void SleepUntil(std::int64_t mono_ns) override {
    MemoryEvidence::SleepUntil(mono_ns);
    Note(Call{"sleep", 0, ProcFile::kStat}, "sleep " + std::to_string(mono_ns));
  }

 private:
  void Note(const Call& call, std::string line) {
    if (logging) log.push_back(std::move(line));
    if (after_call) after_call(*this, call);
  }
};

}  // namespace proctape::test

namespace proctape {
// Status names in GoogleTest failure messages instead of numbers.
inline void PrintTo(Status status, std::ostream* os) { *os << StatusName(status); }
inline void PrintTo(LivenessStatus status, std::ostream* os) { *os << LivenessName(status); }
}  // namespace proctape
