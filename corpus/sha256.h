// SHA-256, for naming corpus files by their content: Debian's nettle
// (libnettle, the hash of GnuTLS) does the hashing; this file only streams a
// file into it. Update() any number of times, then Hex() once.
#pragma once

#include <nettle/sha2.h>

#include <optional>
#include <string>
#include <string_view>

#include "core/failure.h"

namespace proctape {

class Sha256 {
 public:
  Sha256();
  void Update(std::string_view bytes);
  // The 32-byte digest as 64 lowercase hex digits. Ends the hash: call once.
  std::string Hex();

 private:
  sha256_ctx ctx_;
};

// The hex digest of `bytes`.
std::string Sha256Hex(std::string_view bytes);

// The hex digest of the file at `path`, read in 64 KiB pieces; nullopt with
// *failure (kIo, one line without the path: "cannot open: ...") when it
// cannot be read.
std::optional<std::string> Sha256File(const std::string& path, Failure* failure);
// The same of what is left to read of `fd` (which stays open, at its end).
std::optional<std::string> Sha256Fd(int fd, Failure* failure);

}  // namespace proctape
