// SPDX-License-Identifier: Apache-2.0
// Environment redaction (`docs/format.md` section 6). Environ values carry
// secrets on CI hosts, so by default a capture or a recorded resolution never
// stores them: each value is replaced by '*' bytes of the same length.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace proctape {

// Redacts NUL-delimited environ bytes as read from /proc/PID/environ.
//
// The block is split at NUL exactly like SplitNul (core/proc_parse.h): no
// trimming, empty entries kept, bytes after the last NUL form a final entry.
// Then, per entry:
//   - an entry equal byte-for-byte to one of `kept_entries` (the recorded
//     token, e.g. "PROCTAPE_TOKEN=3f9c...") is kept verbatim, so a replay
//     sees the same token evidence;
//   - "KEY=VALUE": KEY and the first '=' are kept, every byte of VALUE
//     becomes '*' ("PATH=/bin" -> "PATH=****");
//   - an entry without '=' becomes all '*'. It has no key to keep, and its
//     bytes may themselves be the secret (a program can put anything in its
//     environ), so the safe choice is to hide all of it.
// The NUL structure is preserved exactly (a missing final NUL stays missing,
// empty entries stay empty), so the result has exactly as many bytes as the
// input: a resolver replaying it spends the same byte budget, counts the same
// entries and finds the same keys.
//
// Caveat: a redacted value "KEY=***" is indistinguishable from a real value
// of '*' bytes. A token made only of '*' would therefore make a stale token
// entry look like the kept one on replay; real tokens are never like that.
std::string RedactEnviron(std::string_view environ, const std::vector<std::string>& kept_entries);

}  // namespace proctape
