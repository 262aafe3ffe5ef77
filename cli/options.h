// SPDX-License-Identifier: Apache-2.0
// The command line's one rule for numbers: an integer option takes a plain
// decimal number inside its domain, or the command stops with a one-line
// usage error (exit 2) that names the option, the value as given and the
// allowed range. Nothing is wrapped (-1 is never 18446744073709551615),
// rounded or read as a float.
//
//   --root: 'abc' is not a number
//   --start: '-1' is outside 1..2^64-1
//   --frame: '99999999999999999999' is outside 0..2^32-1
//   --max-bytes: '5' is outside 155648..2^64-1
// A bound from 2^31 up that is a power of two, or one or two below it, is
// said as one (2^31-1, 2^32-2, 2^40); any other in decimal.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/proc_parse.h"
#include "corpus/shard.h"

namespace proctape {

// Why `text` is not an integer in lo..hi, or "" when it is one. Accepted:
// ASCII digits, a leading '-' where lo < 0; no sign '+', no space, no other
// character. Leading zeros are accepted ("007" is 7).
std::string IntegerError(std::string_view text, std::int64_t lo, std::int64_t hi);
std::string IntegerError(std::string_view text, std::uint64_t lo, std::uint64_t hi);

// Quoted(text), a value the user gave as a message shows it: core/proc_parse.h.

// The integer `text` holds, when IntegerError is "".
std::optional<std::int64_t> ParseInteger(std::string_view text, std::int64_t lo, std::int64_t hi);
std::optional<std::uint64_t> ParseInteger(std::string_view text, std::uint64_t lo,
                                          std::uint64_t hi);

// A validator for CLI11 options of integer type: checks the text before
// CLI11 converts it, so the conversion never sees what it would wrap.
CLI::Validator Integer(std::int64_t lo, std::int64_t hi);
CLI::Validator Unsigned(std::uint64_t lo, std::uint64_t hi);

// A string option that cannot mean anything empty (a path, a name, a
// sentence, an identity): '' is a usage error, "OPTION: WHY" (exit 2),
// before any work — not a later "cannot open" or a silent default.
// `why` says what the empty value fails to be: "an empty path names no file".
CLI::Validator NonEmpty(const std::string& why);

// An option that takes one value each time it is given and may be given
// again for more (-c Q1 -c Q2, --expect V --expect W): what follows its one
// value is never taken as another (`sql -c Q a.ptape b.ptape` keeps both
// FILEs). Returns `option`.
CLI::Option* OneValueEach(CLI::Option* option);

// Domains used across the commands.
inline constexpr std::int64_t kMaxPidValue = 2147483647;  // pids 2..2^31-1 (docs/resolver.md)
// A pid option of a live command: a process the resolver may look at
// (2..2^31-1; below the host's pid_max is checked when the command runs).
// 1 is refused saying why: init is outside the resolver's pids
// (`docs/resolver.md`, "The eight steps", step 2: 2 to 2,147,483,647), and a
// sandbox's marker (its namespace pid) is often 1.
CLI::Validator LivePid();
// The error LivePid gives for `text` ("" when it is a live pid).
std::string LivePidError(std::string_view text);
// A pid option naming a process of a file: 1..2^31-1 (init is a process
// of a frame, the resolver only skips it).
CLI::Validator FilePid();

}  // namespace proctape

namespace proctape {

// An integer option: `name` takes a plain decimal in lo..hi (else a usage
// error naming it, the value and the range), shown in help as `type`.
template <typename Target>
CLI::Option* AddSigned(CLI::App* app, const std::string& name, Target& target, std::int64_t lo,
                       std::int64_t hi, const std::string& help, const std::string& type = "N") {
  return app->add_option(name, target, help)->check(Integer(lo, hi))->type_name(type);
}
// A pid option of a live command (LivePid), shown in help as PID.
template <typename Target>
CLI::Option* AddLivePid(CLI::App* app, const std::string& name, Target& target,
                        const std::string& help) {
  return app->add_option(name, target, help)->check(LivePid())->type_name("PID");
}
template <typename Target>
CLI::Option* AddUnsigned(CLI::App* app, const std::string& name, Target& target, std::uint64_t lo,
                         std::uint64_t hi, const std::string& help, const std::string& type = "N") {
  return app->add_option(name, target, help)->check(Unsigned(lo, hi))->type_name(type);
}
// --jobs N, -j N: `what` ("entries replayed") at once, 1 to 1024; the
// target stays 0 when it is not given: one per core.
CLI::Option* AddJobsOption(CLI::App* app, unsigned& jobs, const std::string& what);
// --shard K/N (corpus/shard.h): of `what` ("entries (by name)"), this
// shard's only; a value that is not K/N with 1 <= K <= N <= 1024 is a usage
// error naming --shard. The target stays inactive when it is not given.
CLI::Option* AddShardOption(CLI::App* app, Shard& shard, const std::string& what);

}  // namespace proctape
