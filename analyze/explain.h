// SPDX-License-Identifier: Apache-2.0
// `proctape explain`: a recorded check told step by step. The check is
// replayed with the identical resolver (or liveness) code against its tape,
// through an Evidence that only watches: every call the resolver makes and
// the answer the tape gives are kept, then told in order, grouped into
// attempts (an attempt starts with a listing of /proc; the sleep after it is
// the retry wait). Nothing is re-decided here: whether an argv matched is
// proven by the resolver going on to read environ, which process was the
// match by the executable identity it took, and every attempt that decided
// is summed up by the resolver's own verdict. Values of environ entries are
// never shown; only the number of entries named the token variable, and
// whether they carry the request's token.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "explain.pb.h"
#include "format/reader.h"

namespace proctape {

// Recorded check `index` of `snapshot` (which must hold it), explained.
v1::ExplainCheck ExplainRecordedCheck(const Snapshot& snapshot, std::size_t index);

// Every recorded check of `snapshot`, or only `only` (which must exist),
// under `file_name` (shown escaped).
v1::Explanation Explain(const Snapshot& snapshot, const std::string& file_name,
                        std::optional<std::size_t> only = std::nullopt);

// "+100.0 ms": a clock offset in milliseconds, to a tenth, rounded.
std::string FormatOffset(std::int64_t ns);

// Raw bytes escaped (core's EscapeBytes) and quoted; a quote inside is
// escaped too, so the quotes always delimit.
std::string QuoteBytes(std::string_view bytes);
// (Text a view holds escaped is quoted with QuoteEscaped: analyze/tree.h.)

// The explanation for people: escaped, deterministic, one fact a line.
// Consecutive attempts that read alike are told once ("attempts 3-49 ...:
// the same as attempt 2") unless `all`.
std::string RenderExplanation(const v1::Explanation& explanation, bool all);

}  // namespace proctape
