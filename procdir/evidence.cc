// SPDX-License-Identifier: Apache-2.0
#include "procdir/evidence.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "capture/bounded_read.h"
#include "capture/clock.h"
#include "core/proc_parse.h"

namespace proctape {
namespace {

constexpr const char* kFrameFile = kProcDirFrameFile;
constexpr const char* kIdentityFile = kProcDirIdentityFile;
constexpr std::size_t kIdentityFileBound = 4096;
constexpr std::size_t kFrameFileBound = 16u << 20;
constexpr std::uint64_t kPidMaxLimit = 4194304;

// The one way a path under DIR is opened (see the header): the kernel
// resolves `path` beneath `dir_fd`, never out of it, through no magic link
// and across no mount; with O_NOFOLLOW in `flags`, a last component that is a
// link is not followed either. -1 with errno set on failure; EINTR and
// EAGAIN (a rename or mount raced the walk) are retried a few times.
int OpenBeneath(int dir_fd, const std::string& path, std::uint64_t flags) {
  struct open_how how;
  std::memset(&how, 0, sizeof how);
  how.flags = flags | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
  for (int tries = 0;; ++tries) {
    long fd = ::syscall(SYS_openat2, dir_fd, path.c_str(), &how, sizeof how);
    if (fd >= 0) return static_cast<int>(fd);
    if ((errno != EINTR && errno != EAGAIN) || tries == 16) return -1;
  }
}

// What a path of DIR that is not a regular file (a FIFO, a device, a
// socket, a directory) answers when read.
constexpr int kNotRegular = EINVAL;

// At most `bound` bytes of `path` under `dir_fd` (bound + 1 read, so a file of
// exactly `bound` bytes is whole and one more is `truncated`), into *buffer.
ReadResult ReadBeneath(int dir_fd, const std::string& path, std::uint64_t bound,
                       std::vector<char>* buffer) {
  ReadResult out;
  // O_NONBLOCK: opening a FIFO (or a device) of DIR must not wait for a
  // writer; the type is then checked before any read, and only a regular
  // file is read: anything else is EINVAL, an entry the record keeps as
  // damaged, never a capture that blocks.
  int fd = OpenBeneath(dir_fd, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    out.err = FailedErrno();
    return out;
  }
  struct stat st;
  const bool stated = ::fstat(fd, &st) == 0;
  if (!stated || !S_ISREG(st.st_mode)) {
    out.err = stated ? kNotRegular : FailedErrno();
    ::close(fd);
    return out;
  }
  return ReadBoundedAndClose(fd, bound, buffer);
}

// A side file: errno, or EFBIG when it holds more than `bound` bytes.
int ReadSideFile(int dir_fd, const std::string& path, std::size_t bound, std::string* out) {
  std::vector<char> buffer;
  ReadResult r = ReadBeneath(dir_fd, path, bound, &buffer);
  if (!r.ok()) return r.err;
  if (r.truncated) return EFBIG;
  *out = std::string(r.data);
  return 0;
}

// Why a side file cannot be read, from ReadSideFile's errno (not 0): a side
// file is read only as a regular file of the directory, within its bound.
std::string SideFileProblem(int err, std::uint64_t bound) {
  if (err == EFBIG) return "over " + std::to_string(bound) + " bytes";
  if (err == ELOOP) return "a symbolic link (a side file is read only as a file of the directory)";
  if (err == kNotRegular) {
    return "not a regular file (a side file is read only as a file of the directory)";
  }
  return std::strerror(err);
}

bool AllDigits(const char* name) {
  if (*name == '\0') return false;
  for (const char* c = name; *c != '\0'; ++c) {
    if (*c < '0' || *c > '9') return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<ProcDirEvidence> ProcDirEvidence::Open(const std::string& dir, Failure* failure) {
  const std::string shown = EscapeBytes(dir, 4096);
  // DIR itself is the user's to name (a link to it is followed once, here);
  // everything beneath it is opened sealed.
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    *failure = IoFailure(shown + ": cannot open", errno);
    return nullptr;
  }
  int self = OpenBeneath(fd, ".", O_RDONLY | O_DIRECTORY);
  if (self < 0) {
    const int err = errno;
    *failure =
        Failure(FailureKind::kInternal,
                shown + ": cannot be read sealed inside it (openat2 RESOLVE_BENEATH, Linux 5.6): " +
                    std::strerror(err),
                err);
    ::close(fd);
    return nullptr;
  }
  ::close(self);
  std::unique_ptr<ProcDirEvidence> ev(new ProcDirEvidence(fd, dir));
  std::string text;
  int err = ReadSideFile(fd, kFrameFile, kFrameFileBound, &text);
  if (err == ENOENT) return ev;
  std::string why;
  if (err != 0) {
    why = SideFileProblem(err, kFrameFileBound);
  } else {
    FrameFacts facts;
    MaybeFailure parsed = ParseFrameFacts(text, &facts);
    if (!parsed) {
      ev->frame_ = std::move(facts);
      return ev;
    }
    why = parsed->message;
  }
  *failure = Failure(FailureKind::kCorrupt, shown + "/" + kFrameFile + ": " + why, err);
  return nullptr;
}

ProcDirEvidence::~ProcDirEvidence() { ::close(dir_fd_); }

const IdentityFacts& ProcDirEvidence::Facts(std::int64_t pid) {
  if (pid == cached_pid_) return cached_;
  cached_pid_ = pid;
  cached_ = IdentityFacts{};
  const std::string name = std::to_string(pid) + "/" + kIdentityFile;
  std::string text;
  int err = ReadSideFile(dir_fd_, name, kIdentityFileBound, &text);
  // Not in DIR: no such file, PID is not a directory, or PID lies outside.
  if (err == ENOENT || err == ENOTDIR || err == EXDEV) return cached_;
  std::string why;
  if (err != 0) {
    why = SideFileProblem(err, kIdentityFileBound);
  } else if (MaybeFailure parsed = ParseIdentityFacts(text, &cached_)) {
    why = parsed->message;
  } else {
    return cached_;
  }
  cached_ = IdentityFacts{};
  if (error_.empty()) error_ = EscapeBytes(dir_, 4096) + "/" + name + ": " + why;
  return cached_;
}

ProcDirEvidence::LinkEntry ProcDirEvidence::Entry(std::int64_t pid, const char* leaf) const {
  LinkEntry out;
  // O_PATH | O_NOFOLLOW: the entry itself, a link included, never its target.
  int fd = OpenBeneath(dir_fd_, std::to_string(pid) + "/" + leaf, O_PATH | O_NOFOLLOW);
  if (fd < 0) {
    out.identity.err = FailedErrno();
    return out;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    out.identity.err = FailedErrno();
  } else if (!S_ISLNK(st.st_mode)) {
    out.identity.err = EINVAL;  // readlink(2)'s answer: not a link, no executable named
  } else {
    out.identity.err = ELOOP;  // a link an import does not follow
    char text[4096];
    ssize_t n = ::readlinkat(fd, "", text, sizeof text);
    if (n > 0) out.text.assign(text, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

bool ProcDirEvidence::HoldsAProcess() {
  const ListResult pids = ListPids(kPidMaxLimit);
  if (pids.err != 0) return true;  // the capture's listing says why DIR cannot be listed
  for (std::string_view pid : pids.names) {
    for (const char* leaf : {"stat", kIdentityFile}) {
      // O_PATH: nothing is read. Anything there is a process, a hostile one
      // included (a link: ELOOP; an entry that leads out of DIR: EXDEV; a
      // file it may not read): its record keeps that errno. Only nothing
      // there (ENOENT, ENOTDIR) is no process.
      int fd = OpenBeneath(dir_fd_, std::string(pid) + "/" + leaf, O_PATH | O_NOFOLLOW);
      if (fd >= 0) ::close(fd);
      if (fd >= 0 || (errno != ENOENT && errno != ENOTDIR)) return true;
    }
  }
  return false;
}

ListResult ProcDirEvidence::ListPids(std::uint64_t bound) {
  ListResult out;
  // A fresh descriptor per listing: readdir's position is per description.
  int fd = OpenBeneath(dir_fd_, ".", O_RDONLY | O_DIRECTORY);
  DIR* dir = fd < 0 ? nullptr : ::fdopendir(fd);
  if (dir == nullptr) {
    out.err = FailedErrno();
    if (fd >= 0) ::close(fd);
    return out;
  }
  names_.clear();
  for (;;) {
    errno = 0;
    struct dirent* entry = ::readdir(dir);
    if (entry == nullptr) {
      if (errno != 0) out.err = errno;
      break;
    }
    if (!AllDigits(entry->d_name)) continue;
    if (names_.size() == kPidMaxLimit) {
      out.truncated = true;
      break;
    }
    names_.emplace_back(entry->d_name);
  }
  ::closedir(dir);
  std::sort(names_.begin(), names_.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  if (names_.size() > bound) {
    names_.resize(static_cast<std::size_t>(bound));
    out.truncated = true;
  }
  // Views only once names_ is final: growing or sorting it moves its strings.
  out.names.assign(names_.begin(), names_.end());
  return out;
}

ReadResult ProcDirEvidence::ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) {
  const IdentityFacts& facts = Facts(pid);
  if (auto it = facts.errors.find(file); it != facts.errors.end()) {
    ReadResult out;
    out.err = it->second;
    return out;
  }
  const bool truncated = facts.truncated.count(file) != 0;
  ReadResult out = ReadBeneath(dir_fd_, std::to_string(pid) + "/" + std::string(ProcFileName(file)),
                               bound, &buffer_);
  if (out.ok() && truncated) out.truncated = true;
  return out;
}

Identity ProcDirEvidence::ExeIdentity(std::int64_t pid) {
  const IdentityFacts& facts = Facts(pid);
  return facts.exe ? *facts.exe : Entry(pid, "exe").identity;
}

Identity ProcDirEvidence::PidNamespace(std::int64_t pid) {
  const IdentityFacts& facts = Facts(pid);
  return facts.pid_ns ? *facts.pid_ns : Entry(pid, "ns/pid").identity;
}

void ProcDirEvidence::AddLinkTexts(v1::ProcessRecord* record) {
  const IdentityFacts& facts = Facts(record->pid());
  const std::int64_t pid = record->pid();
  if (record->has_exe()) {
    record->mutable_exe()->set_link_text(facts.exe_link ? *facts.exe_link : Entry(pid, "exe").text);
  }
  if (record->has_pid_ns()) {
    record->mutable_pid_ns()->set_link_text(facts.pid_ns_link ? *facts.pid_ns_link
                                                              : Entry(pid, "ns/pid").text);
  }
}

Identity ProcDirEvidence::PathIdentity(const std::string&) { return Identity{EXDEV, 0, 0}; }

std::int64_t ProcDirEvidence::NowNs() { return MonotonicNowNs(); }

void ProcDirEvidence::SleepUntil(std::int64_t mono_ns) { SleepUntilMonotonic(mono_ns); }

}  // namespace proctape
