// SPDX-License-Identifier: Apache-2.0
#include "tests/hostile/token_search.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace proctape::hostile {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;  // standard and URL-safe alphabets
  if (c == '/' || c == '_') return 63;
  return -1;
}

// The maximal runs of `bytes` whose every byte has a value, at least
// `min_length` long.
template <typename Value>
std::vector<std::string_view> Runs(std::string_view bytes, std::size_t min_length, Value value) {
  std::vector<std::string_view> runs;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= bytes.size(); ++i) {
    if (i < bytes.size() && value(bytes[i]) >= 0) continue;
    if (i - start >= min_length) runs.push_back(bytes.substr(start, i - start));
    start = i + 1;
  }
  return runs;
}

std::string HexDecoded(std::string_view run) {
  std::string out;
  for (std::size_t i = 0; i + 2 <= run.size(); i += 2) {
    out.push_back(static_cast<char>(HexValue(run[i]) * 16 + HexValue(run[i + 1])));
  }
  return out;
}

// Groups of four characters, and a last group of two or three (the bytes
// before its '=' padding).
std::string Base64Decoded(std::string_view run) {
  std::string out;
  for (std::size_t i = 0; i + 2 <= run.size(); i += 4) {
    const std::size_t n = std::min<std::size_t>(4, run.size() - i);
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      v = (v << 6) | (k < n ? static_cast<std::uint32_t>(Base64Value(run[i + k])) : 0);
    }
    for (std::size_t k = 0; k + 1 < n; ++k) out.push_back(static_cast<char>((v >> (16 - 8 * k)) & 0xff));
  }
  return out;
}

// The first piece of `token` in `text`, or "".
std::string PieceIn(std::string_view text, const std::string& token, std::size_t piece) {
  for (std::size_t at = 0; at + piece <= token.size(); ++at) {
    const std::string p = token.substr(at, piece);
    if (text.find(p) != std::string_view::npos) return p;
  }
  return {};
}

}  // namespace

std::string FindTokenPiece(std::string_view bytes, const std::string& token, std::size_t piece) {
  if (token.size() < piece || piece == 0) return {};
  if (std::string p = PieceIn(bytes, token, piece); !p.empty()) return "text " + p;
  for (std::string_view run : Runs(bytes, 2 * piece, HexValue)) {
    for (std::size_t skip = 0; skip < 2; ++skip) {
      if (std::string p = PieceIn(HexDecoded(run.substr(skip)), token, piece); !p.empty()) {
        return "hex of " + p;
      }
    }
  }
  for (std::string_view run : Runs(bytes, (piece * 4 + 2) / 3, Base64Value)) {
    for (std::size_t skip = 0; skip < 4; ++skip) {
      if (std::string p = PieceIn(Base64Decoded(run.substr(skip)), token, piece); !p.empty()) {
        return "base64 of " + p;
      }
    }
  }
  return {};
}

}  // namespace proctape::hostile
