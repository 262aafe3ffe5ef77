// SPDX-License-Identifier: Apache-2.0
// The sandboxes a lab session starts (lab/sandbox.h, lab/session.h).
#include "lab/sandbox.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/proc_parse.h"
#include "lab/session.h"

namespace proctape::lab {
namespace {

// The token and marker are positional parameters: no quoting games.
const char* ScriptText(Script script) {
  switch (script) {
    case Script::kExecSleep:
      return "export PROCTAPE_TOKEN=\"$1\"; echo $$ > \"$2\"; exec /bin/sleep 120";
    case Script::kExecAsSleep:
      return "export PROCTAPE_TOKEN=\"$1\"; echo $$ > \"$2\"; exec -a /bin/sleep \"$3\" 120";
    case Script::kExecOther:
      return "export PROCTAPE_TOKEN=\"$1\"; echo $$ > \"$2\"; exec \"$3\" -f /dev/null";
    case Script::kForkThenExec:
      return "export PROCTAPE_TOKEN=\"$1\"; echo $$ > \"$2\"; /bin/sleep 120 & "
             "exec /bin/sleep 1000";
    case Script::kLateExec:
      return "export PROCTAPE_TOKEN=\"$1\"; echo $$ > \"$2\"; /bin/sleep 0.3; "
             "exec /bin/sleep 120";
    case Script::kNeverExec:
      return "export PROCTAPE_TOKEN=\"$1\"; echo $$ > \"$2\"; while :; do /bin/sleep 1; done";
  }
  return "";
}

}  // namespace

std::string FindOnPath(const std::string& program) {
  for (const char* dir : {"/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"}) {
    std::string candidate = std::string(dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::string StagingBase() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && tmp[0] != '\0' ? tmp : "/tmp";
}

std::string StagingProblem() {
  const std::string base = StagingBase();
  const std::string shown = (std::getenv("TMPDIR") != nullptr && std::getenv("TMPDIR")[0] != '\0'
                                 ? "TMPDIR "
                                 : "the staging directory ") +
                            EscapeBytes(base, 4096);
  if (base[0] != '/') return shown + " is not an absolute path";
  struct stat st;
  if (::stat(base.c_str(), &st) != 0) return shown + ": " + std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return shown + " is not a directory";
  if (::faccessat(AT_FDCWD, base.c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
    return shown + " cannot be written in: " + std::strerror(errno);
  }
  return "";
}

const std::vector<std::string>& BaseEnv() {
  static const std::vector<std::string> env = {"PATH=/usr/bin:/bin", "LC_ALL=C"};
  return env;
}

const char* SandboxName(SandboxKind kind) {
  return kind == SandboxKind::kUnshare ? "unshare" : "bwrap";
}

std::string SandboxUnavailable(SandboxKind kind) {
  const std::string tool = SandboxName(kind);
  const std::string path = FindOnPath(tool);
  if (path.empty()) {
    return tool + " is not installed (Debian: " +
           (kind == SandboxKind::kUnshare ? "util-linux" : "bubblewrap") + ")";
  }
  // Probe: can it make a PID namespace here? (Containers often forbid it.)
  std::vector<std::string> argv = {path};
  const bool root = ::geteuid() == 0;
  if (kind == SandboxKind::kUnshare) {
    if (!root) argv.insert(argv.end(), {"--user", "--map-root-user"});
    argv.insert(argv.end(), {"--pid", "--fork", "--kill-child", "/bin/true"});
  } else {
    if (!root) argv.push_back("--unshare-user");
    argv.insert(argv.end(), {"--unshare-pid", "--die-with-parent", "--dev-bind", "/", "/", "--proc",
                             "/proc", "--", "/bin/true"});
  }
  std::string log_template = StagingBase() + "/proctape-lab-probe-XXXXXX";
  int log_fd = ::mkstemp(log_template.data());
  if (log_fd >= 0) ::unlink(log_template.c_str());
  Failure failure;
  pid_t pid = StartChild(argv, BaseEnv(), log_fd, 0, &failure);
  if (pid < 0) {
    if (log_fd >= 0) ::close(log_fd);
    return tool + " cannot be started: " + failure.message;
  }
  std::int64_t until = MonoMs() + 10000;
  while (!ChildExited(pid) && MonoMs() < until) SleepMs(2);
  ::kill(pid, SIGKILL);  // our unreaped child
  int status = ReapChild(pid);
  std::string said;
  if (log_fd >= 0) {
    char buf[512];
    ssize_t n = ::pread(log_fd, buf, sizeof buf, 0);
    if (n > 0) said.assign(buf, static_cast<std::size_t>(n));
    ::close(log_fd);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
  return tool + " cannot make a PID namespace here" +
         (said.empty() ? std::string() : ": " + EscapeBytes(said, 300));
}

std::vector<std::string> Session::SandboxArgv(Script script, const std::string& token,
                                              const std::string& marker,
                                              const std::string& extra) const {
  const bool root = ::geteuid() == 0;
  std::vector<std::string> argv = {tool_};
  if (kind_ == SandboxKind::kUnshare) {
    if (!root) argv.insert(argv.end(), {"--user", "--map-root-user"});
    argv.insert(argv.end(), {"--pid", "--fork", "--kill-child"});
  } else {
    if (!root) argv.push_back("--unshare-user");
    argv.insert(argv.end(), {"--unshare-pid", "--die-with-parent", "--dev-bind", "/", "/", "--proc",
                             "/proc", "--"});
  }
  // `exec -a` is bash's; everything else is plain sh, as `docs/lab.md`,
  // "What it starts" draws it.
  const bool bash = script == Script::kExecAsSleep;
  argv.insert(argv.end(), {bash ? "/bin/bash" : "/bin/sh", "-c", ScriptText(script),
                           bash ? "bash" : "sh", token, marker, extra});
  return argv;
}

std::optional<std::string> Session::StartSandbox(Script script, const std::string& token,
                                                 const std::string& extra, Failure* failure) {
  if (!app_) {
    *failure = Failure(FailureKind::kLabFailed, "no app-server");
    return std::nullopt;
  }
  std::string marker = Path("marker-" + std::to_string(files_.size()));
  pid_t pid = app_->Spawn(SandboxArgv(script, token, marker, extra), BaseEnv(), failure);
  if (pid < 0) return std::nullopt;
  Track(app_->pid(), "sandbox");
  return marker;
}

}  // namespace proctape::lab
