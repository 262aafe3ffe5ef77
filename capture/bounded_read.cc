// SPDX-License-Identifier: Apache-2.0
#include "capture/bounded_read.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string_view>

namespace proctape {

int FailedErrno() { return errno != 0 ? errno : EIO; }

ReadResult ReadBoundedAndClose(int fd, std::uint64_t bound, std::vector<char>* buffer) {
  ReadResult out;
  const std::uint64_t want = bound == UINT64_MAX ? bound : bound + 1;
  std::size_t got = 0;
  while (got < want) {
    if (got == buffer->size()) {
      std::uint64_t grown = std::max<std::uint64_t>(4096, 2 * static_cast<std::uint64_t>(got));
      buffer->resize(static_cast<std::size_t>(std::min(want, grown)));
    }
    std::size_t room =
        static_cast<std::size_t>(std::min<std::uint64_t>(buffer->size(), want)) - got;
    ssize_t n = ::read(fd, buffer->data() + got, room);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      out.err = FailedErrno();
      ::close(fd);
      return out;
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  out.truncated = got > bound;
  out.data =
      std::string_view(buffer->data(), out.truncated ? static_cast<std::size_t>(bound) : got);
  return out;
}

}  // namespace proctape
