// SPDX-License-Identifier: Apache-2.0
// What the legacy check would have done (`docs/resolver.md`, "The legacy
// check"; `proctape replay --legacy-marker`): the marker N
// taken as a host pid and probed with kill(N, 0) (core/legacy_marker.h), with
// the probe answered from a captured frame instead of a live signal, so that
// the report shows, from real evidence, which unrelated host process the
// legacy check would have probed and what it would have concluded.
//
// The probe's rule (FrameSignalProbe), for a caller of uid C:
//   - no record of the pid in the frame, or a record whose stat read failed
//     with ENOENT or ESRCH (the process ended during the scan): ESRCH;
//   - C == 0 (root, CAP_KILL): 0;
//   - C equals the target's real uid or its saved set-user-ID (the first and
//     third fields of the status Uid line; the kernel's check for a caller
//     whose real and effective uid are both C): 0;
//   - otherwise EPERM — also when the status holds no readable Uid line (the
//     uids cannot be compared; the report says "uid unknown").
// A zombie is still a process: kill(pid, 0) on it succeeds, so state is not
// looked at.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/legacy_marker.h"
#include "format/reader.h"
#include "proctape.pb.h"

namespace proctape {

// The uids of a status file's "Uid:" line: real (field 1) and saved (field 3).
struct StatusUids {
  std::uint32_t real = 0;
  std::uint32_t saved = 0;
};
std::optional<StatusUids> ParseStatusUids(std::string_view status);

class FrameSignalProbe : public SignalProbe {
 public:
  // `frame` must outlive the probe; `caller_uid` is the caller's uid.
  FrameSignalProbe(const v1::Frame& frame, std::uint32_t caller_uid)
      : frame_(frame), caller_uid_(caller_uid) {}
  int Kill0(std::int64_t pid) override;

 private:
  const v1::Frame& frame_;
  std::uint32_t caller_uid_;
};

// The report for `marker` (as the sandbox wrote it: "3" or "3\n"), from the
// first frame of `snapshot` (frame 0 of a recording: taken just before the
// resolution), the capturer's uid from the header, and the sandboxed sleep's
// host pid from the first RESOLVED recorded resolution. The snapshot must
// hold at least one frame.
v1::LegacyReport LegacyReplay(const Snapshot& snapshot, std::string_view marker);

// The report as two human lines: the comparison, then the capture-time result.
std::string DescribeLegacy(const v1::LegacyReport& report);

}  // namespace proctape
