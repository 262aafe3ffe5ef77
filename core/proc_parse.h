// SPDX-License-Identifier: Apache-2.0
// Pure parsers for /proc text. No I/O; every input is untrusted bytes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace proctape {

// `docs/resolver.md`, "The eight steps", step 2: a pid is a canonical decimal
// from 2 to 2,147,483,647.
inline constexpr std::uint64_t kMaxPid = 2147483647;

// A canonical decimal: digits only, no sign, no leading zero (except "0"
// itself), no surrounding space, value <= max. Anything else is nullopt.
std::optional<std::uint64_t> ParseCanonicalDecimal(std::string_view text,
                                                   std::uint64_t max = UINT64_MAX);

// The fields of /proc/PID/stat that identity depends on. Example input:
//   "8155 (sleep) S 8150 8150 8101 0 -1 4194560 ... 12345 ..."
// comm may contain anything, ") " and newlines included, so the record is
// split at the *final* ") " (`docs/resolver.md`, "The eight steps", step 3).
struct StatFields {
  std::int64_t pid = 0;           // field 1
  std::string comm;               // field 2, without the parentheses, raw bytes
  char state = 0;                 // field 3
  std::int64_t ppid = 0;          // field 4
  std::int64_t pgrp = 0;          // field 5
  std::int64_t session = 0;       // field 6
  std::uint64_t start_ticks = 0;  // field 22: clock ticks after boot
};

struct StatParse {
  std::optional<StatFields> fields;
  std::string error;  // why it did not parse, naming the byte offset
  bool ok() const { return fields.has_value(); }
};

// Parses stat. pid, ppid and start time must be canonical decimals (pid in
// 1..kMaxPid, ppid in 0..kMaxPid); pgrp and session may be any decimal the
// kernel prints (they can be 0 or, for some kernel threads, negative).
StatParse ParseStat(std::string_view stat);

// The same fields, extracted without building anything: comm is a view into
// the parsed bytes (valid as long as they are).
struct StatView {
  std::int64_t pid = 0;
  std::string_view comm;
  char state = 0;
  std::int64_t ppid = 0;
  std::int64_t pgrp = 0;
  std::int64_t session = 0;
  std::uint64_t start_ticks = 0;
};

// ParseStat's decision without its allocations: the same rules, checked in
// the same order, the first failure kept as its byte offset and a static
// reason; Error() is the text ParseStat's `error` holds for it.
struct StatViewParse {
  StatView fields;            // meaningful when ok()
  const char* why = nullptr;  // nullptr: parsed
  std::size_t offset = 0;     // the byte the failure names
  bool ok() const { return why == nullptr; }
  std::string Error() const;  // "stat byte N: why"; empty when ok()
};

// What the resolver calls once per stat read: no string, no vector.
StatViewParse ParseStatView(std::string_view stat);

// Splits NUL-delimited cmdline or environ bytes into their elements, without
// trimming or normalisation. One terminating NUL ends the last element; bytes
// after the last NUL form a final element; empty input has no elements.
//   "/bin/sleep\0" "120\0"  -> {"/bin/sleep", "120"}
//   "a\0\0"                 -> {"a", ""}
std::vector<std::string_view> SplitNul(std::string_view bytes);

// Joins elements into NUL-terminated form, the inverse of SplitNul.
std::string JoinNul(const std::vector<std::string>& elements);

// The value of one "Key:\tvalue" line of /proc/PID/status, or nullopt.
//   StatusValue("Name:\tsleep\nNSpid:\t8155\t3\n", "NSpid") -> "8155\t3"
std::optional<std::string_view> StatusValue(std::string_view status, std::string_view key);

// The four ids of a status "Uid:" (or "Gid:") line: real, effective, saved,
// filesystem, separated by tabs or spaces. Each must be a canonical decimal
// of at most 4294967295 (a uid_t); nullopt when the line is absent or is not
// exactly four such values: a value past 2^32-1 is malformed, never wrapped
// (4294967296 is not uid 0).
//   StatusIds("Uid:\t1000\t1000\t1000\t1000\n", "Uid") -> {1000, 1000, 1000, 1000}
std::optional<std::array<std::uint32_t, 4>> StatusIds(std::string_view status,
                                                      std::string_view key);

// Printable form of raw bytes for one-line messages: printable ASCII as is,
// backslash and everything else as \xNN. Cut at `max` input bytes ("..." added).
std::string EscapeBytes(std::string_view bytes, std::size_t max = 256);

// `text` as a message shows a value the user gave: in single quotes, a
// byte outside printable ASCII (and ' and \\) as \\xHH, cut after 64 bytes
// ("..." added).
std::string Quoted(std::string_view text);

// A boot id as one line says it: /proc/sys/kernel/random/boot_id as read,
// its trailing newline removed (the bytes are stored as read).
std::string_view BootIdLine(std::string_view boot_id);

// "1 attempt", "2 attempts": a count and its noun, singular for 1 alone.
std::string Plural(std::uint64_t n, std::string_view one, std::string_view many);

// A frame a file does not have, in one wording wherever a frame is picked
// (tree --frame, diff --frames/--frame-a/--frame-b, export --frame): the
// option, the value, and what the file holds. `file` is already escaped.
//   "--frame 7: run.ptape has 3 frames (0..2)"
//   "--frame-b 1: b.ptape has 1 frame (0)"
//   "--frame 0: empty.ptape has no frame"
std::string NoSuchFrame(std::string_view option, std::uint64_t frame, std::string_view file,
                        std::uint64_t frames);

// A span of time for people: "850 ns", "12.5 us", "3.1 ms", "1.250 s".
std::string DurationText(std::int64_t ns);

}  // namespace proctape
