// SPDX-License-Identifier: Apache-2.0
#include "format/file_holds.h"

#include "core/proc_parse.h"
#include "fs/output_file.h"

namespace proctape {

std::string FileHolds(const Snapshot& s) {
  const std::string frames = Plural(s.frames.size(), "frame", "frames");
  if (!s.resolutions.empty()) {
    return "a recording (" + Plural(s.resolutions.size(), "recorded check", "recorded checks") +
           ", " + frames + ")";
  }
  if (!s.fingerprints.empty()) {
    const v1::RootFingerprint& f = s.fingerprints.front();
    return "a fingerprint file (root " + std::to_string(f.root_pid()) + " at start tick " +
           std::to_string(f.root_start_ticks()) + ")";
  }
  if (!s.frames.empty()) return "a capture (" + frames + ")";
  return "an empty file (no frame, no recorded check, no fingerprint)";
}

bool KeepsEnvironValues(const v1::Header& header) {
  return header.redaction().environ() == v1::RedactionPolicy::ENVIRON_KEPT ||
         header.redaction().kept_entries_size() > 0;
}

bool KeepOwnerOnly(const v1::Header& header, OutputFile& output) {
  if (!KeepsEnvironValues(header)) return false;
  output.KeepOwnerOnly();
  return header.redaction().environ() == v1::RedactionPolicy::ENVIRON_KEPT;
}

std::string NoSuchFrameIn(std::string_view option, std::uint64_t frame, std::string_view name,
                          const Snapshot& snapshot) {
  std::string out = NoSuchFrame(option, frame, name, snapshot.frames.size());
  if (snapshot.frames.empty()) out += ": it is " + FileHolds(snapshot);
  return out;
}

}  // namespace proctape
