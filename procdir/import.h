// SPDX-License-Identifier: Apache-2.0
// Importing a proc-dir (`capture --proc-root`): the parts of an import that
// the CLI and the proc_root fuzz target must do alike.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "capture/capture_run.h"
#include "capture/frame_scanner.h"
#include "core/failure.h"
#include "procdir/evidence.h"
#include "procdir/facts.h"
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

// The directory `capture --proc-root` names, opened sealed
// (ProcDirEvidence::Open, whose failures it gives), or null with *failure
// of kind kUsage when it holds no process: an empty or unrelated directory
// is no copy of /proc, not a frame of 0 processes. The message names no path
// when DIR held no process; Open's name DIR first.
std::unique_ptr<ProcDirEvidence> OpenImportDir(const std::string& dir, Failure* failure);

// `dir` as the source of a capture (capture/capture_run.h): one frame read
// sealed inside it, each record given its link texts, a damaged side file
// failing the capture; its recorded frame's facts (proctape-frame) give the
// frame's times and cut, the header (ImportHeader) and scan->kept_entries.
// A kUsage failure when scan->keep_environ asks for environ values DIR holds
// redacted (`dir_name`, as given, names it); *source is then not set.
MaybeFailure ImportSource(std::unique_ptr<ProcDirEvidence> dir, const std::string& dir_name,
                          const std::vector<std::string>& command_line, ScanOptions* scan,
                          capture::EvidenceSource* source);

}  // namespace proctape
