// SPDX-License-Identifier: Apache-2.0
// The one-line process description the views share (tree, diff, show's
// selections, ownership, explain): a process record as a ProcessSummary, and
// the text that quotes it. Every byte a host controls is escaped before it is
// printed (EscapeBytes), so a hostile name cannot forge lines or terminal
// escapes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "analyze/process_table.h"
#include "proto/summary.h"
#include "views.pb.h"

namespace proctape {

// One process as the views print and export it. `clock_ticks_per_second`
// (Header.host) gives start_seconds; out of 1..1,000,000 it is unknown.
v1::ProcessSummary Summarize(const ProcessView& process, std::int64_t clock_ticks_per_second);

// An escaped string between double quotes (DoubleQuoted, proto/summary.h;
// CutEscaped and QuoteEscaped are there too).
std::string Quoted(const std::string& escaped);

// A process's facts on one line, after its pid:
//   "sleep" S ppid=214 pgrp=214 sid=0 start=1310656 (13106.56s) uid=0 nspid=215,1
//   exe=65024:248056 argv="/bin/sleep" "120"
// (one line; wrapped here). argv elements are cut at 256 characters and after
// 32 elements in this form, never in JSON.
std::string ProcessFacts(const v1::ProcessSummary& process);

// The parts of ProcessFacts: argv ("/bin/sleep" "120", empty,
// unreadable(ESRCH)) and an executable identity (65024:248056, unreadable(ENOENT)).
std::string ArgvText(const v1::ProcessSummary& process);
std::string ExeText(const v1::IdentitySummary& identity);

// "215@1310656": the identity as the views print it.
std::string IdentityText(std::int64_t pid, std::uint64_t start_ticks);

}  // namespace proctape
