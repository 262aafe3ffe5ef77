// SHA-256 (FIPS 180-4), for naming corpus files by their content. Streaming:
// Update() any number of times, then Hex() once. No dependency.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace proctape {

class Sha256 {
 public:
  Sha256();
  void Update(std::string_view bytes);
  // The 32-byte digest as 64 lowercase hex digits. Ends the hash: call once.
  std::string Hex();

 private:
  void Block(const unsigned char* block);  // one 64-byte block into state_

  std::array<std::uint32_t, 8> state_;
  std::array<unsigned char, 64> buffer_{};
  std::size_t buffered_ = 0;   // bytes in buffer_
  std::uint64_t length_ = 0;   // bytes hashed so far
};

// The hex digest of `bytes`.
std::string Sha256Hex(std::string_view bytes);

// The hex digest of the file at `path`, read in 64 KiB pieces. On failure
// returns false and sets *error to one line ("cannot open: ...").
bool Sha256File(const std::string& path, std::string* hex, std::string* error);

}  // namespace proctape
