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

bool Sha256File(const std::string& path, std::string* hex, std::string* error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = std::string("cannot open: ") + std::strerror(errno);
    return false;
  }
  const bool hashed = Sha256Fd(fd, hex, error);
  ::close(fd);
  return hashed;
}

bool Sha256Fd(int fd, std::string* hex, std::string* error) {
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    *error = "is a directory, not a .ptape file";  // as every reader says it
    return false;
  }
  Sha256 h;
  std::vector<char> buf(64 * 1024);
  std::uint64_t offset = 0;
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      // The words of every reader of a .ptape (format/chunk_reader.cc).
      *error = "read failed at byte " + std::to_string(offset) + ": " + std::strerror(errno);
      return false;
    }
    if (n == 0) break;
    h.Update(std::string_view(buf.data(), static_cast<std::size_t>(n)));
    offset += static_cast<std::uint64_t>(n);
  }
  *hex = h.Hex();
  return true;
}

}  // namespace proctape
