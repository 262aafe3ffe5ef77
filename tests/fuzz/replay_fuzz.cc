// SPDX-License-Identifier: Apache-2.0
// Fuzz target `replay`: tape replay and the frame model on decoded-then-
// mutated files (the structure-aware input of tests/fuzz/snapshot_input.h:
// a serialized SnapshotExport, encoded by the real writer and read back).
// Every recorded resolution is replayed against its tape (as recorded, and
// with the request changed), re-run on the frames, and described; a file
// without resolutions runs the frame model with a request taken from its
// first frame, as `replay --model frames --root --token --exe-like` does;
// the legacy check runs on the first frame. Replay must end (the resolver's
// attempts are bounded whatever the file says: core/resolver.h), so a slow
// input is a libFuzzer timeout.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "proto/convert.h"
#include "replay/frame_evidence.h"
#include "replay/legacy_replay.h"
#include "replay/replay.h"
#include "replay/token_mask.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/snapshot_input.h"

using namespace proctape;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Snapshot snapshot;
  if (!fuzz::DecodeSnapshotInput(data, size, &snapshot)) return 0;
  std::string out;
  const TokenMask mask = TokenMask::Of(snapshot);
  std::vector<v1::ReplayResult> results;
  for (std::size_t i = 0; i < snapshot.resolutions.size(); ++i) {
    results.push_back(ReplayResolution(snapshot, i, {}));
    mask.Mask(&results.back());
    out += DescribeReplay(results.back());
    FrameRun run = RerunOnFrames(snapshot, i, {});
    out += DescribeFrameRun(run);
    // What if: another root, token and argv than recorded.
    RequestOverrides what_if;
    what_if.root_pid = snapshot.frames.empty() || snapshot.frames[0].processes().empty()
                           ? 1
                           : snapshot.frames[0].processes(0).pid();
    what_if.token = "fuzz";
    what_if.argv = std::vector<std::string>{"/bin/sh"};
    out += DescribeReplay(ReplayResolution(snapshot, i, what_if));
    out += DescribeFrameRun(RerunOnFrames(snapshot, i, what_if));
  }
  (void)WorstOutcome(results);
  out += ToJson(TapeReplayReport("input.ptape", results));

  if (!snapshot.frames.empty()) {
    const std::int64_t start = FrameModelStart(snapshot, nullptr);
    FrameEvidence at_start(snapshot.frames, start);
    const v1::Frame& first = snapshot.frames[*at_start.FrameInForce()];
    Request request;
    request.token = "fuzz";
    if (!first.processes().empty()) {
      const std::int64_t pid = first.processes(first.processes_size() / 2).pid();
      request.root_pid = pid;
      if (std::optional<StatFields> root = StatInFrame(first, pid)) {
        request.root_start_ticks = root->start_ticks;
      }
      request.exe = ExeInFrame(first, pid);
      out += LegacyReplay(snapshot, std::to_string(pid) + "\n").ShortDebugString();
    }
    out += DescribeFrameRun(RunOnFrames(snapshot, request, start, "/bin/sleep"));
  }
  fuzz::Keep(out.size());
  return 0;
}

#ifdef PROCTAPE_LIBFUZZER
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
  return fuzz::MutateSnapshotInput(data, size, max_size, seed);
}
#endif
