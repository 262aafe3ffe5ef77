// SPDX-License-Identifier: Apache-2.0
#include "fs/inputs.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace proctape {

std::vector<InputPath> InputsNamed(const std::string& option,
                                   const std::vector<std::string>& paths) {
  std::vector<InputPath> inputs;
  for (const std::string& path : paths) inputs.push_back({option, path});
  return inputs;
}

bool IsStandardInputStream(const std::string& path) {
  struct stat in {
  }, st{};
  if (path.empty() || ::fstat(STDIN_FILENO, &in) != 0 || S_ISREG(in.st_mode)) return false;
  return ::stat(path.c_str(), &st) == 0 && st.st_dev == in.st_dev && st.st_ino == in.st_ino;
}

void HoldClosedStandardDescriptors() {
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
    if (::fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
    // The lowest free descriptor: `fd` itself, the lower ones being open.
    const int held = ::open("/dev/null", (fd == STDIN_FILENO ? O_WRONLY : O_RDONLY));
    if (held >= 0 && held != fd) ::close(held);  // not ours to take: leave it as found
  }
}

InputCopy::~InputCopy() {
  if (fd_ >= 0) ::close(fd_);
}

MaybeFailure InputCopy::Open(const std::string& file) {
  file_ = file;
  if (file == "-") {
    // A closed standard input is refused as every reader of '-' refuses it
    // (format/chunk_reader.cc), before the copy is made: the copy would take
    // descriptor 0 and be read as standard input, an empty file.
    if (::fcntl(STDIN_FILENO, F_GETFD) < 0) return IoFailure("-: read failed at byte 0", errno);
    return Copy(STDIN_FILENO, "-");
  }
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
    return std::nullopt;  // read where it is; the reader says what is wrong with it
  }
  const int from = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (from < 0) return std::nullopt;  // the reader's own open says why
  MaybeFailure failed = Copy(from, file);
  ::close(from);
  return failed;
}

MaybeFailure InputCopy::Copy(int from, const std::string& shown) {
  const int made = ::memfd_create("proctape-input", MFD_CLOEXEC);
  // Never one of the standard descriptors (HoldClosedStandardDescriptors
  // holds them; this holds without it).
  fd_ = made < 0 || made > STDERR_FILENO ? made : ::fcntl(made, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
  if (made >= 0 && made != fd_) ::close(made);
  if (fd_ < 0) return IoFailure(shown + ": cannot make a copy", errno);
  char buf[65536];
  std::size_t total = 0;
  for (;;) {
    ssize_t n = ::read(from, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoFailure(shown + ": read failed at byte " + std::to_string(total), errno);
    if (n == 0) return std::nullopt;
    total += static_cast<std::size_t>(n);
    for (ssize_t done = 0; done < n;) {
      ssize_t w = ::write(fd_, buf + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return IoFailure(shown + ": cannot copy", errno);
      done += w;
    }
  }
}

std::string InputCopy::path() const {
  return fd_ < 0 ? file_ : "/proc/self/fd/" + std::to_string(fd_);
}

}  // namespace proctape
