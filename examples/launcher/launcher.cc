// SPDX-License-Identifier: Apache-2.0
// A launcher that starts a sandbox and finds its child's host identity
// in-process through the proctape library (docs/library.md):
//
//   1. before the turn: fingerprint itself, the root the sandbox is started
//      beneath (TakeFingerprint);
//   2. the turn: `unshare --pid --fork --kill-child /bin/sleep 120` (or
//      `bwrap --unshare-pid`), the token in its environment only;
//   3. resolve the sleep (Resolve), recording on failure to --record FILE;
//   4. print the identity, check its liveness, end the sandbox by its pid.
//
//   launcher [--sandbox unshare|bwrap] [--record FILE] [--wrong-token]
//
// --wrong-token resolves with another token than the sandbox's: the verdict
// is then TOKEN_MISMATCH and FILE is left for `proctape replay FILE`.
// Exit: 0 RESOLVED, 1 another verdict, 2 usage, 3 an error of the library or
// of starting the sandbox.
#include <proctape/proctape.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern char** environ;

namespace {

// Host bytes (a verdict's detail may quote them) printed escaped.
std::string Escaped(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

std::string RandomToken() {
  std::random_device rd;
  std::string token;
  for (int i = 0; i < 16; ++i) token += "0123456789abcdef"[rd() % 16];
  return token;
}

// The sandbox, our direct child: argv[0] absolute; PROCTAPE_TOKEN=token is
// added to our environment for it (never to its command line). The child
// dies with us (PR_SET_PDEATHSIG).
pid_t StartSandbox(const std::vector<std::string>& argv, const std::string& token) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "PROCTAPE_TOKEN=", 15) != 0) env.emplace_back(*e);
  }
  env.push_back("PROCTAPE_TOKEN=" + token);
  std::vector<char*> cargv, cenv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  for (const std::string& e : env) cenv.push_back(const_cast<char*>(e.c_str()));
  cargv.push_back(nullptr);
  cenv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);
    ::execve(cargv[0], cargv.data(), cenv.data());
    ::_exit(127);
  }
  return pid;
}

// Ends the sandbox we started: it is our unreaped child, so its pid is still
// its own; --kill-child / --die-with-parent take the sleep with it.
void EndSandbox(pid_t pid) {
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string sandbox = "unshare", record = "launcher-failure.ptape";
  bool wrong_token = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--sandbox" && i + 1 < argc) {
      sandbox = argv[++i];
    } else if (a == "--record" && i + 1 < argc) {
      record = argv[++i];
    } else if (a == "--wrong-token") {
      wrong_token = true;
    } else {
      std::fprintf(stderr,
                   "usage: launcher [--sandbox unshare|bwrap] [--record FILE] [--wrong-token]\n");
      return 2;
    }
  }
  std::vector<std::string> command;
  if (sandbox == "unshare") {
    command = {"/usr/bin/unshare", "--pid", "--fork", "--kill-child", "/bin/sleep", "120"};
  } else if (sandbox == "bwrap") {
    command = {"/usr/bin/bwrap",
               "--unshare-pid",
               "--die-with-parent",
               "--dev-bind",
               "/",
               "/",
               "/bin/sleep",
               "120"};
  } else {
    std::fprintf(stderr, "launcher: --sandbox is unshare or bwrap, not %s\n",
                 Escaped(sandbox).c_str());
    return 2;
  }

  // 1. Before the turn: this process is the root the sandbox starts beneath.
  namespace pt = proctape::api;
  pt::FingerprintResult fingerprint = pt::TakeFingerprint(::getpid(), "/bin/sleep");
  if (!fingerprint.ok()) {
    std::fprintf(stderr, "launcher: %s\n", fingerprint.error.message.c_str());
    return 3;
  }
  // 2. The turn.
  const std::string token = RandomToken();
  const pid_t child = StartSandbox(command, token);
  if (child < 0) {
    std::fprintf(stderr, "launcher: fork: %s\n", std::strerror(errno));
    return 3;
  }
  // 3. Resolve the sleep in-process, recording only if it fails.
  pt::Request request;
  request.token = wrong_token ? "not-" + token : token;
  if (wrong_token) request.deadline_ms = 500;
  pt::ResolveResult result =
      pt::Resolve(request, fingerprint.fingerprint, {pt::Record::kOnFailure, record, true});
  // 4. Say what was found, then end what we started.
  int status = 0;
  if (!result.ran) {
    std::fprintf(stderr, "launcher: %s\n", result.error.message.c_str());
    status = 3;
  } else if (result.verdict.resolved()) {
    pt::LivenessResult alive = pt::CheckLiveness(result.verdict.identity());
    std::printf("RESOLVED host pid %lld, start tick %llu (%s)\n",
                static_cast<long long>(result.verdict.pid),
                static_cast<unsigned long long>(result.verdict.start_ticks),
                std::string(pt::LivenessName(alive.verdict.status)).c_str());
  } else {
    std::printf("%s: %s\n", std::string(pt::StatusName(result.verdict.status)).c_str(),
                Escaped(result.verdict.detail).c_str());
    if (!result.recording.empty()) std::printf("recording left: %s\n", result.recording.c_str());
    if (!result.error.ok()) std::fprintf(stderr, "launcher: %s\n", result.error.message.c_str());
    status = 1;
  }
  EndSandbox(child);
  return status;
}
