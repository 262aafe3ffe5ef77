// SPDX-License-Identifier: Apache-2.0
// The stored messages of a file as the views print them: the *Summary
// messages of proctape.proto's command output section. They follow the JSON
// rule every --json output keeps (docs/cli/json.md):
//   - counts and lengths are uint32, pids int32, byte totals and durations
//     double, so that protobuf's JSON mapping prints them as numbers;
//   - 64-bit values (start ticks, device and inode numbers, instants on a
//     clock) stay 64-bit: the mapping prints them as strings;
//   - bytes a host or a file controls are escaped text (EscapeBytes: printable
//     ASCII as is, every other byte and the backslash as \xNN), never base64.
// `export --format json` alone prints the stored messages themselves.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "proctape.pb.h"

namespace proctape {

// A count as a view prints it: below 2^32 in every file proctape reads (its
// chunks, frames and records are bounded far below); a larger one is shown as
// 4294967295, "at least that many".
std::uint32_t Count32(std::uint64_t n);

// A pid-like value (pid, parent, process group, session, pid_max) as a view
// prints it. A kernel's pid_t is 32-bit, so every value a kernel gives fits;
// one that does not (only a hand-made file holds one) is shown as
// kNotA32BitValue, which no kernel prints.
inline constexpr std::int32_t kNotA32BitValue = INT32_MIN;
std::int32_t Int32(std::int64_t v);

// Bytes a host or a file controls, whole, as escaped text (EscapeBytes with
// no cut).
std::string EscapedText(std::string_view bytes);
// Text proctape composed, read back from an untrusted file: printable ASCII
// as is (backslashes too: such text may already hold escapes), other bytes
// as \xNN.
std::string Printable(std::string_view text);
// An escaped string between double quotes, its own quotes as \x22: the quote
// marks delimit it unambiguously.
std::string DoubleQuoted(std::string_view escaped);
// Escaped text (a summary's comm, argv, path) cut as EscapeBytes cuts the
// bytes it stands for, after 256 of them ("\xNN" is one), with "..." after;
// and that, quoted as DoubleQuoted quotes: what EscapeBytes and a quote give
// for the raw bytes.
std::string CutEscaped(std::string_view escaped);
std::string QuoteEscaped(std::string_view escaped);
// Escaped argv elements, each QuoteEscaped, separated by spaces: at most 16,
// then how many more ("\"/bin/sleep\" \"120\"").
std::string QuotedArgv(const google::protobuf::RepeatedPtrField<std::string>& argv);
// A byte total or a duration a summary holds as a double (an integer below
// 2^53), as the text prints it: "2379".
std::string IntegerText(double v);
// That double back as an integer for the text: exact below 2^53, held to
// the integer's range beyond it (a hand-made file may hold anything).
std::int64_t AsInt64(double v);
std::uint64_t AsUint64(double v);
// "2026-12-01T03:24:48.781Z" for CLOCK_REALTIME nanoseconds; empty when unknown.
std::string UtcText(std::int64_t realtime_ns);

v1::IdentitySummary ToSummary(const v1::FileIdentity& identity);
v1::BoundsSummary ToSummary(const v1::Bounds& bounds);
// A stored verdict's (liveness check's) status as every output names it:
// the schema's name ("NO_MATCH"), or "unknown status" (0) and "unknown
// status N" (a value this proctape does not know: a hand-made file), never
// an UNSPECIFIED name. A summary holds such a status absent.
std::string StatusText(int status);
std::string LivenessStatusText(int status);
// A liveness verdict as every view names it: its status ("ALIVE", "ERROR
// PID_REUSED"), and " (boot not checked)" when the identity named no boot
// (docs/resolver.md, "Liveness").
std::string LivenessText(const v1::LivenessSummary& verdict);
// The same and what it found: "ERROR PID_REUSED: pid 7 has start tick 9, ...".
std::string LivenessLine(const v1::LivenessSummary& verdict);
v1::VerdictSummary ToSummary(const v1::Verdict& verdict);
// One near miss (Verdict.near_misses), its detail a sentence naming the
// first rule it did not pass.
v1::NearMissSummary ToSummary(const v1::NearMiss& near_miss);
// The process a failure names, by its identity: "pid 56, start tick
// 1310700", "pid 56, start tick unknown" (none read, or a file written
// before verdicts kept it); empty when it names none.
std::string SubjectText(const v1::VerdictSummary& verdict);
// The lines naming a verdict's near misses, each after `indent`
// ("near miss: pid 296, start tick 1310686: argv ...: not the expected
// argv"), then how many were not listed; empty when it names none.
std::string NearMissLines(const v1::VerdictSummary& verdict, std::string_view indent);
v1::LivenessSummary ToSummary(const v1::LivenessVerdict& verdict);
// `file_boot_id` is the boot id of the file that holds the fingerprint (its
// header's), to say whether the fingerprint was taken in the same boot.
v1::FingerprintSummary ToSummary(const v1::RootFingerprint& fingerprint,
                                 std::string_view file_boot_id);
// The token is never copied: its length only.
v1::RequestSummary ToSummary(const v1::ResolutionRequest& request, std::string_view file_boot_id);
v1::LivenessRequestSummary ToSummary(const v1::LivenessRequest& request);
v1::CheckSummary ToSummary(const v1::Resolution& check, std::uint32_t index,
                           std::string_view file_boot_id);
v1::ReplaySummary ToSummary(const v1::ReplayResult& result);

}  // namespace proctape
