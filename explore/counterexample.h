// SPDX-License-Identifier: Apache-2.0
// A counterexample of `proctape explore` as a standalone recording: one
// history of one check, re-run on the host model through the real recorder,
// written by the real writer in the layout of a live recording
// (capture/live_record.h):
//
//   header, frame 0 (the model before any event), the tape of the run,
//   frame 1 (the model after it), Resolution{the recorded request, the
//   verdict of this run, observations 0..N-1}, footer
//
// `proctape replay` reproduces it (the tape is exactly what the resolver was
// answered) and `proctape corpus add` accepts it. It is marked as derived
// without a schema change: the header's tool_version ends in
// " (derived by explore)" and its command_line, the words a reader shows as
// "how the capture was requested", are
//   proctape explore SOURCE --check N --derived EVENT...
// each EVENT one line of Describe() ("at call 12: pid 257 exits ...").
// Host facts, boot id and the redaction policy are the source's.
//
// `proctape minimize` writes its output the same way, by "minimize":
// " (derived by minimize)", `proctape minimize SOURCE --check N --derived
// EVENT...`. DerivedHistory reads the events back.
#pragma once

#include <optional>
#include <string>

#include "core/failure.h"
#include "explore/search.h"
#include "format/reader.h"
#include "format/writer.h"

namespace proctape::explore {

// Writes the recording of `history` run on `setup` by `checker` through
// `writer` (finished: "" on success, else why not), marked as derived by
// `tool` ("explore", "minimize") from check `setup.index` of `source_name`.
std::string WriteDerived(SnapshotWriter& writer, const std::string& tool, const Snapshot& source,
                         const std::string& source_name, const CheckSetup& setup,
                         const History& history, const Checker& checker);

// The events of a recording derived by explore or minimize (empty: none, or
// a recording that is not derived); nullopt, with *failure of kind kCorrupt,
// when its list of events does not parse.
std::optional<History> DerivedHistory(const Snapshot& snapshot, Failure* failure);

// Writes the counterexample of `history` to `path` (replacing a file there);
// "" on success, else why not.
std::string WriteCounterexample(const std::string& path, const Snapshot& source,
                                const std::string& source_name, const CheckSetup& setup,
                                const History& history, const Checker& checker);

}  // namespace proctape::explore
