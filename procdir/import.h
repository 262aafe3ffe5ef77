// SPDX-License-Identifier: Apache-2.0
// Importing a proc-dir (`capture --proc-root`): the parts of an import that
// the CLI and the proc_root fuzz target must do alike.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "procdir/facts.h"
#include "capture/frame_scanner.h"
#include "proctape.pb.h"

namespace proctape {

// The header of a frame imported from a directory: its host is not this
// machine, so host facts and the pid namespace its pids belong to come from
// the recorded frame's `facts` (proctape-frame; null: stay unknown, empty or
// 0), its start times too; the capturer is who imported it. When given,
// *import_start_mono_ns is the import's own start on this machine's clock
// (what the header holds before the recorded times replace it).
v1::Header ImportHeader(const ScanOptions& scan, const std::vector<std::string>& command_line,
                        const FrameFacts* facts, std::int64_t* import_start_mono_ns = nullptr);

}  // namespace proctape
