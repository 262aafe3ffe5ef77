// Helpers shared by the corpus's own files (corpus.cc, add.cc, naming.cc);
// not part of corpus.h.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/proc_parse.h"

namespace proctape::corpus_internal {

inline std::string Errno(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

inline std::string Escaped(const std::string& path) { return EscapeBytes(path, 4096); }

// A byte of an entry name: [A-Za-z0-9._-].
inline bool IsNameByte(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

// A file descriptor closed when it goes out of scope.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace proctape::corpus_internal
