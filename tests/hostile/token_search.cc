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
    for (std::size_t k = 0; k + 1 < n; ++k)
      out.push_back(static_cast<char>((v >> (16 - 8 * k)) & 0xff));
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

// Standard base64 of `bytes` (no padding needed: callers take inner
// characters).
std::string Base64Encoded(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      const auto b = i + k < bytes.size() ? static_cast<unsigned char>(bytes[i + k]) : 0u;
      v = (v << 8) | b;
    }
    for (int k = 3; k >= 0; --k) out.push_back(kAlphabet[(v >> (6 * k)) & 63]);
  }
  return out;
}

// `text` in every mix of the two alphabets ('+' or '-', '/' or '_').
void AddAlphabetMixes(const std::string& text, std::size_t from, std::vector<std::string>* out) {
  const std::size_t at = text.find_first_of("+/", from);
  if (at == std::string::npos) {
    out->push_back(text);
    return;
  }
  std::string other = text;
  other[at] = text[at] == '+' ? '-' : '_';
  AddAlphabetMixes(text, at + 1, out);
  AddAlphabetMixes(other, at + 1, out);
}

}  // namespace

std::vector<std::string> TokenPatterns(const std::string& token, std::size_t piece) {
  std::vector<std::string> out;
  if (token.size() < piece || piece == 0) return out;
  static constexpr char kHex[] = "0123456789abcdef";
  for (std::size_t at = 0; at + piece <= token.size(); ++at) {
    const std::string p = token.substr(at, piece);
    out.push_back(p);
    std::string hex;
    for (unsigned char c : p) {
      hex.push_back(kHex[c >> 4]);
      hex.push_back(kHex[c & 15]);
    }
    out.push_back(hex);
    // After `align` unknown bytes, the characters from the first whose six
    // bits are all the piece's to the last such one.
    for (std::size_t align = 0; align < 3; ++align) {
      const std::string encoded = Base64Encoded(std::string(align, '\0') + p);
      const std::size_t first = (8 * align + 5) / 6;
      const std::size_t last = (8 * (align + piece)) / 6;  // exclusive
      AddAlphabetMixes(encoded.substr(first, last - first), 0, &out);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

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
