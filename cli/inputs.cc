// SPDX-License-Identifier: Apache-2.0
#include "cli/inputs.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cli/options.h"

namespace proctape {

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

bool InputCopy::Open(const std::string& file, std::string* error) {
  file_ = file;
  if (file == "-") {
    // A closed standard input is refused as every reader of '-' refuses it
    // (format/chunk_reader.cc), before the copy is made: the copy would take
    // descriptor 0 and be read as standard input, an empty file.
    if (::fcntl(STDIN_FILENO, F_GETFD) < 0) {
      *error = std::string("-: read failed at byte 0: ") + std::strerror(errno);
      return false;
    }
    return Copy(STDIN_FILENO, "-", error);
  }
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
    return true;  // read where it is; the reader says what is wrong with it
  }
  const int from = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (from < 0) return true;  // the reader's own open says why
  const bool ok = Copy(from, file, error);
  ::close(from);
  return ok;
}

bool InputCopy::Copy(int from, const std::string& shown, std::string* error) {
  const int made = ::memfd_create("proctape-input", MFD_CLOEXEC);
  // Never one of the standard descriptors (HoldClosedStandardDescriptors
  // holds them; this holds without it).
  fd_ = made < 0 || made > STDERR_FILENO ? made : ::fcntl(made, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
  if (made >= 0 && made != fd_) ::close(made);
  if (fd_ < 0) {
    *error = shown + ": cannot make a copy: " + std::strerror(errno);
    return false;
  }
  char buf[65536];
  std::size_t total = 0;
  for (;;) {
    ssize_t n = ::read(from, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error =
          shown + ": read failed at byte " + std::to_string(total) + ": " + std::strerror(errno);
      return false;
    }
    if (n == 0) return true;
    total += static_cast<std::size_t>(n);
    for (ssize_t done = 0; done < n;) {
      ssize_t w = ::write(fd_, buf + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        *error = shown + ": cannot copy: " + std::strerror(errno);
        return false;
      }
      done += w;
    }
  }
}

std::string InputCopy::path() const {
  return fd_ < 0 ? file_ : "/proc/self/fd/" + std::to_string(fd_);
}

bool IsStandardInputStream(const std::string& path) {
  struct stat in {
  }, st{};
  if (path.empty() || ::fstat(STDIN_FILENO, &in) != 0 || S_ISREG(in.st_mode)) return false;
  return ::stat(path.c_str(), &st) == 0 && st.st_dev == in.st_dev && st.st_ino == in.st_ino;
}

std::string StdinOnce(const std::vector<std::pair<std::string, std::vector<std::string>>>& inputs) {
  std::vector<std::string> readers;
  for (const auto& [name, values] : inputs) {
    for (const std::string& v : values) {
      if (v == "-") {
        readers.push_back(name);
      } else if (IsStandardInputStream(v)) {
        readers.push_back(name + " " + Quoted(v) + " (standard input)");
      }
    }
  }
  if (readers.size() < 2) return "";
  const std::string both = readers[0] == readers[1]
                               ? readers[0] + " names it twice"
                               : readers[0] + " and " + readers[1] + " both name it";
  return "standard input ('-') can be read once: " + both;
}

std::string JsonList(const std::vector<std::string>& reports) {
  if (reports.size() == 1) return reports[0];
  // The shape of VerifyReports, ShowReports, CorpusAddResults: an object,
  // so that every --json document is one object.
  std::string out = "{\"files\":[";
  for (std::size_t i = 0; i < reports.size(); ++i) {
    if (i > 0) out += ",";
    out += reports[i];
  }
  return out + "]}";
}

}  // namespace proctape
