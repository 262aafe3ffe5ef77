#include "corpus/beside_file.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace proctape {
namespace {

// Why a file of mode `mode` is not read, or "" for a regular file.
std::string NotRegular(mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISLNK(mode)) return "is a symbolic link: not followed";
  if (S_ISDIR(mode)) return "is a directory, not a regular file";
  if (S_ISFIFO(mode)) return "is a FIFO, not a regular file";
  if (S_ISSOCK(mode)) return "is a socket, not a regular file";
  if (S_ISCHR(mode)) return "is a character device, not a regular file";
  if (S_ISBLK(mode)) return "is a block device, not a regular file";
  return "is not a regular file";
}

// Fails with `why` (kIo), sys_errno and errno set to `err` (callers tell a
// missing file by ENOENT).
int Refused(Failure* failure, std::string why, int err) {
  *failure = Failure(FailureKind::kIo, std::move(why), err);
  errno = err;
  return -1;
}

}  // namespace

int OpenFileBeside(const std::string& path, Failure* failure) {
  // lstat first: a device or FIFO is refused without being opened at all.
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    const int err = errno;
    return Refused(failure, std::string("cannot open: ") + std::strerror(err), err);
  }
  if (std::string why = NotRegular(st.st_mode); !why.empty()) {
    return Refused(failure, why, S_ISLNK(st.st_mode) ? ELOOP : EINVAL);
  }
  // Then the file itself, checked again on its descriptor: what the name
  // held a moment ago may have been replaced.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return Refused(failure,
                   err == ELOOP ? std::string("is a symbolic link: not followed")
                                : std::string("cannot open: ") + std::strerror(err),
                   err);
  }
  std::string why;
  struct statfs fs {};
  if (::fstat(fd, &st) != 0 || ::fstatfs(fd, &fs) != 0) {
    why = std::string("cannot open: ") + std::strerror(errno);
  } else {
    why = NotRegular(st.st_mode);
    if (why.empty() && (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC)) {
      why = "is a file of /proc or /sys, not a regular file";
    }
  }
  if (!why.empty()) {
    ::close(fd);
    return Refused(failure, why, EINVAL);
  }
  return fd;
}

std::optional<std::string> ReadFileBeside(const std::string& path, std::size_t max_bytes,
                                          Failure* failure) {
  const int fd = OpenFileBeside(path, failure);
  if (fd < 0) return std::nullopt;
  std::string bytes;
  auto fail = [&](std::string why, int err) -> std::optional<std::string> {
    ::close(fd);
    *failure = Failure(FailureKind::kIo, std::move(why), err);
    errno = err;
    return std::nullopt;
  };
  const std::string too_large =
      "holds more than " + std::to_string(max_bytes) + " bytes (the limit)";
  struct stat st {};
  if (::fstat(fd, &st) == 0 && static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    return fail(too_large, EFBIG);
  }
  bytes.reserve(static_cast<std::size_t>(st.st_size));
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      return fail(std::string("cannot read: ") + std::strerror(err), err);
    }
    if (n == 0) break;
    if (bytes.size() + static_cast<std::size_t>(n) > max_bytes) return fail(too_large, EFBIG);
    bytes.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return bytes;
}

}  // namespace proctape
