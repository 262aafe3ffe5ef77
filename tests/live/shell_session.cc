// SPDX-License-Identifier: Apache-2.0
#include "tests/live/shell_session.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "tests/live/files.h"

extern char** environ;

namespace proctape::live {

std::unique_ptr<ShellSession> ShellSession::Start(const std::string& cwd,
                                                  const std::string& path_first,
                                                  std::string* error) {
  std::unique_ptr<ShellSession> s(new ShellSession());
  std::string tmpl = "/tmp/proctape-shell-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) {
    *error = std::string("mkdtemp: ") + std::strerror(errno);
    return nullptr;
  }
  s->scratch_ = tmpl;
  int in[2], status[2];
  if (::pipe2(in, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return nullptr;
  }
  if (::pipe2(status, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    ::close(in[0]);
    ::close(in[1]);
    return nullptr;
  }
  const std::string log = s->scratch_ + "/shell.log";
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  // Everything the child needs, made before fork: it only calls what is
  // async-signal-safe.
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "PATH=", 5) != 0) env.push_back(*e);
  }
  const char* path = ::getenv("PATH");
  env.push_back("PATH=" + path_first + ":" + (path != nullptr ? path : "/usr/bin:/bin"));
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string bash = "/bin/bash", norc = "--norc", noprofile = "--noprofile";
  char* argv[] = {bash.data(), norc.data(), noprofile.data(), nullptr};
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(in[0], 0);
    ::dup2(status[1], 3);
    ::dup2(log_fd, 1);
    ::dup2(log_fd, 2);
    if (::chdir(cwd.c_str()) != 0) ::_exit(126);
    ::execve(argv[0], argv, envp.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(status[1]);
  if (log_fd >= 0) ::close(log_fd);
  s->to_shell_ = in[1];
  s->from_shell_ = status[0];
  if (pid < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    return nullptr;
  }
  s->pid_ = pid;
  return s;
}

ShellSession::~ShellSession() {
  if (to_shell_ >= 0) ::close(to_shell_);  // end of input: bash exits
  if (from_shell_ >= 0) ::close(from_shell_);
  if (pid_ > 0) {
    int status = 0;
    pid_t got = 0;
    for (int i = 0; i < 500 && (got = ::waitpid(pid_, &status, WNOHANG)) == 0; ++i) {
      ::usleep(10'000);
    }
    if (got == 0) {
      ::kill(pid_, SIGKILL);  // our own unreaped child: the pid is still ours
      ::waitpid(pid_, &status, 0);
    }
  }
  std::error_code ec;
  if (!scratch_.empty()) std::filesystem::remove_all(scratch_, ec);
}

ShellSession::Result ShellSession::Run(const std::string& command, int timeout_ms) {
  Result r;
  const std::string out = scratch_ + "/out", err = scratch_ + "/err";
  // A group, so that a trailing comment or '&' stays the command's own; the
  // status line is the shell's, on fd 3, which no command inherits.
  const std::string script =
      "{ " + command + "\n} </dev/null >'" + out + "' 2>'" + err + "' 3>&-\necho \"$?\" >&3\n";
  if (::write(to_shell_, script.data(), script.size()) != static_cast<ssize_t>(script.size())) {
    r.error = std::string("cannot write to the shell: ") + std::strerror(errno);
    return r;
  }
  std::string line;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (line.find('\n') == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.error = "no answer within " + std::to_string(timeout_ms) + " ms";
      return r;
    }
    struct pollfd p = {from_shell_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[64];
    const ssize_t got = ::read(from_shell_, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      r.error = "the shell ended: " + FileBytes(scratch_ + "/shell.log");
      return r;
    }
    line.append(buf, static_cast<std::size_t>(got));
  }
  r.ran = true;
  r.status = std::atoi(line.c_str());
  r.out = FileBytes(out);
  r.err = FileBytes(err);
  return r;
}

}  // namespace proctape::live
