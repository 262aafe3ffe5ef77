// SPDX-License-Identifier: Apache-2.0
#include "cli/options.h"

#include <limits>

namespace proctape {
namespace {

// Magnitude of a run of digits, saturating at UINT64_MAX with *overflow set.
std::uint64_t Digits(std::string_view digits, bool* overflow) {
  std::uint64_t v = 0;
  *overflow = false;
  for (char c : digits) {
    auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) {
      *overflow = true;
      return std::numeric_limits<std::uint64_t>::max();
    }
    v = v * 10 + d;
  }
  return v;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// A bound as a person reads it: decimal, except one just at or below a
// power of two from 2^31 up, which is that power: 2^64-1, not
// 18446744073709551615; 2^32-2, not 4294967294; 2^40 (1 TiB).
template <typename T>
std::string Bound(T value) {
  if (value >= 0) {
    const auto v = static_cast<std::uint64_t>(value);
    for (int k = 31; k <= 64; ++k) {
      const std::uint64_t power = k == 64 ? 0 : std::uint64_t{1} << k;  // 2^64 wraps to 0
      for (std::uint64_t below = 0; below <= 2; ++below) {
        if (v == power - below && !(k == 64 && below == 0)) {
          return "2^" + std::to_string(k) + (below == 0 ? "" : "-" + std::to_string(below));
        }
      }
    }
  }
  return std::to_string(value);
}

template <typename T>
std::string Outside(std::string_view text, T lo, T hi) {
  return Quoted(text) + " is outside " + Bound(lo) + ".." + Bound(hi);
}

}  // namespace

std::optional<std::int64_t> ParseInteger(std::string_view text, std::int64_t lo, std::int64_t hi) {
  const bool negative = !text.empty() && text[0] == '-' && lo < 0;
  std::string_view digits = negative ? text.substr(1) : text;
  if (!AllDigits(digits)) return std::nullopt;
  bool overflow = false;
  std::uint64_t magnitude = Digits(digits, &overflow);
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (overflow || magnitude > kMax + (negative ? 1 : 0)) return std::nullopt;
  std::int64_t v =
      negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
  if (v < lo || v > hi) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> ParseInteger(std::string_view text, std::uint64_t lo,
                                          std::uint64_t hi) {
  if (!AllDigits(text)) return std::nullopt;
  bool overflow = false;
  std::uint64_t v = Digits(text, &overflow);
  if (overflow || v < lo || v > hi) return std::nullopt;
  return v;
}

std::string IntegerError(std::string_view text, std::int64_t lo, std::int64_t hi) {
  const bool negative = !text.empty() && text[0] == '-';
  if (!AllDigits(negative ? text.substr(1) : text)) return Quoted(text) + " is not a number";
  if (ParseInteger(text, lo, hi)) return "";
  return Outside(text, lo, hi);
}

std::string IntegerError(std::string_view text, std::uint64_t lo, std::uint64_t hi) {
  const bool negative = !text.empty() && text[0] == '-';
  if (!AllDigits(negative ? text.substr(1) : text)) return Quoted(text) + " is not a number";
  if (ParseInteger(text, lo, hi)) return "";
  return Outside(text, lo, hi);
}

CLI::Validator Integer(std::int64_t lo, std::int64_t hi) {
  // An empty description: the range is said when a value is refused, and
  // the help stays free of "INT in [a - b]".
  return CLI::Validator([lo, hi](std::string& text) { return IntegerError(text, lo, hi); }, "",
                        "integer");
}

CLI::Validator Unsigned(std::uint64_t lo, std::uint64_t hi) {
  return CLI::Validator([lo, hi](std::string& text) { return IntegerError(text, lo, hi); }, "",
                        "integer");
}

std::string LivePidError(std::string_view text) {
  std::string error = IntegerError(text, std::int64_t{2}, kMaxPidValue);
  if (!error.empty() && ParseInteger(text, std::int64_t{1}, std::int64_t{1})) {
    error +=
        ": pid 1 is init, which the resolver never takes as a root or a match (its pids "
        "are 2..2^31-1); a sandbox's marker, a pid of its own namespace, is often 1 and "
        "names no host process";
  }
  return error;
}

CLI::Validator LivePid() {
  return CLI::Validator([](std::string& text) { return LivePidError(text); }, "", "integer");
}
CLI::Validator FilePid() { return Integer(1, kMaxPidValue); }

CLI::Validator NonEmpty(const std::string& why) {
  return CLI::Validator([why](std::string& text) { return text.empty() ? why : std::string(); }, "",
                        "non-empty");
}

CLI::Option* OneValueEach(CLI::Option* option) {
  return option->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
}

CLI::Option* AddJobsOption(CLI::App* app, unsigned& jobs, const std::string& what) {
  return AddUnsigned(app, "--jobs,-j", jobs, 1, 1024,
                     what + " at once, 1-1024 (default: one per core)");
}

CLI::Option* AddShardOption(CLI::App* app, Shard& shard, const std::string& what) {
  CLI::Validator valid(
      [](std::string& text) {
        Failure failure;
        return ParseShard(text, &failure) ? std::string() : failure.message;
      },
      "", "shard");
  return app
      ->add_option_function<std::string>(
          "--shard",
          [&shard](const std::string& text) {
            Failure failure;
            if (std::optional<Shard> parsed = ParseShard(text, &failure)) shard = *parsed;
          },
          "only shard K of N (1-1024) of the " + what)
      ->check(valid)
      ->type_name("K/N");
}

}  // namespace proctape
