// SPDX-License-Identifier: Apache-2.0
// Fuzz target `proc_parse`: the parsers of /proc text on arbitrary bytes --
// stat (a hostile comm: ") ", newlines, anything), status lines, NUL-split
// cmdline and environ, canonical decimals, the legacy marker, the status Uid
// line, environ redaction, and the proc-dir side files. Invariants checked
// (each a documented contract): a canonical decimal prints back as its text;
// JoinNul then SplitNul gives the elements back; redaction keeps the length
// and the NULs; a parsed stat keeps its fields in their ranges; escaped text
// holds printable ASCII only.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "procdir/facts.h"
#include "core/redact.h"
#include "core/legacy_marker.h"
#include "core/proc_parse.h"
#include "replay/legacy_replay.h"
#include "tests/fuzz/fuzz_support.h"

using namespace proctape;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  for (std::uint64_t max : {UINT64_MAX, kMaxPid, std::uint64_t{0}}) {
    if (std::optional<std::uint64_t> v = ParseCanonicalDecimal(text, max)) {
      if (*v > max || std::to_string(*v) != text)
        fuzz::Broken("a canonical decimal is not its text");
    }
  }

  StatParse stat = ParseStat(text);
  if (stat.ok()) {
    const StatFields& f = *stat.fields;
    if (f.pid < 1 || f.pid > static_cast<std::int64_t>(kMaxPid) || f.ppid < 0 ||
        f.ppid > static_cast<std::int64_t>(kMaxPid)) {
      fuzz::Broken("ParseStat accepted a pid or ppid out of range");
    }
  } else if (stat.error.empty()) {
    fuzz::Broken("ParseStat failed without saying why");
  }

  std::vector<std::string_view> parts = SplitNul(text);
  std::vector<std::string> elements(parts.begin(), parts.end());
  const std::string joined = JoinNul(elements);
  std::vector<std::string_view> again = SplitNul(joined);
  if (again.size() != parts.size() || !std::equal(again.begin(), again.end(), parts.begin())) {
    fuzz::Broken("SplitNul(JoinNul(elements)) is not the elements");
  }

  for (std::string_view key : {"Name", "State", "PPid", "NSpid", "Uid", "Tgid", ""}) {
    if (std::optional<std::string_view> v = StatusValue(text, key)) {
      if (v->data() < text.data() || v->data() + v->size() > text.data() + text.size()) {
        fuzz::Broken("StatusValue points outside its input");
      }
    }
  }
  (void)ParseStatusUids(text);
  (void)ParseMarker(text);

  // Redaction: the first element is kept verbatim, the rest redacted.
  std::vector<std::string> kept;
  if (!parts.empty()) kept.emplace_back(parts.front());
  std::string redacted = RedactEnviron(text, kept);
  if (redacted.size() != text.size() || SplitNul(redacted).size() != parts.size()) {
    fuzz::Broken("RedactEnviron changed the length or the entries");
  }

  std::string escaped = EscapeBytes(text, size % 300);
  for (char c : escaped) {
    if (c < 0x20 || c > 0x7e) fuzz::Broken("EscapeBytes left a byte that is not printable");
  }

  std::int64_t ns = 0;
  for (std::size_t i = 0; i < size && i < 8; ++i) {
    ns = static_cast<std::int64_t>((static_cast<std::uint64_t>(ns) << 8) | data[i]);
  }
  (void)DurationText(ns);
  (void)Plural(static_cast<std::uint64_t>(ns), "one", "many");

  IdentityFacts identity;
  FrameFacts frame;
  std::string error;
  (void)ParseIdentityFacts(text, &identity);
  (void)ParseFrameFacts(text, &frame);
  return 0;
}
