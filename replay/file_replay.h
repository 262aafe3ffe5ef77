// SPDX-License-Identifier: Apache-2.0
// A replay of a file as `proctape replay` asks for it (docs/replay.md): the
// file read (masked: replay/recording_read.h), the request options applied
// (a what-if: the words given, a fingerprint taken before the turn, the
// executable of a captured pid), then one of
//   - the tape model: every recorded check against its own tape
//     (ReplayTape, replay/replay_file.h);
//   - the frame model: every recorded check re-run on the captured frames,
//     or, in a plain capture, the request of the options
//     (ReplayFrames, ReplayRequestOnFrames);
//   - the legacy check (--legacy-marker): what kill(N, 0) would have
//     concluded from the first frame (replay/legacy_replay.h).
// Nothing is said here: the outcome holds what to say, in order (the notes
// before the results), and what stopped the replay. The exit status of a
// replay is its verdicts' (the CLI's to compute from the runs).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "proctape.pb.h"
#include "replay/recording_read.h"
#include "replay/replay.h"
#include "replay/replay_file.h"

namespace proctape {

enum class ReplayModel { kTape, kFrames };

struct FileReplayRequest {
  std::string file;  // a path, or "-"
  ReplayModel model = ReplayModel::kTape;
  // The words that replace the recorded ones, checked by the caller.
  RequestOverrides overrides;
  bool root_given = false;                   // --root (the frames of a plain capture need a root)
  bool token_given = false;                  // --token (and a token)
  std::optional<std::string> legacy_marker;  // --legacy-marker: the legacy check only
  std::optional<std::int64_t> exe_like;      // --exe-like PID: its exe in the first frame
  // --fingerprint: called once the file is read with its boot id as read,
  // it gives the fingerprint whose root, start tick and executable replace
  // the recorded ones, or nullopt when it has none to give (it said why:
  // the replay stops, FileReplayOutcome::fingerprint_refused). Empty: none.
  std::function<std::optional<v1::RootFingerprint>(const std::string& boot_id)> fingerprint;
};

struct FileReplayOutcome {
  // request.fingerprint gave none: nothing else is done or said.
  bool fingerprint_refused = false;
  // What stopped the replay: the file's damage (kIo..kTooLarge, about its
  // name masked), or kUsage: nothing to replay (no recorded check, no
  // frame), an --exe-like pid without an executable identity, options the
  // file cannot take (a plain capture without --root or --token).
  MaybeFileFailure failure;
  // Said before the results (or the failure): how to read them (a token
  // asked of environs stored redacted, a root absent from the first frame).
  std::vector<std::string> notes;
  std::optional<v1::LegacyReport> legacy;  // --legacy-marker
  std::vector<v1::ReplayResult> tape;      // the tape model's replays, masked
  std::vector<FrameReplay> frame_runs;     // the frame model's runs, masked
  v1::ReplayReport report;                 // the tape's or the frames' runs, as --json prints them
};

// The replay `request` asks for (the header's steps, in that order).
FileReplayOutcome ReplayFileAsRequested(const FileReplayRequest& request);

}  // namespace proctape
