// SPDX-License-Identifier: Apache-2.0
#include "fs/temporary_names.h"

#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>

namespace proctape {
namespace {

constexpr std::size_t kBaseKept = 240;  // NAME_MAX 255 - ".XXXXXX.partial"
constexpr char kSuffix[] = ".partial";
constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";

// Six random letters or digits.
std::string RandomTag() {
  unsigned char bytes[6];
  if (::getrandom(bytes, sizeof bytes, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof bytes)) {
    static std::atomic<unsigned> counter{0};  // several threads may open outputs
    struct timespec ts;
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    std::uint64_t mix = static_cast<std::uint64_t>(ts.tv_nsec) * 2654435761u ^
                        static_cast<std::uint64_t>(::getpid()) << 20 ^ ++counter;
    for (unsigned char& b : bytes) {
      b = static_cast<unsigned char>(mix);
      mix = mix * 6364136223846793005u + 1442695040888963407u;
    }
  }
  std::string tag;
  for (unsigned char b : bytes) tag.push_back(kAlphabet[b % 36]);
  return tag;
}

}  // namespace

std::string TemporaryName(const std::string& base) {
  return base.substr(0, kBaseKept) + "." + RandomTag() + kSuffix;
}

bool IsTemporaryOf(std::string_view name, std::string_view base) {
  const std::string_view kept = base.substr(0, kBaseKept);
  const std::size_t tag = kept.size() + 1;
  if (name.size() != tag + 6 + sizeof kSuffix - 1 || name.substr(0, kept.size()) != kept ||
      name[kept.size()] != '.' || name.substr(tag + 6) != kSuffix) {
    return false;
  }
  for (char c : name.substr(tag, 6)) {
    if (std::strchr(kAlphabet, c) == nullptr || c == 0) return false;
  }
  return true;
}

}  // namespace proctape
