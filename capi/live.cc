// SPDX-License-Identifier: Apache-2.0
// The live host through the C ABI (include/proctape.h): names, fingerprint,
// resolve, liveness, and the pidfd pinned to a resolved identity.
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "capi/edge.h"

using namespace proctape;
using namespace proctape::capi;

namespace {

// The C++ names are string literals: NUL-terminated.
const char* Name(std::string_view name) noexcept { return name.data(); }

// One rule for every *_name (include/proctape.h): the enumerator's name
// without its prefix, "UNKNOWN" for a value that has no enumerator.
template <std::size_t N>
const char* Named(const char* const (&names)[N], int value) noexcept {
  return value >= 0 && static_cast<std::size_t>(value) < N ? names[value] : "UNKNOWN";
}
constexpr const char* kStatusNames[] = {
    "OK",       "INVALID_ARGUMENT", "PROC",           "ROOT",
    "EXE",      "OTHER_BOOT",       "RECORD_REFUSED", "RECORD_FAILED",
    "IO",       "NOT_PTAPE",        "NEWER_VERSION",  "TRUNCATED",
    "CHECKSUM", "CORRUPT",          "TOO_LARGE",      "NOT_A_FINGERPRINT",
    "INTERNAL", "NOT_PINNED"};
constexpr const char* kLivenessNames[] = {"NONE", "ALIVE", "DEAD", "ERROR"};
constexpr const char* kOutcomeNames[] = {"UNKNOWN", "REPRODUCED", "VERDICT_CHANGED", "DIVERGED"};

// strerror's text, thread-safe (strerror is not).
std::string ErrnoText(int e) {
  const char* text = ::strerrordesc_np(e);
  return text != nullptr ? text : "errno " + std::to_string(e);
}

// Closes a descriptor not handed to the caller, whatever throws.
struct FdOwner {
  int fd;
  ~FdOwner() {
    if (fd >= 0) ::close(fd);
  }
  int release() { return std::exchange(fd, -1); }
};

// The whole of a small /proc file, or false (errno in *error).
bool ReadSmall(const std::string& path, std::string* out, int* error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = errno;
    return false;
  }
  char buf[4096];
  out->clear();
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) *error = errno;
    if (n <= 0) {
      ::close(fd);
      return n == 0;
    }
    out->append(buf, static_cast<std::size_t>(n));
    if (out->size() > (1u << 20)) {
      ::close(fd);
      *error = EFBIG;
      return false;
    }
  }
}

// The "Pid:" value of a pidfd's fdinfo (-1: its process was reaped). Only
// a pidfd's fdinfo has that line: without it *pid is kNotPidfd.
constexpr long long kNotPidfd = -2;
bool PidOf(const std::string& proc_root, int pidfd, long long* pid, int* error) {
  std::string text;
  if (!ReadSmall(proc_root + "/self/fdinfo/" + std::to_string(pidfd), &text, error)) return false;
  *pid = kNotPidfd;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (text.compare(at, 4, "Pid:") == 0) {
      *pid = std::strtoll(text.c_str() + at + 4, nullptr, 10);
      break;
    }
    at = end + 1;
  }
  return true;
}

}  // namespace

extern "C" {

const char* proctape_version(void) { return Name(api::Version()); }
const char* proctape_status_name(int status) { return Named(kStatusNames, status); }
const char* proctape_verdict_status_name(int status) {
  if (status == PROCTAPE_VERDICT_NONE) return "NONE";
  if (status < PROCTAPE_RESOLVED || status > PROCTAPE_INVALID_REQUEST) return "UNKNOWN";
  return Name(api::StatusName(static_cast<api::Status>(status)));
}
const char* proctape_liveness_name(int liveness) { return Named(kLivenessNames, liveness); }
const char* proctape_replay_outcome_name(int outcome) { return Named(kOutcomeNames, outcome); }

void proctape_request_init(proctape_request* request) {
  if (request == nullptr) return;
  const api::Request defaults;
  *request = proctape_request{};
  request->deadline_ms = defaults.deadline_ms;
  request->byte_budget = defaults.byte_budget;
}

proctape_status proctape_fingerprint_take(int64_t root_pid, const char* exe_path,
                                          const proctape_options* options,
                                          proctape_fingerprint* out, int* root_status,
                                          proctape_error* err) {
  return Edge(err, [&] {
    if (out == nullptr) return Report(err, PROCTAPE_E_INVALID_ARGUMENT, "out is NULL");
    *out = proctape_fingerprint{};
    const std::string exe = exe_path != nullptr ? exe_path : "/bin/sleep";
    if (exe.size() >= sizeof out->exe_path) {
      return Report(err, PROCTAPE_E_INVALID_ARGUMENT, "exe_path is longer than PROCTAPE_PATH_MAX");
    }
    api::FingerprintResult r = api::TakeFingerprint(root_pid, exe, ToOptions(options));
    if (root_status != nullptr) {  // why the root failed; none for any other outcome
      *root_status = r.error.code == api::ErrorCode::kRoot ? static_cast<int>(r.root_status)
                                                           : PROCTAPE_VERDICT_NONE;
    }
    if (r.ok()) FromFingerprint(r.fingerprint, out);
    return Report(err, r.error);
  });
}

proctape_status proctape_resolve(const proctape_request* request,
                                 const proctape_fingerprint* fingerprint,
                                 const proctape_record_policy* record,
                                 const proctape_options* options, proctape_resolve_result* out,
                                 proctape_error* err) {
  return Edge(err, [&] {
    if (out == nullptr) return Report(err, PROCTAPE_E_INVALID_ARGUMENT, "out is NULL");
    *out = proctape_resolve_result{};
    if (request == nullptr || fingerprint == nullptr) {
      return Report(err, PROCTAPE_E_INVALID_ARGUMENT, "request or fingerprint is NULL");
    }
    api::Request req;
    req.token = request->token != nullptr ? request->token : "";
    if (request->token_var != nullptr) req.token_var = request->token_var;
    if (request->argv != nullptr) {
      req.argv.clear();
      for (std::size_t i = 0; i < request->argc; ++i) {
        if (request->argv[i] == nullptr) {
          return Report(err, PROCTAPE_E_INVALID_ARGUMENT,
                        "argv[" + std::to_string(i) + "] is NULL");
        }
        req.argv.emplace_back(request->argv[i]);
      }
    }
    req.deadline_ms = request->deadline_ms;
    req.byte_budget = request->byte_budget;
    api::RecordPolicy policy;
    if (record != nullptr) {
      if (record->when < PROCTAPE_RECORD_NEVER || record->when > PROCTAPE_RECORD_ALWAYS) {
        return Report(err, PROCTAPE_E_INVALID_ARGUMENT,
                      "record.when is not a proctape_record_when");
      }
      policy.when = static_cast<api::Record>(record->when);
      if (record->path != nullptr) policy.path = record->path;
      policy.replace = record->replace != 0;
    }
    api::ResolveResult r =
        api::Resolve(req, ToFingerprint(*fingerprint), policy, ToOptions(options));
    out->ran = r.ran;
    if (r.ran) FromVerdict(r.verdict, &out->verdict);  // else zero: no verdict
    CopyText(out->recording, r.recording);
    return Report(err, r.error);
  });
}

proctape_status proctape_liveness_check(const proctape_identity* identity,
                                        const proctape_options* options,
                                        proctape_liveness_verdict* out, proctape_error* err) {
  return Edge(err, [&] {
    if (identity == nullptr || out == nullptr) {
      return Report(err, PROCTAPE_E_INVALID_ARGUMENT, "identity or out is NULL");
    }
    const api::ProcessIdentity id{
        identity->pid, identity->start_ticks,
        std::string(identity->boot_id, strnlen(identity->boot_id, sizeof identity->boot_id))};
    api::LivenessResult r = api::CheckLiveness(id, ToOptions(options));
    FromLiveness(r.verdict, out);
    return Report(err, r.error);
  });
}

proctape_status proctape_pin(const proctape_verdict* verdict, const proctape_options* options,
                             int* pidfd, proctape_error* err) {
  return Edge(err, [&] {
    if (verdict == nullptr || pidfd == nullptr) {
      return Report(err, PROCTAPE_E_INVALID_ARGUMENT, "verdict or pidfd is NULL");
    }
    *pidfd = -1;
    if (verdict->status != PROCTAPE_RESOLVED) {
      return Report(err, PROCTAPE_E_INVALID_ARGUMENT,
                    std::string("the verdict is ") + proctape_verdict_status_name(verdict->status) +
                        " (status " + std::to_string(verdict->status) +
                        "), not RESOLVED: it has no identity to pin");
    }
    const long opened = ::syscall(SYS_pidfd_open, static_cast<pid_t>(verdict->pid), 0);
    if (opened < 0) {
      const int e = errno;
      const std::string what = "pidfd_open(" + std::to_string(verdict->pid) + "): " + ErrnoText(e);
      return Report(err, e == ESRCH ? PROCTAPE_E_NOT_PINNED : PROCTAPE_E_PROC, what);
    }
    FdOwner fd{static_cast<int>(opened)};  // close-on-exec: pidfd_open's own
    // After the open: the pid is held, so the stat read now is of the
    // process the pidfd names. Its start tick and state decide (the identity's boot too).
    proctape_identity id{};
    id.pid = verdict->pid;
    id.start_ticks = verdict->start_ticks;
    std::memcpy(id.boot_id, verdict->boot_id, sizeof id.boot_id);
    id.boot_id[sizeof id.boot_id - 1] = '\0';
    proctape_liveness_verdict live{};
    const proctape_status s = proctape_liveness_check(&id, options, &live, err);
    if (s != PROCTAPE_OK) return s;
    if (live.status != PROCTAPE_ALIVE) {
      return Report(err, PROCTAPE_E_NOT_PINNED,
                    "pid " + std::to_string(verdict->pid) + ", start tick " +
                        std::to_string(verdict->start_ticks) + ": " +
                        proctape_liveness_name(live.status) +
                        (live.status == PROCTAPE_LIVENESS_ERROR
                             ? std::string(" ") + proctape_verdict_status_name(live.reason)
                             : std::string()) +
                        (live.detail[0] != '\0' ? std::string(" (") + live.detail + ")" : ""));
    }
    *pidfd = fd.release();
    return Report(err, PROCTAPE_OK, "");
  });
}

proctape_status proctape_liveness_pidfd(int pidfd, const proctape_options* options,
                                        proctape_liveness_verdict* out, proctape_error* err) {
  return Edge(err, [&] {
    if (out == nullptr) return Report(err, PROCTAPE_E_INVALID_ARGUMENT, "out is NULL");
    *out = proctape_liveness_verdict{};
    out->status = PROCTAPE_LIVENESS_ERROR;
    out->reason = PROCTAPE_UNREADABLE;
    if (pidfd < 0) return Report(err, PROCTAPE_E_INVALID_ARGUMENT, "pidfd is negative");
    const std::string proc = ToOptions(options).proc_root;
    long long pid = -1;
    int e = 0;
    if (!PidOf(proc, pidfd, &pid, &e)) {
      const std::string what =
          "fdinfo of descriptor " + std::to_string(pidfd) + ": " + ErrnoText(e);
      return Report(err, e == ENOENT ? PROCTAPE_E_INVALID_ARGUMENT : PROCTAPE_E_PROC, what);
    }
    if (pid == kNotPidfd) {
      return Report(err, PROCTAPE_E_INVALID_ARGUMENT,
                    "fd " + std::to_string(pidfd) + " is not a pidfd");
    }
    auto dead = [&](const std::string& detail) {
      out->status = PROCTAPE_DEAD;
      CopyText(out->detail, detail);
      return Report(err, PROCTAPE_OK, "");
    };
    if (pid < 0) return dead("the pidfd's process was reaped (Pid: -1)");
    if (pid == 0) {
      CopyText(out->detail, "the pidfd's process is in no PID namespace of ours (Pid: 0)");
      return Report(err, PROCTAPE_OK, "");
    }
    std::string stat;
    if (!ReadSmall(proc + "/" + std::to_string(pid) + "/stat", &stat, &e)) stat.clear();
    long long again = -1;
    if (!PidOf(proc, pidfd, &again, &e)) {
      return Report(err, PROCTAPE_E_PROC,
                    "fdinfo of descriptor " + std::to_string(pidfd) + ": " + ErrnoText(e));
    }
    if (again != pid) return dead("the pidfd's process was reaped (Pid: -1)");
    // Still the same pid: the stat read (if any) was this process's.
    const std::size_t paren = stat.rfind(')');
    if (paren == std::string::npos || paren + 2 >= stat.size()) {
      out->err = e;
      CopyText(out->detail, "pid " + std::to_string(pid) + ": stat unreadable");
      return Report(err, PROCTAPE_OK, "");
    }
    const char state = stat[paren + 2];
    CopyText(out->state, std::string(1, state));
    if (state == 'Z' || state == 'X' || state == 'x') {
      return dead("pid " + std::to_string(pid) + " has exited (state " + std::string(1, state) +
                  ")");
    }
    out->status = PROCTAPE_ALIVE;
    out->reason = PROCTAPE_RESOLVED;
    return Report(err, PROCTAPE_OK, "");
  });
}

}  // extern "C"
