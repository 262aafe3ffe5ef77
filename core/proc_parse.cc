// SPDX-License-Identifier: Apache-2.0
#include "core/proc_parse.h"

#include <string.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace proctape {
namespace {

std::optional<std::int64_t> ParseSignedDecimal(std::string_view text) {
  bool negative = !text.empty() && text[0] == '-';
  auto magnitude = ParseCanonicalDecimal(negative ? text.substr(1) : text, INT64_MAX);
  if (!magnitude) return std::nullopt;
  auto value = static_cast<std::int64_t>(*magnitude);
  return negative ? -value : value;
}

// The offset of the final ") " in `stat`, or npos: the last ')' followed by
// a space, found a ')' at a time (memrchr) rather than a byte at a time.
std::size_t FinalCloseParenSpace(std::string_view stat) {
  if (stat.size() < 2) return std::string_view::npos;
  std::size_t end = stat.size() - 1;  // a ')' at `end` has no byte after it
  while (end > 0) {
    const void* hit = ::memrchr(stat.data(), ')', end);
    if (hit == nullptr) return std::string_view::npos;
    std::size_t at = static_cast<std::size_t>(static_cast<const char*>(hit) - stat.data());
    if (stat[at + 1] == ' ') return at;
    end = at;
  }
  return std::string_view::npos;
}

// Splits the start of `text` at single spaces, eight bytes at a time, into
// f[*count..] (each field ends at a space; the next begins after it, at
// *begin), until `needed` fields or fewer than eight bytes are left: returns
// where the byte-at-a-time split goes on. The fields are those a split a byte
// at a time makes: a word's spaces are found exactly (no carry between bytes).
std::size_t SplitAtSpaces(std::string_view text, std::string_view* f, std::size_t needed,
                          std::size_t* count, std::size_t* begin) {
  static_assert(std::endian::native == std::endian::little, "bytes in address order");
  constexpr std::uint64_t kSpaces = 0x2020202020202020ULL;
  constexpr std::uint64_t kLow7 = 0x7F7F7F7F7F7F7F7FULL;
  std::size_t i = 0;
  for (; *count < needed && i + 8 <= text.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    const std::uint64_t x = word ^ kSpaces;  // a space is a zero byte
    // The high bit of each byte set where x's byte is zero, exactly.
    std::uint64_t zeros = ~(((x & kLow7) + kLow7) | x | kLow7);
    while (zeros != 0 && *count < needed) {
      const std::size_t at = i + static_cast<std::size_t>(std::countr_zero(zeros)) / 8;
      f[(*count)++] = text.substr(*begin, at - *begin);
      *begin = at + 1;
      zeros &= zeros - 1;
    }
    if (*count == needed) return i + 8;
  }
  return i;
}

}  // namespace

std::optional<std::uint64_t> ParseCanonicalDecimal(std::string_view text, std::uint64_t max) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  if (text.size() > 1 && text[0] == '0') return std::nullopt;
  std::uint64_t value = 0;
  // 19 digits never pass 2^64 - 1: only a 20th can overflow.
  const bool may_overflow = text.size() == 20;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
    if (may_overflow && value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  if (value > max) return std::nullopt;
  return value;
}

std::string StatViewParse::Error() const {
  if (why == nullptr) return std::string();
  return "stat byte " + std::to_string(offset) + ": " + why;
}

StatViewParse ParseStatView(std::string_view stat) {
  StatViewParse result;
  auto fail = [&](std::size_t offset, const char* why) {
    result.offset = offset;
    result.why = why;
    return result;
  };
  std::size_t open = stat.find(" (");
  if (open == std::string_view::npos) return fail(0, "no ' (' after field 1");
  std::size_t close = FinalCloseParenSpace(stat);
  if (close == std::string_view::npos || close < open + 1) {
    return fail(stat.size(), "no final ') ' after comm");
  }
  auto pid = ParseCanonicalDecimal(stat.substr(0, open), kMaxPid);
  if (!pid || *pid == 0) return fail(0, "field 1 (pid) is not a canonical decimal pid");

  std::string_view rest = stat.substr(close + 2);
  std::size_t rest_offset = close + 2;
  if (!rest.empty() && rest.back() == '\n') rest.remove_suffix(1);
  // The fields after comm split at single spaces (the kernel writes exactly
  // one between fields): f[0] is field 3 (state), field N is f[N - 3]. Only
  // the first 20 are needed; fewer than 20 is a short record.
  constexpr std::size_t kNeeded = 20;
  std::string_view f[kNeeded];
  // One pass over the bytes (fields are short: a search call per field
  // costs more than the bytes it skips).
  std::size_t count = 0;
  std::size_t begin = 0;
  std::size_t i = SplitAtSpaces(rest, f, kNeeded, &count, &begin);
  for (; count < kNeeded; ++i) {
    if (i == rest.size()) {
      f[count++] = rest.substr(begin);
      break;
    }
    if (rest[i] == ' ') {
      f[count++] = rest.substr(begin, i - begin);
      begin = i + 1;
    }
  }
  if (count < kNeeded) return fail(stat.size(), "fewer than 22 fields");
  if (f[0].size() != 1) return fail(rest_offset, "field 3 (state) is not one character");

  auto offset_of = [&](std::size_t index) {
    return static_cast<std::size_t>(f[index].data() - stat.data());
  };
  auto ppid = ParseCanonicalDecimal(f[1], kMaxPid);
  if (!ppid) return fail(offset_of(1), "field 4 (ppid) is not a canonical decimal");
  auto pgrp = ParseSignedDecimal(f[2]);
  if (!pgrp) return fail(offset_of(2), "field 5 (pgrp) is not a decimal");
  auto session = ParseSignedDecimal(f[3]);
  if (!session) return fail(offset_of(3), "field 6 (session) is not a decimal");
  auto start = ParseCanonicalDecimal(f[19]);
  if (!start) return fail(offset_of(19), "field 22 (start time) is not a canonical decimal");

  StatView& fields = result.fields;
  fields.pid = static_cast<std::int64_t>(*pid);
  fields.comm = stat.substr(open + 2, close - open - 2);
  fields.state = f[0][0];
  fields.ppid = static_cast<std::int64_t>(*ppid);
  fields.pgrp = *pgrp;
  fields.session = *session;
  fields.start_ticks = *start;
  return result;
}

StatParse ParseStat(std::string_view stat) {
  StatParse result;
  StatViewParse parsed = ParseStatView(stat);
  if (!parsed.ok()) {
    result.error = parsed.Error();
    return result;
  }
  const StatView& v = parsed.fields;
  StatFields fields;
  fields.pid = v.pid;
  fields.comm = std::string(v.comm);
  fields.state = v.state;
  fields.ppid = v.ppid;
  fields.pgrp = v.pgrp;
  fields.session = v.session;
  fields.start_ticks = v.start_ticks;
  result.fields = std::move(fields);
  return result;
}

std::vector<std::string_view> SplitNul(std::string_view bytes) {
  std::vector<std::string_view> out;
  std::size_t begin = 0;
  while (begin < bytes.size()) {
    std::size_t end = bytes.find('\0', begin);
    if (end == std::string_view::npos) end = bytes.size();
    out.push_back(bytes.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

std::string JoinNul(const std::vector<std::string>& elements) {
  std::string out;
  for (const auto& e : elements) {
    out += e;
    out.push_back('\0');
  }
  return out;
}

std::optional<std::string_view> StatusValue(std::string_view status, std::string_view key) {
  std::size_t begin = 0;
  while (begin < status.size()) {
    std::size_t end = status.find('\n', begin);
    if (end == std::string_view::npos) end = status.size();
    std::string_view line = status.substr(begin, end - begin);
    if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ':') {
      std::string_view value = line.substr(key.size() + 1);
      while (!value.empty() && (value[0] == '\t' || value[0] == ' ')) value.remove_prefix(1);
      return value;
    }
    begin = end + 1;
  }
  return std::nullopt;
}

std::optional<std::array<std::uint32_t, 4>> StatusIds(std::string_view status,
                                                      std::string_view key) {
  std::optional<std::string_view> line = StatusValue(status, key);
  if (!line) return std::nullopt;
  std::array<std::uint32_t, 4> ids{};
  std::size_t n = 0;
  std::string_view rest = *line;
  while (!rest.empty()) {
    const std::size_t sep = rest.find_first_of("\t ");
    const std::string_view field = rest.substr(0, sep);
    if (!field.empty()) {
      std::optional<std::uint64_t> v = ParseCanonicalDecimal(field, UINT32_MAX);
      if (!v || n == ids.size()) return std::nullopt;
      ids[n++] = static_cast<std::uint32_t>(*v);
    }
    if (sep == std::string_view::npos) break;
    rest.remove_prefix(sep + 1);
  }
  if (n != ids.size()) return std::nullopt;
  return ids;
}

std::string_view BootIdLine(std::string_view boot_id) {
  if (!boot_id.empty() && boot_id.back() == '\n') boot_id.remove_suffix(1);
  return boot_id;
}

std::string Quoted(std::string_view text) {
  std::string out = "'";
  for (unsigned char c : text.substr(0, 64)) {
    if (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\') {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > 64) out += "...";
  return out + "'";
}

std::string EscapeBytes(std::string_view bytes, std::size_t max) {
  std::string out;
  std::size_t n = bytes.size() < max ? bytes.size() : max;
  for (std::size_t i = 0; i < n; ++i) {
    auto c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (bytes.size() > max) out += "...";
  return out;
}

std::string NoSuchFrame(std::string_view option, std::uint64_t frame, std::string_view file,
                        std::uint64_t frames) {
  std::string out = std::string(option) + " " + std::to_string(frame) + ": " + std::string(file);
  if (frames == 0) return out + " has no frame";
  return out + " has " + Plural(frames, "frame", "frames") +
         (frames == 1 ? " (0)" : " (0.." + std::to_string(frames - 1) + ")");
}

std::string Plural(std::uint64_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

std::string DurationText(std::int64_t ns) {
  char buf[64];
  const double v = static_cast<double>(ns);
  const double a = v < 0 ? -v : v;
  if (a < 1e3) {
    std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(ns));
  } else if (a < 1e6) {
    std::snprintf(buf, sizeof buf, "%.1f us", v / 1e3);
  } else if (a < 1e9) {
    std::snprintf(buf, sizeof buf, "%.1f ms", v / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f s", v / 1e9);
  }
  return buf;
}

}  // namespace proctape
