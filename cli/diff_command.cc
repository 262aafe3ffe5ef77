// SPDX-License-Identifier: Apache-2.0
// `proctape diff A [B]`: what changed between two frames, of one file or of
// two (analyze/diff.h), as text or one JSON object. Frames of different boots
// are refused (exit 2) unless --force.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyze/diff.h"
#include "cli/command_io.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/outputs.h"
#include "cli/inputs.h"
#include "cli/options.h"
#include "cli/exit_codes.h"
#include "core/proc_parse.h"
#include "format/file_holds.h"
#include "format/reader.h"
#include "proto/convert.h"
#include "replay/token_mask.h"

namespace proctape {
namespace {

struct DiffOptions {
  std::vector<std::string> files;
  std::vector<std::size_t> frames;  // --frames I J
  std::optional<std::size_t> frame_a;
  std::optional<std::size_t> frame_b;
  bool force = false;
  bool all = false;  // list each process outside the other frame's scope
  bool json = false;
  ProcessFilter filter;  // --pid, --uid, --comm when given
  std::int64_t pid = 0;
  std::uint32_t uid = 0;
  std::string comm;
};

int Usage(const std::string& message) { return Fail(kExitUsage, message); }

// The last complete frame, or the last one when none is complete.
std::size_t LastFrame(const Snapshot& s) {
  for (std::size_t i = s.frames.size(); i > 0; --i) {
    if (s.frames[i - 1].complete()) return i - 1;
  }
  return s.frames.empty() ? 0 : s.frames.size() - 1;
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
// change backwards (an exit as an appearance). One line says so; the output
// is kept (comparing backwards can be meant).
void WarnIfReversed(const DiffSide& a, const DiffSide& b) {
  const std::optional<std::int64_t> at = FrameWallNs(*a.snapshot, a.frame);
  const std::optional<std::int64_t> bt = FrameWallNs(*b.snapshot, b.frame);
  if (!at || !bt || *at <= *bt) return;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3f", static_cast<double>(*at - *bt) / 1e9);
  Warn("the order looks reversed: " + a.name + " frame " + std::to_string(a.frame) +
       " was captured " + seconds + " s after " + b.name + " frame " + std::to_string(b.frame) +
       ", and diff says what changed from the first to the second (give the older first)");
}

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

// --frames into --frame-a/--frame-b, and the usage errors of the frame
// options; *one_file: A and B are one file (a path given twice, a link).
int CheckFrames(DiffOptions* o, bool* one_file) {
  const bool two = o->files.size() == 2;
  if (!o->frames.empty()) {
    if (two)
      return Usage(
          "--frames I J picks two frames of one file; with two files use --frame-a and --frame-b");
    if (o->frame_a || o->frame_b)
      return Usage("give --frames I J, or --frame-a and --frame-b, not both");
    o->frame_a = o->frames[0];
    o->frame_b = o->frames[1];
  }
  // A frame compared with itself shows nothing by construction.
  *one_file = !two || SameFile(o->files);
  if (*one_file && o->frame_a && o->frame_b && *o->frame_a == *o->frame_b) {
    return Usage((o->frames.empty() ? "--frame-a " + std::to_string(*o->frame_a) + " --frame-b "
                                    : "--frames " + std::to_string(*o->frame_a) + " ") +
                 std::to_string(*o->frame_b) +
                 (two ? " of " + EscapeBytes(o->files[0], 4096) + " and " +
                            EscapeBytes(o->files[1], 4096) + ", one file"
                      : std::string()) +
                 ": a frame compared with itself shows no change; give two different frames");
  }
  return kExitOk;
}

// The files as read: a damaged one that still holds frames is compared on
// those, its damage said first (the status stays its).
struct DiffInputs {
  Snapshot snapshots[2];
  std::string names[2];
  InputCopy copies[2];  // a FILE read twice that cannot be: a copy
  int damage = kExitOk;
  std::vector<std::pair<int, std::string>> damages;  // status, "FILE: DAMAGE"

  // A damaged file that cannot show what was asked (a frame past those
  // before the damage, one frame left) is one line, the damage's, with its
  // status; else a usage error.
  int Refuse(const std::string& why) const {
    if (damages.empty()) return Usage(why);
    std::string line;
    for (const auto& [status, said] : damages) line += said + "; ";
    return Fail(damage, line + why);
  }
};

// Only the frames compared are kept whole (the others as their shells, so
// every count is the file's) and no observation. A frame not given may be
// the last complete one, known once the file is read: a first read then
// keeps no frame, and a second the ones compared (standard input is copied
// once for it).
int ReadFiles(const DiffOptions& o, DiffInputs* in) {
  const bool two = o.files.size() == 2;
  for (std::size_t k = 0; k < o.files.size(); ++k) {
    // The frames of file k compared, as the sides pick them.
    const std::optional<std::size_t> given[2] = {o.frame_a, o.frame_b};
    const bool needs_last = two ? k == 0 && !o.frame_a : !o.frame_b;
    auto compared = [&](const Snapshot& s) {
      if (two) return std::vector<std::uint64_t>{given[k].value_or(k == 0 ? LastFrame(s) : 0)};
      return std::vector<std::uint64_t>{o.frame_a.value_or(0), o.frame_b.value_or(LastFrame(s))};
    };
    StreamSource source{o.files[k], -1};
    if (needs_last) {
      if (MaybeFailure failed = in->copies[k].Open(o.files[k])) {
        return Fail(kExitIo, EscapeBytes(failed->message));
      }
      source.fd = in->copies[k].fd();
    }
    ReadKeep keep;
    keep.observations = false;
    keep.frames.emplace();
    if (!needs_last) keep.frames = compared(Snapshot{});
    Snapshot& snapshot = in->snapshots[k];
    FormatError error = ReadSnapshot(source, &snapshot, keep);
    if (needs_last && !snapshot.frames.empty()) {
      keep.frames = compared(snapshot);
      error = ReadSnapshot(source, &snapshot, keep);
    }
    in->names[k] = TokenMask::Of(snapshot).Shown(o.files[k]);  // it may hold a piece of it
    if (error.ok()) continue;
    const std::string said = in->names[k] + ": " + EscapeBytes(error.message);
    if (snapshot.frames.empty()) return Fail(ExitCodeFor(error.kind), said);
    in->damages.emplace_back(ExitCodeFor(error.kind), said);
    if (in->damage == kExitOk) in->damage = ExitCodeFor(error.kind);
  }
  return kExitOk;
}

// The report, or the status of why there is none (said).
int Build(const DiffOptions& o, const DiffInputs& in, bool one_file, DiffSide* side_a,
          DiffSide* side_b, std::optional<v1::DiffReport>* report) {
  const bool two = o.files.size() == 2;
  const Snapshot& a = in.snapshots[0];
  const Snapshot& b = two ? in.snapshots[1] : in.snapshots[0];
  if (!two && !o.frame_a && !o.frame_b && a.frames.size() < 2) {
    // A file of no frame says what it is (FileHolds), as every view does.
    if (a.frames.empty()) return Usage(in.names[0] + " has no frame: it is " + FileHolds(a));
    return in.Refuse(in.names[0] + " holds one frame: give a second file to compare it with");
  }
  const bool frames = !o.frames.empty();
  *side_a = {&a, in.names[0], o.frame_a.value_or(two ? LastFrame(a) : 0),
             frames ? "--frames" : "--frame-a"};
  *side_b = {&b, in.names[two ? 1 : 0], o.frame_b.value_or(two ? 0 : LastFrame(b)),
             frames ? "--frames" : "--frame-b"};
  // A and B one file, a frame of each by default (A's last complete frame,
  // B's first) that is one frame: the file holds one. (A frame it does not
  // have is said as such, by BuildDiff.)
  if (two && one_file && side_a->frame == side_b->frame && side_a->frame < a.frames.size()) {
    return in.Refuse(in.names[0] + " and " + in.names[1] + " are one file, and frame " +
                     std::to_string(side_a->frame) +
                     " of each is one frame: a frame compared "
                     "with itself shows no change; give two different frames");
  }
  std::string why;
  *report = BuildDiff(*side_a, *side_b, &why, o.filter);
  if (!*report) return in.Refuse(why);
  if ((*report)->different_boots() && !o.force) {
    return in.Refuse((*report)->warnings(0) + " (--force compares them anyway)");
  }
  return kExitOk;
}

int RunDiff(DiffOptions o) {
  bool one_file = false;
  if (int bad = CheckFrames(&o, &one_file); bad != kExitOk) return bad;
  if (int entered = EnterCommand({"diff", InputsNamed("FILE", o.files)}); entered != kExitOk) {
    return entered;
  }
  DiffInputs in;
  if (int read = ReadFiles(o, &in); read != kExitOk) return read;
  DiffSide side_a, side_b;
  std::optional<v1::DiffReport> report;
  if (int built = Build(o, in, one_file, &side_a, &side_b, &report); built != kExitOk) {
    return built;
  }
  for (const auto& [status, said] : in.damages) {
    Fail(status, said + " (the frames before the damage are used)");
  }
  for (const std::string& w : report->warnings()) Warn(w);
  WarnIfReversed(side_a, side_b);
  if (o.json) {
    std::printf("%s\n", ToJson(*report).c_str());
  } else {
    std::fputs(RenderDiff(*report, o.all).c_str(), stdout);
  }
  if (report->has_filter() && report->selected_a() + report->selected_b() == 0) {
    std::fflush(stdout);
    // What was looked at: each file and its frame (one file: its two frames).
    return Fail(kExitNotFound, "no process matches " + FilterText(report->filter()) + " in " +
                                   side_a.name + " frame " + std::to_string(side_a.frame) + " or " +
                                   (o.files.size() == 2 ? side_b.name + " " : "") + "frame " +
                                   std::to_string(side_b.frame));
  }
  return in.damage;
}

}  // namespace

// What `--help` says of the command, above its options.
constexpr const char* kDescription =
    "Say what changed between two frames: of one file (by default its first and its last\n"
    "complete frame; --frames I J for others) or of two files (by default A's last\n"
    "complete frame and B's first). A process's identity is its (pid, start tick), never\n"
    "a pid alone and never a name, so each change is one of:\n"
    "  reused       the pid is in both frames with another start tick: the process of A\n"
    "               ended and another took its pid (shown as - A, + B);\n"
    "  exited       a process of A whose pid is free in B;\n"
    "  appeared     a process of B whose pid was free in A;\n"
    "  reparented   the same process under another parent pid (its parent ended and a\n"
    "               subreaper or init adopted it);\n"
    "  argv, exe    the same process with another argv (an exec; a zombie's is empty) or\n"
    "               another executable identity (device:inode);\n"
    "  unidentified a record whose stat is unreadable or malformed: not compared.\n"
    "Processes are printed as 'proctape tree' prints them. Start ticks count from boot:\n"
    "frames of different boots (the files' boot ids differ) are refused with exit status\n"
    "2 unless --force. A damaged file's complete frames are used; the exit status is then\n"
    "the damage's (10-16).\n\n"
    "--pid, --uid and --comm compare only the processes they select (all of them, when\n"
    "several are given) in A or in B; the changes and counts are theirs. A filter that\n"
    "selects nothing in either frame exits 5.";

void RegisterDiff(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<DiffOptions>();
  auto frame_a = std::make_shared<std::size_t>(0);
  auto frame_b = std::make_shared<std::size_t>(0);
  CLI::App* sub = app.add_subcommand("diff", kDescription);
  sub->add_option("FILE", o->files,
                  "one .ptape file (two of its frames) or two; - for "
                  "standard input")
      ->check(NonEmptyPath())
      ->required()
      ->expected(1, 2);
  AddUnsigned(sub, "--frames", o->frames, 0, 4294967295,
              "two frames I J of one file, counted from 0", "I J")
      ->expected(2);
  CLI::Option* fa =
      AddUnsigned(sub, "--frame-a", *frame_a, 0, 4294967295, "the frame of A, counted from 0");
  CLI::Option* fb =
      AddUnsigned(sub, "--frame-b", *frame_b, 0, 4294967295, "the frame of B, counted from 0");
  sub->add_flag("--force", o->force, "compare frames of different boots all the same");
  CLI::Option* pid =
      AddSigned(sub, "--pid", o->pid, 1, kMaxPidValue, "compare only this pid", "PID");
  CLI::Option* uid = AddUnsigned(sub, "--uid", o->uid, 0, 4294967294,
                                 "compare only the processes of this real uid", "UID");
  CLI::Option* comm = sub->add_option("--comm", o->comm,
                                      "compare only the processes whose command name (stat "
                                      "field 2) is exactly this, byte for byte")
                          ->type_name("NAME");
  sub->add_flag("--all", o->all,
                "list each process outside the other frame's scope (a --root capture beside a "
                "whole host), not only how many");
  sub->add_flag("--json", o->json,
                "print one JSON object (DiffReport of proto/views.proto; docs/views.md)");
  sub->footer(std::string("Examples:\n"
                          "  proctape diff failure.ptape                  # first frame -> last\n"
                          "  proctape diff failure.ptape --frames 1 2\n"
                          "  proctape diff before.ptape after.ptape\n"
                          "  proctape diff a.ptape b.ptape --frame-a 0 --frame-b 3 --json\n\n") +
              ExitStatusFooter("0, 2 usage error (frames of different boots without --force), 5 "
                               "the filter selects no process, 10-16 damaged file"));
  sub->callback([o, frame_a, frame_b, fa, fb, pid, uid, comm, exit_code] {
    if (pid->count() > 0) o->filter.pid = o->pid;
    if (uid->count() > 0) o->filter.uid = o->uid;
    if (comm->count() > 0) o->filter.comm = o->comm;
    if (fa->count() > 0) o->frame_a = *frame_a;
    if (fb->count() > 0) o->frame_b = *frame_b;
    *exit_code = RunDiff(*o);
  });
}

}  // namespace proctape
