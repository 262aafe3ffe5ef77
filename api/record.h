// SPDX-License-Identifier: Apache-2.0
// The library's resolution with its record policy, on any Evidence: the live
// host for Resolve (live.cc), the in-memory host for the unit tests.
// Internal: not installed.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "capture/frame_scanner.h"
#include "capture/live_record.h"
#include "core/evidence.h"
#include "core/resolver.h"
#include "fs/output_file.h"
#include "proctape.pb.h"
#include "proctape/live.h"

namespace proctape::api::detail {

// RecordPolicy's output, opened (and so checked: fs/output_file.h)
// before any work, with no interrupt handler. Null for kNever; null with
// *error when refused (kInvalidArgument for an empty path, kRecordRefused
// otherwise).
std::unique_ptr<OutputFile> OpenRecording(const RecordPolicy& policy, Error* error);

// Resolves `request` (its root and executable the fingerprint's:
// ApplyFingerprint) on `evidence`. Without `output` nothing is recorded.
// With it, capture's one record pipeline (RecordChecks) streams the tape to
// its temporary while the resolver runs, and writes:
//   kAlways: header, a frame before, the tape, a frame after, the
//            Resolution, footer: what `proctape resolve --record` writes;
//   kOnFailure: header, the tape, and only for a verdict other than
//            RESOLVED a frame taken just after it, the Resolution and the
//            footer; on RESOLVED the temporary is removed, nothing is left.
// `header` is the recording's (FillHeader); its kept entries are set here.
ResolveResult ResolveRecorded(Evidence& evidence, proctape::Request request,
                              const v1::RootFingerprint& fingerprint, Record when,
                              std::unique_ptr<OutputFile> output, const FrameSource& frames,
                              v1::Header header);

}  // namespace proctape::api::detail
