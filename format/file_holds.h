// SPDX-License-Identifier: Apache-2.0
// What a .ptape file holds, in words, for every view that cannot show it
// (tree, diff, export, explain of a fingerprint file; resolve --fingerprint
// of a capture): one function, so each says the same.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "format/reader.h"

namespace proctape {

class OutputFile;

// "a fingerprint file (root 4242 at start tick 99)", "a recording (1
// recorded check, 2 frames)", "a capture (3 frames)", or "an empty file (no
// frame, no recorded check, no fingerprint)".
std::string FileHolds(const Snapshot& snapshot);

// Does a file of this header keep environment values? Its redaction is
// ENVIRON_KEPT (capture --env keep), or it lists entries kept verbatim (a
// recording's token entry). Such a file, and whatever is made of it (an
// export, a corpus copy), is 0600 (fs/output_file.h, rule 2).
bool KeepsEnvironValues(const v1::Header& header);
// Keeps `output`, made of a file of `header`, to its owner
// (OutputFile::KeepOwnerOnly) when that file keeps environment values; true
// when they are the values of --env keep (ENVIRON_KEPT), which the command
// that writes it says (a recording's token entry alone is not said).
bool KeepOwnerOnly(const v1::Header& header, OutputFile& output);

// NoSuchFrame (core/proc_parse.h) for `snapshot`, shown as `name`: a file of
// no frame says what it is instead ("--frame 0: fp.ptape has no frame: it is
// a fingerprint file (root 4242 at start tick 99)").
std::string NoSuchFrameIn(std::string_view option, std::uint64_t frame, std::string_view name,
                          const Snapshot& snapshot);

}  // namespace proctape
