// SPDX-License-Identifier: Apache-2.0
// Fuzz target `manifest`: the corpus manifest parser (corpus/manifest.h) on
// arbitrary text. Invariants: a failure names a line within the text (or 0,
// the file as a whole) and says why; a manifest that parses is formatted and
// parsed back to the same entries (the documented round trip).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "corpus/manifest.h"
#include "tests/fuzz/fuzz_support.h"

using namespace proctape;

namespace {

bool SameEntry(const ManifestEntry& a, const ManifestEntry& b) {
  return a.name == b.name && a.file == b.file && a.sha256 == b.sha256 && a.expects == b.expects &&
         a.shows == b.shows && a.kernel == b.kernel && a.captured == b.captured &&
         a.scenario == b.scenario;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Manifest manifest;
  ManifestError error;
  if (!ParseManifest(text, &manifest, &error)) {
    if (error.message.empty()) fuzz::Broken("ParseManifest failed without saying why");
    std::size_t lines = 1;
    for (char c : text) lines += c == '\n';
    if (error.line < 0 || static_cast<std::size_t>(error.line) > lines) {
      fuzz::Broken("ParseManifest names line " + std::to_string(error.line) + " of " +
                   std::to_string(lines));
    }
    return 0;
  }
  for (const ManifestEntry& e : manifest.entries) {
    if (!IsEntryName(e.name)) fuzz::Broken("ParseManifest accepted a bad entry name");
    (void)EscapeValue(e.scenario);
  }
  const std::string formatted = FormatManifest(manifest);
  Manifest again;
  ManifestError again_error;
  if (!ParseManifest(formatted, &again, &again_error)) {
    fuzz::Broken("a formatted manifest does not parse: line " + std::to_string(again_error.line) +
                 ": " + again_error.message);
  }
  if (again.entries.size() != manifest.entries.size()) {
    fuzz::Broken("a formatted manifest parses to another number of entries");
  }
  for (std::size_t i = 0; i < again.entries.size(); ++i) {
    if (!SameEntry(again.entries[i], manifest.entries[i])) {
      fuzz::Broken("a formatted manifest parses to another entry " + std::to_string(i));
    }
  }
  if (FormatManifest(again) != formatted) fuzz::Broken("FormatManifest is not stable");
  return 0;
}
