// SPDX-License-Identifier: Apache-2.0
#include "sandbox/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <seccomp.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>

#include "fs/output_file.h"

// Landlock rights newer than the Debian 12 headers (linux/landlock.h of 6.1).
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

namespace proctape {
namespace {

std::string ErrnoText(int err) {
  const char* name = strerrorname_np(err);
  return name != nullptr ? name : std::to_string(err);
}

// "Argument `arg` differs from `value`", as libseccomp's SCMP_A0_32 and
// SCMP_A1 build it (written out: those macros are C compound literals, which
// clang refuses in C++). `value` is already cut to the width compared.
scmp_arg_cmp ArgDiffers(unsigned arg, scmp_datum_t value) {
  return scmp_arg_cmp{arg, SCMP_CMP_NE, value, 0};
}

bool LoadSeccomp(std::string* error) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr) {
    *error = "seccomp_init failed";
    return false;
  }
  const scmp_datum_t self = static_cast<scmp_datum_t>(::getpid());
  int rc = 0;
  // Signals to proctape itself: kill(getpid()), tgkill(getpid(), any of its
  // threads) (raise() and the interrupt handlers' re-raise), tkill of its
  // main thread (whose tid is its pid), rt_[tg]sigqueueinfo to itself. The
  // first argument compared as 32 bits: a pid_t.
  for (int nr : {SCMP_SYS(kill), SCMP_SYS(tgkill), SCMP_SYS(tkill), SCMP_SYS(rt_sigqueueinfo),
                 SCMP_SYS(rt_tgsigqueueinfo)}) {
    if (rc == 0)
      rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
                            ArgDiffers(0, static_cast<std::uint32_t>(self)));
  }
#if defined(PROCTAPE_ASAN)
  // The sanitizer build's LeakSanitizer stops proctape's own threads with
  // ptrace (from a helper task) at exit: ptrace of proctape's pid stays
  // allowed there, and only there.
  if (rc == 0)
    rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ptrace), 1, ArgDiffers(1, self));
#else
  if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ptrace), 0);
#endif
  for (int nr : {SCMP_SYS(pidfd_send_signal), SCMP_SYS(process_vm_readv),
                 SCMP_SYS(process_vm_writev), SCMP_SYS(pidfd_getfd)}) {
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
  }
  // libseccomp sets no_new_privs itself (SCMP_FLTATR_CTL_NNP).
  if (rc == 0) rc = seccomp_load(ctx);
  seccomp_release(ctx);
  if (rc != 0) {
    *error = "seccomp: " + ErrnoText(-rc);
    return false;
  }
  return true;
}

// PR_GET_SECCOMP fails with EINVAL only where there is no seccomp at all: a
// kernel built without it, or qemu-user, which refuses its guest every
// seccomp call (docs/security.md, "Under qemu-user").
bool RawSeccompAvailable() { return ::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 || errno != EINVAL; }

int RawLandlockAbi() {
  long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : static_cast<int>(abi);
}

// The file-system rights Landlock `abi` knows: all of them are handled, so
// whatever no rule grants is refused.
std::uint64_t HandledRights(int abi) {
  std::uint64_t rights =
      LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
      LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
      LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
      LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
      LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
  return rights;
}

constexpr std::uint64_t kFileRights = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                                      LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE;

// One rule: `rights` on the file or directory `fd` (a directory's rights hold
// beneath it; a file takes only the rights of a file).
bool AddRule(int ruleset, int fd, std::uint64_t rights, std::uint64_t handled, std::string* error) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    *error = "landlock: fstat: " + ErrnoText(errno);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) rights &= kFileRights;
  landlock_path_beneath_attr rule{};
  rule.allowed_access = rights & handled;
  rule.parent_fd = fd;
  if (rule.allowed_access == 0) return true;
  if (::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0) {
    // An inode of no file system a rule can name (an anonymous pipe:
    // /dev/stdin, <(...)): no rule, and the command's own open of it says
    // that it cannot be read ('-' reads standard input).
    if (errno == EBADFD && !S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) return true;
    *error = "landlock_add_rule: " + ErrnoText(errno);
    return false;
  }
  return true;
}

// One rule: `rights` on `path`, opened with `flags` (O_PATH and more). A
// path that is "" or does not open is left out (the command's own open then
// says why), and so is one that is not a regular file when `regular_only`.
bool AddPathRule(int ruleset, const std::string& path, int flags, std::uint64_t rights,
                 std::uint64_t handled, std::string* error, bool regular_only = false) {
  if (path.empty()) return true;
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return true;
  struct stat st {};
  bool ok = true;
  if (!regular_only || (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode))) {
    ok = AddRule(ruleset, fd, rights, handled, error);
  }
  ::close(fd);
  return ok;
}

// The rules of the request's paths: inputs, files beside them, and the
// directories files are made in.
bool AddPathRules(int ruleset, const SandboxPaths& request, std::uint64_t handled,
                  std::string* error) {
  bool ok = true;
  // Inputs: read (a directory: list it, read what is beneath).
  for (const std::string& path : request.reads) {
    if (ok && path != "-") {
      ok = AddPathRule(ruleset, path, O_PATH,
                       LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR, handled, error);
    }
  }
  // Files beside the inputs: a regular file only, the name itself (O_NOFOLLOW:
  // a link is no rule, so its target stays out of reach).
  for (const std::string& path : request.reads_beside) {
    if (ok) {
      ok = AddPathRule(ruleset, path, O_PATH | O_NOFOLLOW, LANDLOCK_ACCESS_FS_READ_FILE, handled,
                       error, /*regular_only=*/true);
    }
  }
  // Directories files are made in once inside: each file made, written,
  // renamed over an earlier one, or removed (fs/output_file.h's rule).
  for (const std::string& path : request.creates_in) {
    if (ok) {
      ok = AddPathRule(ruleset, path, O_PATH | O_DIRECTORY,
                       LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                           LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE,
                       handled, error);
    }
  }
  return ok;
}

// Outputs: the temporary is open already (its writes need no right); its
// directory lets it be renamed to its name (or replace an earlier output)
// and removed. A directory output also fills its temporary directory.
bool AddOutputRules(int ruleset, const SandboxPaths& request, std::uint64_t handled,
                    std::string* error) {
  bool ok = true;
  for (const OutputFile* out : request.outputs) {
    if (!ok) break;
    if (out == nullptr || out->is_stdout()) continue;
    const std::uint64_t entries = LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                                  LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                                  LANDLOCK_ACCESS_FS_READ_DIR;
    ok = AddRule(ruleset, out->directory_fd(),
                 out->is_directory() ? entries
                                     : LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_REMOVE_FILE,
                 handled, error);
    if (ok && out->is_directory()) {
      ok = AddRule(ruleset, out->fd(),
                   entries | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
                       LANDLOCK_ACCESS_FS_TRUNCATE,
                   handled, error);
    }
  }
  return ok;
}

bool LoadLandlock(const SandboxPaths& request, int abi, std::string* error) {
  const std::uint64_t handled = HandledRights(abi);
  landlock_ruleset_attr attr{};
  attr.handled_access_fs = handled;
  int ruleset = static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0));
  if (ruleset < 0) {
    *error = "landlock_create_ruleset: " + ErrnoText(errno);
    return false;
  }
  bool ok = AddPathRules(ruleset, request, handled, error) &&
            AddOutputRules(ruleset, request, handled, error);
#if defined(PROCTAPE_ASAN)
  // The sanitizer build's LeakSanitizer reads proctape's own /proc/PID (task,
  // maps) at exit: readable there, and only there.
  if (ok) {
    ok = AddPathRule(ruleset, "/proc/self", O_PATH | O_DIRECTORY,
                     LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR, handled, error);
  }
#endif
  if (ok && ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    *error = "no_new_privs: " + ErrnoText(errno);
    ok = false;
  }
  if (ok && ::syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
    *error = "landlock_restrict_self: " + ErrnoText(errno);
    ok = false;
  }
  ::close(ruleset);
  return ok;
}

}  // namespace

int LandlockAbi() { return RawLandlockAbi(); }
bool SeccompAvailable() { return RawSeccompAvailable(); }

MaybeFailure InstallLandlock(const SandboxPaths& paths, int abi) {
  std::string error;
  if (LoadLandlock(paths, abi, &error)) return std::nullopt;
  return Failure(FailureKind::kInternal, error);
}

MaybeFailure InstallSeccomp() {
  std::string error;
  if (LoadSeccomp(&error)) return std::nullopt;
  return Failure(FailureKind::kInternal, error);
}

std::string ProbeSandbox() {
  auto outcome = [](long rc) { return rc == 0 ? std::string("0") : ErrnoText(errno); };
  const pid_t parent = ::getppid();
  std::string line = "kill " + outcome(::kill(parent, 0));
  long traced = ::ptrace(PTRACE_SEIZE, parent, nullptr, nullptr);
  line += ", ptrace " + outcome(traced);
  if (traced == 0) ::ptrace(PTRACE_DETACH, parent, nullptr, nullptr);  // the jail failed
  int fd = ::open("/proc/1/stat", O_RDONLY | O_CLOEXEC);
  line += ", proc " + outcome(fd >= 0 ? 0 : -1);
  if (fd >= 0) ::close(fd);
  line += ", self " + outcome(::kill(::getpid(), 0));
  return line;
}

}  // namespace proctape
