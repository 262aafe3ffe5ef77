// SPDX-License-Identifier: Apache-2.0
#include "lab/session.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <set>

#include "fs/interrupt.h"
#include "lab/sandbox.h"

namespace proctape::lab {
namespace {

// ---- What an interrupt must end: fixed arrays, safe in a signal handler ----

constexpr int kMaxHeld = 512;
constexpr int kMaxDirect = 32;
int g_pidfds[kMaxHeld];
pid_t g_pidfd_pids[kMaxHeld];  // the pid each pidfd refers to, for the interrupt's line
std::atomic<int> g_pidfd_count{0};
pid_t g_direct[kMaxDirect];  // unreaped direct children: app-servers, clone3 children
std::atomic<int> g_direct_count{0};

void RegisterPidfd(int fd, pid_t pid) {
  int i = g_pidfd_count.load();
  if (i < kMaxHeld) {
    g_pidfds[i] = fd;
    g_pidfd_pids[i] = pid;
    g_pidfd_count.store(i + 1);
  }
}
void RegisterDirect(pid_t pid) {
  int i = g_direct_count.load();
  if (i < kMaxDirect) {
    g_direct[i] = pid;
    g_direct_count.store(i + 1);
  }
}

// Once reaped, a pid may name anyone: it leaves the registry first.
void UnregisterDirect(pid_t pid) {
  int n = g_direct_count.load();
  for (int i = 0; i < n; ++i) {
    if (g_direct[i] == pid) {
      g_direct[i] = g_direct[n - 1];
      g_direct_count.store(n - 1);
      return;
    }
  }
}

void ForgetAll() {
  g_pidfd_count.store(0);
  g_direct_count.store(0);
}

// The interrupt's line, built without allocating (a signal handler's).
struct EndedLine {
  char text[8192];
  std::size_t size = 0;
  pid_t pids[kMaxHeld + kMaxDirect];
  int count = 0;

  void Append(const char* s) {
    while (*s != '\0' && size < sizeof text - 64) text[size++] = *s++;
  }
  void AppendNumber(long n) {
    char digits[24];
    int k = 0;
    do {
      digits[k++] = static_cast<char>('0' + n % 10);
      n /= 10;
    } while (n > 0 && k < 23);
    while (k > 0 && size < sizeof text - 64) text[size++] = digits[--k];
  }
  // A pid signalled by pidfd and again by pid (an app-server) is named once.
  void Ended(pid_t pid) {
    for (int i = 0; i < count; ++i) {
      if (pids[i] == pid) return;
    }
    pids[count++] = pid;
  }
};
EndedLine g_ended;

// The interrupt hook (fs/interrupt.h runs it first, then removes the
// session's directory and the recording's temporary, then re-raises): ends
// every process the lab started and says which, on one line of stderr, before
// the exit by the signal (130 for SIGINT).
void EndStartedProcesses() {
  EndedLine& line = g_ended;
  line.count = 0;
  line.size = 0;
  // Deepest first: the order held is shallowest first. A process already
  // gone (the signal fails) was not ended here and is not named.
  for (int i = g_pidfd_count.load() - 1; i >= 0; --i) {
    if (::syscall(SYS_pidfd_send_signal, g_pidfds[i], SIGKILL, nullptr, 0) == 0) {
      line.Ended(g_pidfd_pids[i]);
    }
  }
  for (int i = g_direct_count.load() - 1; i >= 0; --i) {
    if (::kill(g_direct[i], SIGKILL) == 0) line.Ended(g_direct[i]);
  }
  line.Append("proctape: lab: interrupted: ");
  if (line.count == 0) {
    line.Append("no process the lab started was running\n");
  } else {
    line.Append("ended the ");
    if (line.count > 1) {
      line.AppendNumber(line.count);
      line.Append(" processes");
    } else {
      line.Append("process");
    }
    line.Append(" it started (pid");
    line.Append(line.count > 1 ? "s " : " ");
    for (int i = 0; i < line.count; ++i) {
      if (i > 0) line.Append(", ");
      line.AppendNumber(line.pids[i]);
    }
    line.Append(")\n");
  }
  for (std::size_t at = 0; at < line.size;) {
    const ssize_t n = ::write(STDERR_FILENO, line.text + at, line.size - at);
    if (n <= 0) break;
    at += static_cast<std::size_t>(n);
  }
}

bool HasEnvEntry(const std::string& environ, const std::string& entry) {
  for (std::string_view e : SplitNul(environ)) {
    if (e == entry) return true;
  }
  return false;
}

}  // namespace

MaybeFailure Session::Init(SandboxKind kind) {
  auto failed = [](const std::string& call) {
    const int e = errno;
    return Failure(FailureKind::kLabFailed, call + ": " + std::strerror(e), e);
  };
  kind_ = kind;
  tool_ = FindOnPath(SandboxName(kind));
  std::string pattern = StagingBase() + "/proctape-lab-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) return failed("mkdtemp " + pattern);
  dir_ = pattern;
  // The directory goes with everything in it on an interrupt, after the
  // processes the lab started.
  AddInterruptHook(&EndStartedProcesses);
  const std::size_t slash = dir_.rfind('/');
  const std::string parent = slash == 0 ? "/" : dir_.substr(0, slash);
  parent_fd_ = ::open(parent.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (parent_fd_ < 0) {
    Failure failure = failed("open " + parent);
    ::rmdir(dir_.c_str());
    dir_.clear();
    return failure;
  }
  dir_slot_ = RegisterTemporary(parent_fd_, dir_.substr(slash + 1), true);
  std::string log = Path("log");
  log_fd_ = ::open(log.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (log_fd_ < 0) return failed("open " + log);
  return std::nullopt;
}

std::string Session::Path(const std::string& name) {
  std::string path = dir_ + "/" + name;
  files_.push_back(path);
  return path;
}

std::string Session::Log() const {
  if (log_fd_ < 0) return "";
  char buf[1024];
  ssize_t n = ::pread(log_fd_, buf, sizeof buf, 0);
  return n > 0 ? EscapeBytes(std::string_view(buf, static_cast<std::size_t>(n)), 1024) : "";
}

MaybeFailure Session::StartAppServer() {
  Failure failure;
  app_ = AppServer::Start(log_fd_, &failure);
  if (!app_) return failure;
  RegisterDirect(app_->pid());
  app_servers_.push_back({app_->pid(), app_->start_ticks(), "app-server"});
  return std::nullopt;
}

void Session::StopAppServer() {
  if (!app_) return;
  InterruptsBlocked hold;
  // Its tree, deepest first, by pidfd; then it ends itself.
  Track(app_->pid(), "sandbox");
  for (auto it = held_.rbegin(); it != held_.rend(); ++it) it->fd.Kill();
  for (auto it = held_.rbegin(); it != held_.rend(); ++it) it->fd.WaitExited(3000);
  pid_t pid = app_->pid();
  app_->Stop();
  UnregisterDirect(pid);
  app_.reset();
}

pid_t Session::StartAt(pid_t tid, const std::vector<std::string>& argv,
                       const std::vector<std::string>& env, const std::string& role,
                       Failure* failure) {
  pid_t pid = StartChild(argv, env, log_fd_, tid, failure);
  if (pid < 0) return -1;
  RegisterDirect(pid);
  std::optional<StatFields> st = ReadStatOf(pid);
  direct_.push_back({pid, st ? st->start_ticks : 0, role});
  return pid;
}

void Session::Track(pid_t root, const std::string& role) {
  std::set<std::pair<pid_t, std::uint64_t>> known;
  for (const Held& h : held_) known.insert({h.fd.pid(), h.fd.start_ticks()});
  for (const StatFields& st : DescendantsOf(root)) {
    if (known.count({static_cast<pid_t>(st.pid), st.start_ticks})) continue;
    PidFd fd = PidFd::Open(static_cast<pid_t>(st.pid), st.start_ticks);
    if (!fd.valid()) continue;  // already gone: nothing to end
    RegisterPidfd(fd.fd(), fd.pid());
    held_.push_back({std::move(fd), role});
  }
}

std::optional<long> Session::WaitMarker(const std::string& path, int timeout_ms) {
  std::int64_t until = MonoMs() + timeout_ms;
  for (;;) {
    if (FILE* f = std::fopen(path.c_str(), "re")) {
      char buf[32] = {0};
      std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
      std::fclose(f);
      std::string text(buf, n);
      // `>` creates the file before echo writes: wait for the whole line.
      if (text.size() > 1 && text.back() == '\n') {
        if (auto v = ParseCanonicalDecimal(text.substr(0, text.size() - 1))) {
          return static_cast<long>(*v);
        }
      }
    }
    if (MonoMs() > until) return std::nullopt;
    SleepMs(1);
  }
}

std::vector<StatFields> Session::WaitFor(pid_t root, const std::string& cmdline,
                                         const std::string& env_entry, std::optional<FileId> exe,
                                         std::size_t count, int timeout_ms, Failure* failure) {
  std::int64_t until = MonoMs() + timeout_ms;
  for (;;) {
    Track(root, "sandbox");
    std::vector<StatFields> found;
    for (const StatFields& st : DescendantsOf(root)) {
      pid_t pid = static_cast<pid_t>(st.pid);
      if (ReadProcFile(pid, "cmdline") != cmdline) continue;
      if (exe && IdentityOf("/proc/" + std::to_string(pid) + "/exe") != exe) continue;
      std::optional<std::string> env = ReadProcFile(pid, "environ");
      if (!env || !HasEnvEntry(*env, env_entry)) continue;
      // `st` may predate the exec that made the cmdline match (its comm is
      // then the shell's): the stat of the same process after the match.
      std::optional<StatFields> now = ReadStatOf(pid);
      if (now && now->start_ticks == st.start_ticks) found.push_back(*now);
    }
    if (found.size() == count) {
      Track(root, "sandbox");
      for (const StatFields& st : found) {
        for (Held& h : held_) {
          if (h.fd.pid() == st.pid && h.fd.start_ticks() == st.start_ticks) h.role = "match";
        }
      }
      return found;
    }
    if (found.size() > count || MonoMs() > until) {
      *failure = Failure(FailureKind::kLabFailed,
                         "expected " + Plural(count, "process", "processes") + " with argv '" +
                             EscapeBytes(cmdline, 200) + "' and the token beneath pid " +
                             std::to_string(root) + ", found " + std::to_string(found.size()) +
                             " within " + std::to_string(timeout_ms) + " ms; log: " + Log());
      return {};
    }
    SleepMs(2);
  }
}

MaybeFailure Session::Kill(pid_t pid, bool reaped) {
  for (const Held& h : held_) {
    if (h.fd.pid() != pid) continue;
    h.fd.Kill();
    bool ok = h.fd.WaitExited(3000);
    std::int64_t until = MonoMs() + 3000;
    while (ok && reaped && ::access(("/proc/" + std::to_string(pid)).c_str(), F_OK) == 0) {
      if (MonoMs() > until) ok = false;
      SleepMs(1);
    }
    if (!ok) {
      return Failure(FailureKind::kLabFailed,
                     "pid " + std::to_string(pid) + " did not end within 3 s");
    }
    return std::nullopt;
  }
  return Failure(FailureKind::kLabFailed,
                 "pid " + std::to_string(pid) + " is not one the lab started");
}

std::vector<StartedProcess> Session::Started() const {
  std::vector<StartedProcess> out = app_servers_;
  for (const Held& h : held_) out.push_back({h.fd.pid(), h.fd.start_ticks(), h.role});
  out.insert(out.end(), direct_.begin(), direct_.end());
  return out;
}

void Session::Cleanup(std::vector<StartedProcess>* started, std::vector<pid_t>* left_running) {
  if (cleaned_) return;
  cleaned_ = true;
  InterruptsBlocked hold;
  if (app_) Track(app_->pid(), "sandbox");
  for (const StartedProcess& d : direct_) Track(d.pid, "sandbox");
  std::vector<StartedProcess> all = Started();
  // Deepest first: the held processes in reverse order of sight, then the
  // direct children (clone3), then the app-server, which reaps the rest.
  for (auto it = held_.rbegin(); it != held_.rend(); ++it) it->fd.Kill();
  for (auto it = direct_.rbegin(); it != direct_.rend(); ++it) ::kill(it->pid, SIGKILL);
  for (auto it = held_.rbegin(); it != held_.rend(); ++it) it->fd.WaitExited(3000);
  for (const StartedProcess& d : direct_) ReapChild(d.pid);
  if (app_) app_->Stop();
  app_.reset();
  held_.clear();
  ForgetAll();
  if (log_fd_ >= 0) ::close(log_fd_);
  log_fd_ = -1;
  // The directory with everything in it (a temporary a failed write left
  // included), as an interrupt would remove it.
  if (!dir_.empty()) {
    RemoveTemporaryAt(parent_fd_, dir_.substr(dir_.rfind('/') + 1).c_str(), true);
  }
  UnregisterTemporary(dir_slot_);
  dir_slot_ = -1;
  if (parent_fd_ >= 0) ::close(parent_fd_);
  parent_fd_ = -1;
  if (started != nullptr) *started = all;
  if (left_running != nullptr) {
    left_running->clear();
    for (const StartedProcess& p : all) {
      std::optional<StatFields> st = ReadStatOf(p.pid);
      if (st && st->start_ticks == p.start_ticks && st->state != 'Z' && st->state != 'X' &&
          st->state != 'x') {
        left_running->push_back(p.pid);
      }
    }
  }
}

Session::~Session() { Cleanup(nullptr, nullptr); }

}  // namespace proctape::lab
