#include "cli/inputs.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace proctape {

StdinCopy::~StdinCopy() {
  if (fd_ >= 0) ::close(fd_);
}

bool StdinCopy::Open(std::string* error) {
  fd_ = ::memfd_create("proctape-stdin", MFD_CLOEXEC);
  if (fd_ < 0) {
    *error = std::string("standard input: cannot make a copy: ") + std::strerror(errno);
    return false;
  }
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = std::string("standard input: cannot read: ") + std::strerror(errno);
      return false;
    }
    if (n == 0) return true;
    for (ssize_t done = 0; done < n;) {
      ssize_t w = ::write(fd_, buf + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        *error = std::string("standard input: cannot copy: ") + std::strerror(errno);
        return false;
      }
      done += w;
    }
  }
}

std::string StdinCopy::path() const { return "/proc/self/fd/" + std::to_string(fd_); }

std::string StdinOnce(const std::vector<std::pair<std::string, std::vector<std::string>>>& inputs) {
  std::vector<std::string> readers;
  for (const auto& [name, values] : inputs) {
    for (const std::string& v : values) {
      if (v == "-") readers.push_back(name);
    }
  }
  if (readers.size() < 2) return "";
  const std::string both = readers[0] == readers[1] ? readers[0] + " names it twice"
                                                     : readers[0] + " and " + readers[1] +
                                                           " both name it";
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
