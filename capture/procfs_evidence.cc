// SPDX-License-Identifier: Apache-2.0
#include "capture/procfs_evidence.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "capture/bounded_read.h"
#include "capture/clock.h"

namespace proctape {
namespace {

bool AllDigits(const char* name) {
  if (*name == '\0') return false;
  for (const char* c = name; *c != '\0'; ++c) {
    if (*c < '0' || *c > '9') return false;
  }
  return true;
}

// "PID/leaf", written on the caller's stack: no allocation per
// call (the capture makes seven per process). The longest: 19 digits,
// "/ns/pid", NUL.
struct PidPath {
  char text[40];
  PidPath(std::int64_t pid, std::string_view leaf) {
    char digits[20];
    std::size_t n = 0;
    const std::uint64_t bits = static_cast<std::uint64_t>(pid);
    std::uint64_t v = pid < 0 ? 0 - bits : bits;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    std::size_t at = 0;
    if (pid < 0) text[at++] = '-';  // never a listed pid; written as to_string would
    while (n > 0) text[at++] = digits[--n];
    text[at++] = '/';
    leaf = leaf.substr(0, sizeof text - 1 - at);
    std::memcpy(text + at, leaf.data(), leaf.size());
    text[at + leaf.size()] = '\0';
  }
  const char* c_str() const { return text; }
};

Identity IdentityOf(const struct stat& st) {
  return Identity{0, static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

}  // namespace

std::unique_ptr<ProcfsEvidence> ProcfsEvidence::Open(const std::string& proc_root,
                                                     Failure* failure) {
  int fd = ::open(proc_root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    *failure = IoFailure("cannot open " + proc_root, errno);
    failure->kind = FailureKind::kInternal;
    return nullptr;
  }
  // The one check every live command gets: the descriptor is a procfs (its
  // superblock magic) and its root (PROC_ROOT_INO, 1), where the pid
  // directories are. Checked on the descriptor that is then read, so the
  // path cannot be swapped in between.
  struct statfs fs;
  struct stat st;
  if (::fstatfs(fd, &fs) != 0 || ::fstat(fd, &st) != 0) {
    *failure = IoFailure("cannot open " + proc_root, errno);
    failure->kind = FailureKind::kInternal;
    ::close(fd);
    return nullptr;
  }
  constexpr ino_t kProcRootIno = 1;
  if (fs.f_type != PROC_SUPER_MAGIC || st.st_ino != kProcRootIno) {
    char what[96];
    if (fs.f_type != PROC_SUPER_MAGIC) {
      std::snprintf(what, sizeof what, "filesystem type 0x%lx, not procfs 0x%x",
                    static_cast<unsigned long>(fs.f_type), static_cast<unsigned>(PROC_SUPER_MAGIC));
    } else {
      std::snprintf(what, sizeof what, "a directory inside procfs, not its root");
    }
    *failure = Failure(FailureKind::kUsage,
                       proc_root + ": not the root of a procfs mount (" + what +
                           "); a /proc-like directory is imported with 'capture --proc-root'");
    ::close(fd);
    return nullptr;
  }
  return std::unique_ptr<ProcfsEvidence>(new ProcfsEvidence(fd));
}

ProcfsEvidence::~ProcfsEvidence() { ::close(proc_fd_); }

ListResult ProcfsEvidence::ListPids(std::uint64_t bound) {
  return ListPidsWithin(ListLimits{bound});
}

ListResult ProcfsEvidence::ListPidsWithin(const ListLimits& limits) {
  // The clock is read at the first entry and then once every kClockEvery: a
  // listing of 65,536 pids reads it 257 times (a vDSO call each), stops at
  // once past a deadline already gone, and passes one by at most the time
  // 256 entries take.
  constexpr std::uint64_t kClockEvery = 256;
  ListResult out;
  // A fresh descriptor per listing: readdir's position is per description.
  int fd = ::openat(proc_fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    out.err = FailedErrno();
    return out;
  }
  DIR* dir = ::fdopendir(fd);
  if (dir == nullptr) {
    out.err = FailedErrno();
    ::close(fd);
    return out;
  }
  names_.clear();
  std::uint64_t entries = 0;
  for (;;) {
    errno = 0;
    struct dirent* entry = ::readdir(dir);
    if (entry == nullptr) {
      if (errno != 0) out.err = errno;
      break;
    }
    // What getdents handed over for it (glibc's readdir returns the
    // kernel's record): every entry costs, numeric or not.
    out.bytes += entry->d_reclen;
    if (out.bytes > limits.max_bytes) {
      out.stopped = ListStop::kBytes;
      break;
    }
    if (entries++ % kClockEvery == 0 && NowNs() > limits.deadline_ns) {
      out.stopped = ListStop::kDeadline;
      break;
    }
    if (!AllDigits(entry->d_name)) continue;
    if (names_.size() == limits.max_entries) {
      out.truncated = true;
      break;
    }
    names_.emplace_back(entry->d_name);
  }
  ::closedir(dir);
  // Views only once names_ is complete: growing it moves its strings.
  out.names.assign(names_.begin(), names_.end());
  return out;
}

ReadResult ProcfsEvidence::ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) {
  ReadResult out;
  int fd;
  do {
    fd = ::openat(proc_fd_, PidPath(pid, ProcFileName(file)).c_str(),
                  O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    out.err = FailedErrno();
    return out;
  }
  return ReadBoundedAndClose(fd, bound, &buffer_);
}

Identity ProcfsEvidence::ExeIdentity(std::int64_t pid) {
  struct stat st;
  // Follows the magic link to the executable itself: identity is st_dev +
  // st_ino, never the link's text (/bin/sleep and /usr/bin/sleep are one).
  if (::fstatat(proc_fd_, PidPath(pid, "exe").c_str(), &st, 0) != 0) {
    return Identity{FailedErrno(), 0, 0};
  }
  return IdentityOf(st);
}

Identity ProcfsEvidence::PidNamespace(std::int64_t pid) {
  struct stat st;
  // Follows the magic link into nsfs: st_ino is the namespace inode.
  if (::fstatat(proc_fd_, PidPath(pid, "ns/pid").c_str(), &st, 0) != 0) {
    return Identity{FailedErrno(), 0, 0};
  }
  return IdentityOf(st);
}

Identity ProcfsEvidence::PathIdentity(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Identity{FailedErrno(), 0, 0};
  return IdentityOf(st);
}

std::int64_t ProcfsEvidence::NowNs() { return MonotonicNowNs(); }

void ProcfsEvidence::SleepUntil(std::int64_t mono_ns) { SleepUntilMonotonic(mono_ns); }

}  // namespace proctape
