// SPDX-License-Identifier: Apache-2.0
#include "lab/app_server.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <set>

#include "lab/procs.h"

namespace proctape::lab {
namespace {

// Requests: u32 argc, u32 envc, then argc + envc strings (u32 length, bytes).
// Reply: one i32, the child's pid or -1 (the reason goes to the log).

bool WriteAll(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool ReadAll(int fd, void* data, std::size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    ssize_t n = ::read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool ReadStrings(int fd, std::uint32_t count, std::vector<std::string>* out) {
  for (std::uint32_t i = 0; i < count; ++i) {
    std::uint32_t size = 0;
    if (!ReadAll(fd, &size, sizeof size) || size > (1u << 20)) return false;
    std::string s(size, '\0');
    if (!ReadAll(fd, s.data(), size)) return false;
    out->push_back(std::move(s));
  }
  return true;
}

// Our children now, adopted orphans included (/proc/self/task/*/children).
std::set<pid_t> OwnChildren() {
  std::set<pid_t> out;
  DIR* tasks = ::opendir("/proc/self/task");
  if (tasks == nullptr) return out;
  while (struct dirent* t = ::readdir(tasks)) {
    if (t->d_name[0] == '.') continue;
    std::string path = std::string("/proc/self/task/") + t->d_name + "/children";
    FILE* f = std::fopen(path.c_str(), "re");
    if (f == nullptr) continue;
    long pid;
    while (std::fscanf(f, "%ld", &pid) == 1) out.insert(static_cast<pid_t>(pid));
    std::fclose(f);
  }
  ::closedir(tasks);
  return out;
}

[[noreturn]] void ServeMain(int ctl, int reply, int log_fd) {
  ::signal(SIGINT, SIG_IGN);  // the lab handles an interrupt and closes the pipe
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  ::prctl(PR_SET_NAME, "app-server");
  for (;;) {
    struct pollfd p {
      ctl, POLLIN, 0
    };
    int n = ::poll(&p, 1, 20);
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    if (n < 0 && errno != EINTR) break;
    if (n <= 0) continue;
    std::uint32_t counts[2];
    std::vector<std::string> argv, env;
    if (!ReadAll(ctl, counts, sizeof counts) || !ReadStrings(ctl, counts[0], &argv) ||
        !ReadStrings(ctl, counts[1], &env)) {
      break;  // the lab closed the pipe (or died)
    }
    Failure failure;
    std::int32_t pid = StartChild(argv, env, log_fd, 0, &failure);
    if (pid < 0) {
      std::string line = "app-server: " + failure.message + "\n";
      (void)!::write(log_fd, line.data(), line.size());
    }
    if (!WriteAll(reply, &pid, sizeof pid)) break;
  }
  // Every child still unreaped is ours to end by pid; repeat until none is
  // left (orphans adopted meanwhile are children too).
  for (int round = 0; round < 500; ++round) {
    std::set<pid_t> children = OwnChildren();
    if (children.empty()) break;
    for (pid_t child : children) ::kill(child, SIGKILL);
    SleepMs(5);
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
  }
  ::_exit(0);
}

}  // namespace

std::unique_ptr<AppServer> AppServer::Start(int log_fd, Failure* failure) {
  auto failed = [failure](const char* call) {
    const int e = errno;
    *failure = Failure(FailureKind::kLabFailed, std::string(call) + ": " + std::strerror(e), e);
  };
  int ctl[2], reply[2];
  if (::pipe2(ctl, O_CLOEXEC) != 0) {
    failed("pipe");
    return nullptr;
  }
  if (::pipe2(reply, O_CLOEXEC) != 0) {
    failed("pipe");
    ::close(ctl[0]);
    ::close(ctl[1]);
    return nullptr;
  }
  std::unique_ptr<AppServer> server(new AppServer());
  const pid_t lab = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    failed("fork");
    for (int fd : {ctl[0], ctl[1], reply[0], reply[1]}) ::close(fd);
    return nullptr;
  }
  if (pid == 0) {
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != lab) ::_exit(127);
    ::setpgid(0, 0);  // a terminal's ^C reaches the lab alone, which cleans up
    ::close(ctl[1]);
    ::close(reply[0]);
    ServeMain(ctl[0], reply[1], log_fd);
  }
  ::close(ctl[0]);
  ::close(reply[1]);
  server->pid_ = pid;
  server->ctl_ = ctl[1];
  server->reply_ = reply[0];
  std::optional<StatFields> st = ReadStatOf(pid);
  if (!st) {
    *failure = Failure(FailureKind::kLabFailed,
                       "the app-server " + std::to_string(pid) + " has no readable stat");
    return nullptr;  // the destructor ends it
  }
  server->start_ticks_ = st->start_ticks;
  return server;
}

pid_t AppServer::Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                       Failure* failure) {
  std::string message;
  auto put32 = [&message](std::uint32_t v) {
    message.append(reinterpret_cast<const char*>(&v), sizeof v);
  };
  put32(static_cast<std::uint32_t>(argv.size()));
  put32(static_cast<std::uint32_t>(env.size()));
  for (const auto* list : {&argv, &env}) {
    for (const std::string& s : *list) {
      put32(static_cast<std::uint32_t>(s.size()));
      message += s;
    }
  }
  std::int32_t pid = -1;
  if (ctl_ < 0 || !WriteAll(ctl_, message.data(), message.size()) ||
      !ReadAll(reply_, &pid, sizeof pid)) {
    *failure = Failure(FailureKind::kLabFailed,
                       "the app-server " + std::to_string(pid_) + " no longer answers");
    return -1;
  }
  if (pid < 0) {
    *failure = Failure(FailureKind::kLabFailed,
                       "the app-server could not start " + argv[0] + " (see the lab log)");
  }
  return pid;
}

void AppServer::Stop(int timeout_ms) {
  if (ctl_ >= 0) ::close(ctl_);
  if (reply_ >= 0) ::close(reply_);
  ctl_ = reply_ = -1;
  if (pid_ <= 0) return;
  std::int64_t until = MonoMs() + timeout_ms;
  while (!ChildExited(pid_) && MonoMs() < until) SleepMs(2);
  ::kill(pid_, SIGKILL);  // our unreaped child: the pid is still its own
  ReapChild(pid_);
  pid_ = -1;
}

AppServer::~AppServer() { Stop(); }

}  // namespace proctape::lab
