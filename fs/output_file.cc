// SPDX-License-Identifier: Apache-2.0
#include "fs/output_file.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/proc_parse.h"
#include "fs/interrupt.h"
#include "fs/output_directory.h"
#include "fs/temporary_names.h"

namespace proctape {
namespace {

constexpr std::size_t kPathShown = 4096;

std::string Escaped(std::string_view path) { return EscapeBytes(path, kPathShown); }

// The process's umask: the "Umask:" line of /proc/self/status (read, not
// set: other threads may be creating files), else umask(2) set to 077 and
// back -- a file another thread creates meanwhile is the more private for it.
mode_t ProcessUmask() {
  int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char buf[4096];
    ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n > 0) {
      buf[n] = '\0';
      if (const char* at = std::strstr(buf, "\nUmask:\t"); at != nullptr) {
        char* end = nullptr;
        unsigned long mask = std::strtoul(at + 8, &end, 8);
        if (end != at + 8 && *end == '\n') return static_cast<mode_t>(mask & 0777);
      }
    }
  }
  const mode_t mask = ::umask(077);
  ::umask(mask);
  return mask;
}

}  // namespace

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::unique_ptr<OutputFile> OutputFile::Open(const OutputRequest& request, Failure* failure) {
  const std::string shown = Escaped(request.path);
  const char* noun = request.directory ? "directory" : "file";
  auto refuse = [failure](std::string message, bool usage = false) {
    *failure = Failure(usage ? FailureKind::kUsage : FailureKind::kIo, std::move(message));
    return nullptr;
  };
  if (request.path.empty()) return refuse(std::string("an empty path names no ") + noun, true);
  std::unique_ptr<OutputFile> out(new OutputFile);
  out->path_ = request.path;
  if (request.path == "-") {
    if (!request.stdout_allowed || request.directory) {
      return refuse(std::string("'-' (standard output) cannot be written here: name a ") + noun,
                    true);
    }
    if (request.binary && ::isatty(STDOUT_FILENO) == 1) {
      return refuse(
          "'-' writes a binary file to standard output, which is a terminal: redirect "
          "it or name a file",
          true);
    }
    out->stdout_ = true;
    out->fd_ = STDOUT_FILENO;
    return out;
  }

  // DIR/NAME. A directory output may be named with trailing slashes.
  std::string path = request.path;
  while (request.directory && path.size() > 1 && path.back() == '/') path.pop_back();
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.empty() || base == "." || base == "..") {
    // A path that can only name a directory ("d/", ".", "x/.."): one that
    // is there is refused in the words of any directory named as a file.
    struct stat named;
    if (!request.directory && ::stat(request.path.c_str(), &named) == 0 && S_ISDIR(named.st_mode)) {
      return refuse(shown + ": is a directory: refused, --force or not (name a file)");
    }
    return refuse(shown + ": names a directory, not a new " + noun + ": refused");
  }
  const std::string dir_shown = Escaped(dir);
  out->parent_fd_ = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (out->parent_fd_ < 0) {
    const int err = errno;
    if (err == ENOENT)
      return refuse(shown + ": cannot write: its directory " + dir_shown + " does not exist");
    if (err == ENOTDIR)
      return refuse(shown + ": cannot write: " + dir_shown + " is not a directory");
    return refuse(shown + ": cannot write: its directory " + dir_shown + ": " + std::strerror(err));
  }
  out->base_ = base;
  out->force_ = request.force;
  out->directory_ = request.directory;
  if (!request.directory) out->shared_mode_ = 0644 & ~ProcessUmask();
  out->marker_ = request.directory_marker;

  struct stat st;
  if (::fstatat(out->parent_fd_, base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(st.st_mode)) {
      return refuse(shown +
                    ": is a symbolic link: refused, --force or not (a link's target is "
                    "never written)");
    }
    if (!request.directory) {
      if (S_ISDIR(st.st_mode)) {
        return refuse(shown + ": is a directory: refused, --force or not (name a file)");
      }
      if (!S_ISREG(st.st_mode)) {
        return refuse(shown +
                      ": is not a regular file (a device, a pipe or a socket): refused, "
                      "--force or not");
      }
      if (!request.force) return refuse(shown + ": exists: refused (use --force to replace it)");
    } else {
      if (!S_ISDIR(st.st_mode)) {
        return refuse(shown + ": exists and is not a directory: refused, --force or not");
      }
      int err = 0;
      const bool full = HoldsAnything(out->parent_fd_, base, &err);
      if (err != 0) return refuse(shown + ": cannot write: " + std::strerror(err));
      if (full) {
        if (!HoldsMarker(out->parent_fd_, base, request.directory_marker)) {
          return refuse(shown + ": is a directory that is not an earlier export (it holds no " +
                        (request.directory_marker.empty() ? std::string("marker")
                                                          : Escaped(request.directory_marker)) +
                        "): refused, --force or not");
        }
        if (request.directory_entry) {
          const std::string foreign =
              ForeignEntry(out->parent_fd_, base, "", request.directory_entry, &err);
          if (err != 0) return refuse(shown + ": cannot write: " + std::strerror(err));
          if (!foreign.empty()) {
            return refuse(shown + ": holds an earlier export and '" + Escaped(foreign) + "'" +
                          ", which no export writes: refused, --force or not");
          }
        }
        if (!request.force) {
          return refuse(shown + ": holds an earlier export: refused (use --force to replace it)");
        }
        out->replaces_ = Replaces::kEarlierOutput;
      } else {
        out->replaces_ = Replaces::kEmptyDirectory;
      }
    }
  } else if (errno != ENOENT) {
    return refuse(shown + ": cannot write: " + std::strerror(errno));
  }

  // The temporary, registered for removal on an interrupt as it comes to be.
  int err = 0;
  {
    InterruptsBlocked hold;
    for (int attempt = 0; attempt < 100; ++attempt) {
      std::string name = TemporaryName(base);
      int fd = -1;
      if (request.directory) {
        if (::mkdirat(out->parent_fd_, name.c_str(), 0755) == 0) {
          fd = ::openat(out->parent_fd_, name.c_str(),
                        O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          if (fd < 0) {
            err = errno;
            ::unlinkat(out->parent_fd_, name.c_str(), AT_REMOVEDIR);
            break;
          }
        }
      } else {
        // Rule 2: 0600 while it is written; Commit shares what keeps no
        // environment value.
        fd = ::openat(
            out->parent_fd_, name.c_str(),
            (request.readable ? O_RDWR : O_WRONLY) | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
            0600);
      }
      if (fd >= 0) {
        out->fd_ = fd;
        out->readable_ = request.readable && !request.directory;
        out->temp_name_ = name;
        if (request.remove_on_interrupt) {
          out->slot_ = RegisterTemporary(out->parent_fd_, name, request.directory);
        }
        err = 0;
        break;
      }
      err = errno;
      if (err != EEXIST) break;
    }
  }
  if (out->fd_ < 0) {
    return refuse(shown + ": cannot write: cannot create a temporary " + noun + " in " + dir_shown +
                  ": " + std::strerror(err));
  }
  out->temporary_ =
      (slash == std::string::npos ? "" : dir + (dir == "/" ? "" : "/")) + out->temp_name_;
  return out;
}

OutputFile::~OutputFile() {
  Discard();
  if (parent_fd_ >= 0) ::close(parent_fd_);
}

std::string OutputFile::shown() const {
  return stdout_ ? std::string("standard output") : Escaped(path_);
}

void OutputFile::Discard() {
  if (done_ || stdout_) return;
  done_ = true;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_name_.empty()) RemoveTemporaryAt(parent_fd_, temp_name_.c_str(), directory_);
  UnregisterTemporary(slot_);
  slot_ = -1;
}

MaybeFailure OutputFile::Write(std::string_view data) {
  if (done_) return Failure(FailureKind::kIo, shown() + ": cannot write: it is closed");
  if (WriteAll(fd_, data)) return std::nullopt;
  return IoFailure(shown() + ": cannot write", errno);
}

MaybeFailure OutputFile::Commit() {
  if (done_) return Failure(FailureKind::kIo, shown() + ": cannot write: it is closed");
  if (stdout_) {
    done_ = true;
    return std::nullopt;
  }
  auto fail = [&](const std::string& what, int err) -> MaybeFailure {
    Discard();
    return Failure(FailureKind::kIo, shown() + ": cannot write: " + what + std::strerror(err), err);
  };
  // Rule 2: a file that keeps no environment value is shared as any file
  // the user makes (0644 less the umask), before it gets its name.
  if (!directory_ && !owner_only_ && ::fchmod(fd_, shared_mode_) != 0) {
    return fail("chmod: ", errno);
  }
  if (!directory_ && ::fsync(fd_) != 0) return fail("fsync: ", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && !directory_) return fail("close: ", errno);

  unsigned flags = force_ ? 0 : RENAME_NOREPLACE;
  if (directory_) {
    flags = RENAME_NOREPLACE;
    if (replaces_ == Replaces::kEmptyDirectory) flags = 0;
    if (replaces_ == Replaces::kEarlierOutput) {
      // Still an earlier export? A directory that became something else is
      // never swapped out and removed.
      if (!HoldsMarker(parent_fd_, base_, marker_)) {
        Discard();
        return Failure(FailureKind::kIo, shown() +
                                             ": changed while it was being written (it holds no " +
                                             Escaped(marker_) + " now): not replaced");
      }
      flags = RENAME_EXCHANGE;
    }
  }
  int rc = ::renameat2(parent_fd_, temp_name_.c_str(), parent_fd_, base_.c_str(), flags);
  if (rc != 0 && errno == EINVAL && flags == RENAME_NOREPLACE && !directory_) {
    // No RENAME_NOREPLACE here: a hard link never replaces either.
    rc = ::linkat(parent_fd_, temp_name_.c_str(), parent_fd_, base_.c_str(), 0);
    if (rc == 0) ::unlinkat(parent_fd_, temp_name_.c_str(), 0);
  }
  if (rc != 0) {
    const int err = errno;
    if (err == EEXIST || err == ENOTEMPTY) {
      Discard();
      return Failure(FailureKind::kIo,
                     shown() +
                         ": appeared while it was being written: not replaced "
                         "without --force (nothing was written)",
                     err);
    }
    return fail("rename: ", err);
  }
  // After RENAME_EXCHANGE the temporary's name holds the earlier export.
  if (flags == RENAME_EXCHANGE) RemoveTemporaryAt(parent_fd_, temp_name_.c_str(), true);
  UnregisterTemporary(slot_);
  slot_ = -1;
  done_ = true;
  return std::nullopt;
}

MaybeFailure OutputFile::WriteAndCommit(std::string_view data) {
  if (MaybeFailure failed = Write(data)) return failed;
  return Commit();
}

std::string OutputFile::Abandon() {
  if (done_ || stdout_) return "";
  done_ = true;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  UnregisterTemporary(slot_);
  slot_ = -1;
  return temporary_;
}

MaybeFailure WriteOutputFile(const std::string& path, std::string_view data, bool force) {
  OutputRequest request;
  request.path = path;
  request.force = force;
  request.stdout_allowed = true;
  Failure refused;
  std::unique_ptr<OutputFile> out = OutputFile::Open(request, &refused);
  if (!out) return refused;
  return out->WriteAndCommit(data);
}

}  // namespace proctape
