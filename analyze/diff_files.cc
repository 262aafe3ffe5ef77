// SPDX-License-Identifier: Apache-2.0
#include "analyze/diff_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <utility>

#include "analyze/diff.h"
#include "core/proc_parse.h"
#include "format/file_holds.h"

namespace proctape {
namespace {

Failure Usage(std::string message) { return Failure(FailureKind::kUsage, std::move(message)); }

// The file `path` names ('-': standard input's), or false.
bool StatOf(const std::string& path, struct stat* st) {
  return path == "-" ? ::fstat(STDIN_FILENO, st) == 0 : ::stat(path.c_str(), st) == 0;
}

// Whether A and B name one file (the same device and inode, through a link,
// another path, or standard input redirected from it).
bool SameFile(const std::vector<std::string>& files) {
  struct stat a = {}, b = {};
  if (files.size() != 2 || !StatOf(files[0], &a) || !StatOf(files[1], &b)) return false;
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// When frame `k` of `s` was captured on the wall clock: the file's start
// plus the frame's offset from it on the monotonic clock; none when the file
// says no time (an import of a fixture without proctape-frame has one all
// the same: when it was imported).
std::optional<std::int64_t> FrameWallNs(const Snapshot& s, std::size_t k) {
  if (k >= s.frames.size() || s.header.capture_start_realtime_ns() == 0) return std::nullopt;
  return s.header.capture_start_realtime_ns() +
         (s.frames[k].scan_start_mono_ns() - s.header.capture_start_mono_ns());
}

// A diff says what changed from A to B: an A captured after B reads every
// change backwards (an exit as an appearance). One warning says so; the
// report is kept (comparing backwards can be meant).
std::optional<std::string> Reversed(const DiffSide& a, const DiffSide& b) {
  const std::optional<std::int64_t> at = FrameWallNs(*a.snapshot, a.frame);
  const std::optional<std::int64_t> bt = FrameWallNs(*b.snapshot, b.frame);
  if (!at || !bt || *at <= *bt) return std::nullopt;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3f", static_cast<double>(*at - *bt) / 1e9);
  return "the order looks reversed: " + a.name + " frame " + std::to_string(a.frame) +
         " was captured " + seconds + " s after " + b.name + " frame " + std::to_string(b.frame) +
         ", and diff says what changed from the first to the second (give the older first)";
}

// The files as read: a damaged one that still holds frames is compared on
// those, its damage said first (the status stays its).
struct DiffInputs {
  ViewFile files[2];
  std::vector<Failure> damages;  // "FILE: DAMAGE", in file order
};

// Only the frames compared are kept whole (the others as their shells, so
// every count is the file's) and no observation. A frame not given may be
// the last complete one, known once the file is read: a first read then
// keeps no frame, and a second the ones compared.
MaybeFailure ReadFiles(const DiffRequest& r, DiffInputs* in) {
  const bool two = r.files.size() == 2;
  for (std::size_t k = 0; k < r.files.size(); ++k) {
    // The frames of file k compared, as the sides pick them.
    const std::optional<std::size_t> given[2] = {r.frame_a, r.frame_b};
    const bool needs_last = two ? k == 0 && !r.frame_a : !r.frame_b;
    auto compared = [&](const Snapshot& s) {
      if (two) {
        return std::vector<std::uint64_t>{given[k].value_or(k == 0 ? LastCompleteFrame(s) : 0)};
      }
      return std::vector<std::uint64_t>{r.frame_a.value_or(0),
                                        r.frame_b.value_or(LastCompleteFrame(s))};
    };
    ReadKeep keep;
    keep.observations = false;
    if (!needs_last) keep.frames = compared(Snapshot{});
    if (MaybeFailure failed = ReadViewFile(
            r.files[k], keep, needs_last ? FramesToKeep(compared) : nullptr, &in->files[k])) {
      return failed;
    }
    if (MaybeFailure damage = in->files[k].Damage()) in->damages.push_back(std::move(*damage));
  }
  return std::nullopt;
}

// The two sides compared, or why there are none.
MaybeFailure PickSides(const DiffRequest& r, const DiffInputs& in, DiffSide* side_a,
                       DiffSide* side_b) {
  const bool two = r.files.size() == 2;
  const Snapshot& a = in.files[0].snapshot;
  const Snapshot& b = in.files[two ? 1 : 0].snapshot;
  const std::string& name_a = in.files[0].name;
  if (!two && !r.frame_a && !r.frame_b && a.frames.size() < 2) {
    // A file of no frame says what it is (FileHolds), as every view does.
    if (a.frames.empty()) return Usage(name_a + " has no frame: it is " + FileHolds(a));
    return RefuseView(in.damages,
                      name_a + " holds one frame: give a second file to compare it with");
  }
  const bool frames = !r.frames.empty();
  *side_a = {&a, name_a, r.frame_a.value_or(two ? LastCompleteFrame(a) : 0),
             frames ? "--frames" : "--frame-a"};
  *side_b = {&b, in.files[two ? 1 : 0].name, r.frame_b.value_or(two ? 0 : LastCompleteFrame(b)),
             frames ? "--frames" : "--frame-b"};
  // A and B one file, a frame of each by default (A's last complete frame,
  // B's first) that is one frame: the file holds one. (A frame it does not
  // have is said as such, by BuildDiff.)
  if (two && r.one_file && side_a->frame == side_b->frame && side_a->frame < a.frames.size()) {
    return RefuseView(in.damages, name_a + " and " + in.files[1].name +
                                      " are one file, and frame " + std::to_string(side_a->frame) +
                                      " of each is one frame: a frame compared "
                                      "with itself shows no change; give two different frames");
  }
  return std::nullopt;
}

}  // namespace

MaybeFailure CheckDiffRequest(DiffRequest* r) {
  const bool two = r->files.size() == 2;
  if (!r->frames.empty()) {
    if (two) {
      return Usage(
          "--frames I J picks two frames of one file; with two files use --frame-a and --frame-b");
    }
    if (r->frame_a || r->frame_b) {
      return Usage("give --frames I J, or --frame-a and --frame-b, not both");
    }
    r->frame_a = r->frames[0];
    r->frame_b = r->frames[1];
  }
  // A frame compared with itself shows nothing by construction.
  r->one_file = !two || SameFile(r->files);
  if (r->one_file && r->frame_a && r->frame_b && *r->frame_a == *r->frame_b) {
    return Usage((r->frames.empty() ? "--frame-a " + std::to_string(*r->frame_a) + " --frame-b "
                                    : "--frames " + std::to_string(*r->frame_a) + " ") +
                 std::to_string(*r->frame_b) +
                 (two ? " of " + EscapeBytes(r->files[0], 4096) + " and " +
                            EscapeBytes(r->files[1], 4096) + ", one file"
                      : std::string()) +
                 ": a frame compared with itself shows no change; give two different frames");
  }
  return std::nullopt;
}

DiffOutcome DiffFiles(const DiffRequest& r) {
  DiffOutcome out;
  DiffInputs in;
  if ((out.failure = ReadFiles(r, &in))) return out;
  DiffSide side_a, side_b;
  if ((out.failure = PickSides(r, in, &side_a, &side_b))) return out;
  Failure refused;
  std::optional<v1::DiffReport> report = BuildDiff(side_a, side_b, &refused, r.filter);
  if (!report) {
    out.failure = RefuseView(in.damages, refused.message, refused.kind);
    return out;
  }
  if (report->different_boots() && !r.force) {
    out.failure = RefuseView(in.damages, report->warnings(0) + " (--force compares them anyway)");
    return out;
  }
  for (const Failure& damage : in.damages) out.notes.damages.push_back(FramesBeforeDamage(damage));
  out.notes.warnings.assign(report->warnings().begin(), report->warnings().end());
  if (std::optional<std::string> reversed = Reversed(side_a, side_b)) {
    out.notes.warnings.push_back(*reversed);
  }
  if (report->has_filter() && report->selected_a() + report->selected_b() == 0) {
    // What was looked at: each file and its frame (one file: its two frames).
    out.notes.nothing_selected = Failure(
        FailureKind::kNotFound, "no process matches " + FilterText(report->filter()) + " in " +
                                    side_a.name + " frame " + std::to_string(side_a.frame) +
                                    " or " + (r.files.size() == 2 ? side_b.name + " " : "") +
                                    "frame " + std::to_string(side_b.frame));
  }
  out.report = std::move(*report);
  return out;
}

}  // namespace proctape
