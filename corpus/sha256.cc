#include "corpus/sha256.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace proctape {

Sha256::Sha256() { sha256_init(&ctx_); }

void Sha256::Update(std::string_view bytes) {
  sha256_update(&ctx_, bytes.size(), reinterpret_cast<const std::uint8_t*>(bytes.data()));
}

std::string Sha256::Hex() {
  std::uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx_, sizeof digest, digest);
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * sizeof digest);
  for (std::uint8_t b : digest) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

std::string Sha256Hex(std::string_view bytes) {
  Sha256 h;
  h.Update(bytes);
  return h.Hex();
}

std::optional<std::string> Sha256File(const std::string& path, Failure* failure) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    *failure = Failure(FailureKind::kIo, std::string("cannot open: ") + std::strerror(err), err);
    return std::nullopt;
  }
  std::optional<std::string> hex = Sha256Fd(fd, failure);
  ::close(fd);
  return hex;
}

std::optional<std::string> Sha256Fd(int fd, Failure* failure) {
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    // As every reader says it.
    *failure = Failure(FailureKind::kIo, "is a directory, not a .ptape file", EISDIR);
    return std::nullopt;
  }
  Sha256 h;
  std::vector<char> buf(64 * 1024);
  std::uint64_t offset = 0;
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      // The words of every reader of a .ptape (format/chunk_reader.cc).
      const int err = errno;
      *failure =
          Failure(FailureKind::kIo,
                  "read failed at byte " + std::to_string(offset) + ": " + std::strerror(err), err);
      return std::nullopt;
    }
    if (n == 0) break;
    h.Update(std::string_view(buf.data(), static_cast<std::size_t>(n)));
    offset += static_cast<std::uint64_t>(n);
  }
  return h.Hex();
}

}  // namespace proctape
