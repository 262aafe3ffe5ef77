// SPDX-License-Identifier: Apache-2.0
#include "replay/legacy_replay.h"

#include <cerrno>
#include <cstdint>
#include <vector>

#include "core/proc_parse.h"
#include "replay/frame_evidence.h"
#include "proto/summary.h"

namespace proctape {
namespace {

// A record of a process that existed when the frame read it: listed, and its
// stat not gone (ENOENT/ESRCH: it ended between the listing and the read).
const v1::ProcessRecord* LiveRecord(const v1::Frame& frame, std::int64_t pid) {
  const v1::ProcessRecord* r = RecordInFrame(frame, pid);
  if (r == nullptr) return nullptr;
  if (r->has_stat() && (r->stat().err() == ENOENT || r->stat().err() == ESRCH)) return nullptr;
  return r;
}

std::optional<StatusUids> UidsOf(const v1::ProcessRecord& r) {
  if (!r.has_status() || r.status().err() != 0) return std::nullopt;
  return ParseStatusUids(r.status().data());
}

v1::LegacyReport::Outcome ToOutcome(LegacyOutcome o) {
  switch (o) {
    case LegacyOutcome::kAlive: return v1::LegacyReport::ALIVE;
    case LegacyOutcome::kDead: return v1::LegacyReport::DEAD;
    case LegacyOutcome::kError: return v1::LegacyReport::ERROR;
    case LegacyOutcome::kInvalidMarker: return v1::LegacyReport::INVALID_MARKER;
  }
  return v1::LegacyReport::OUTCOME_UNSPECIFIED;
}

// A probe for a caller that is neither root nor the target's owner.
class StrangerProbe : public SignalProbe {
 public:
  explicit StrangerProbe(const v1::Frame& frame) : frame_(frame) {}
  int Kill0(std::int64_t pid) override { return LiveRecord(frame_, pid) ? EPERM : ESRCH; }

 private:
  const v1::Frame& frame_;
};

}  // namespace

std::optional<StatusUids> ParseStatusUids(std::string_view status) {
  std::optional<std::array<std::uint32_t, 4>> ids = StatusIds(status, "Uid");
  if (!ids) return std::nullopt;
  return StatusUids{(*ids)[0], (*ids)[2]};
}

int FrameSignalProbe::Kill0(std::int64_t pid) {
  const v1::ProcessRecord* r = LiveRecord(frame_, pid);
  if (r == nullptr) return ESRCH;
  if (caller_uid_ == 0) return 0;
  std::optional<StatusUids> uids = UidsOf(*r);
  if (uids && (uids->real == caller_uid_ || uids->saved == caller_uid_)) return 0;
  return EPERM;
}

v1::LegacyReport LegacyReplay(const Snapshot& snapshot, std::string_view marker) {
  const v1::Frame& frame = snapshot.frames.at(0);
  v1::LegacyReport report;
  report.set_marker(EscapedText(marker));
  report.set_frame_index(Count32(frame.index()));
  report.set_capturer_uid(snapshot.header.capturer_uid());

  // The sandboxed sleep, as the recorded resolution found it.
  const v1::Resolution* used = nullptr;
  for (const v1::Resolution& r : snapshot.resolutions) {
    if (!r.has_resolve() || !r.has_verdict()) continue;
    if (used == nullptr) used = &r;
    if (r.verdict().status() == v1::Verdict::RESOLVED) {
      used = &r;
      break;
    }
  }
  std::int64_t sleep = 0;  // the sandboxed sleep's host pid, if found
  if (used != nullptr) {
    report.set_resolution_recorded(true);
    // Absent, never STATUS_UNSPECIFIED, for a verdict without a status.
    if (used->verdict().status() != 0) report.set_recorded_status(used->verdict().status());
    if (used->verdict().status() == v1::Verdict::RESOLVED) sleep = used->verdict().pid();
    report.set_sandboxed_pid(Int32(sleep));
  }

  FrameSignalProbe capturer(frame, snapshot.header.capturer_uid());
  LegacyResult at_capture = LegacyMarkerCheck(marker, capturer);
  report.set_outcome(ToOutcome(at_capture.outcome));
  report.set_err(at_capture.err);
  report.set_capture_time("at capture time (capturer uid " +
                          std::to_string(snapshot.header.capturer_uid()) +
                          "): " + at_capture.detail);
  if (at_capture.outcome == LegacyOutcome::kInvalidMarker) {
    report.set_root_outcome(v1::LegacyReport::INVALID_MARKER);
    report.set_unprivileged_outcome(v1::LegacyReport::INVALID_MARKER);
    report.set_detail(at_capture.detail + ": the legacy check rejects it before probing anything");
    return report;
  }
  const std::int64_t pid = at_capture.pid;
  report.set_pid(Int32(pid));
  FrameSignalProbe root(frame, 0);
  StrangerProbe stranger(frame);
  report.set_root_outcome(ToOutcome(LegacyMarkerCheck(marker, root).outcome));
  report.set_unprivileged_outcome(ToOutcome(LegacyMarkerCheck(marker, stranger).outcome));

  const std::string n = std::to_string(pid);
  std::string tail;
  const v1::ProcessRecord* r = LiveRecord(frame, pid);
  std::string detail = "marker " + n + " names host pid " + n;
  if (r != nullptr) {
    report.set_present(true);
    std::optional<StatFields> stat = StatInFrame(frame, pid);
    if (stat) {
      report.set_comm(EscapedText(stat->comm));
    } else if (r->has_status() && r->status().err() == 0) {
      if (auto name = StatusValue(r->status().data(), "Name")) report.set_comm(EscapedText(*name));
    }
    std::optional<StatusUids> uids = UidsOf(*r);
    if (uids) {
      report.set_uid_known(true);
      report.set_uid(uids->real);
      report.set_saved_uid(uids->saved);
    }
    detail.append(" (")
        .append(report.comm().empty() ? std::string("comm unknown") : report.comm())
        .append(", ")
        .append(uids ? "uid " + std::to_string(uids->real) : std::string("uid unknown"))
        .append("): the legacy check reports EPERM for an unprivileged caller or ALIVE for root");
    if (uids && uids->real != 0)
      detail.append(" or its owner (uid ").append(std::to_string(uids->real)).append(")");
    if (sleep != 0 && sleep == pid) {
      tail = "; it is the sandboxed sleep itself (its host pid equals the marker)";
    } else if (sleep != 0) {
      tail =
          "; it is an unrelated process: the sandboxed sleep is host pid " + std::to_string(sleep);
    }
  } else {
    detail.append(", which no process held at capture time (frame ")
        .append(std::to_string(frame.index()))
        .append("): kill(")
        .append(n)
        .append(", 0) fails with ESRCH and the legacy check reports DEAD for every caller");
    if (sleep != 0) {
      tail = "; yet the sandboxed sleep is alive as host pid " + std::to_string(sleep);
    }
  }
  if (sleep == 0) {
    if (report.resolution_recorded()) {
      tail = "; the recorded resolution did not find the sandboxed sleep (" +
             StatusText(report.recorded_status()) + ")";
    } else {
      tail = "; no recorded resolution in the file names the sandboxed sleep's host pid";
    }
  }
  report.set_detail(detail + tail);
  return report;
}

std::string DescribeLegacy(const v1::LegacyReport& report) {
  return report.detail() + "\n" + report.capture_time() + "\n";
}

}  // namespace proctape
