// SPDX-License-Identifier: Apache-2.0
// The side files of a proc-dir (docs/export.md): what a directory laid out
// like /proc cannot hold, as text. `PID/proctape-identity` holds a process's
// exe and pid-namespace identity, the errno of each failed read and which
// reads were truncated; `proctape-frame` holds the frame's times, the
// capturing host's facts and the redaction policy. Printed by the proc-dir
// writer (procdir/writer.h), parsed back by ProcDirEvidence
// (procdir/evidence.h).
//
// Both side files are text: a first line "proctape-frame 1" (resp.
// "proctape-identity 1"), then one "KEY VALUE" line per fact, keys in the
// fixed order below, a fact that is not known has no line. Bytes values are
// escaped as EscapeBytes does (printable ASCII but backslash as is, every
// other byte \xNN), so each file is ASCII and one fact is one line.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/failure.h"
#include "core/evidence.h"
#include "format/reader.h"
#include "proctape.pb.h"

namespace proctape {

inline constexpr const char* kProcDirFrameFile = "proctape-frame";
inline constexpr const char* kProcDirIdentityFile = "proctape-identity";
// The per-pid files of a proc-dir, in the order proctape-identity names them.
inline constexpr ProcFile kProcDirFiles[] = {
    ProcFile::kStat, ProcFile::kCmdline, ProcFile::kEnviron, ProcFile::kStatus, ProcFile::kCgroup};

// Whether `pid` can name a directory of a proc-dir: 1..kMaxPid.
bool ProcDirPid(std::int64_t pid);

// PID/proctape-identity:
//   exe DEV:INO | exe error ERRNO          ProcessRecord.exe
//   exe_link BYTES                         ProcessRecord.exe.link_text (an
//                                          import's link, not followed)
//   pid_ns DEV:INO | pid_ns error ERRNO    ProcessRecord.pid_ns
//   pid_ns_link BYTES                      ProcessRecord.pid_ns.link_text
//   FILE error ERRNO                       FILE (stat, cmdline, environ, status,
//                                          cgroup) failed with ERRNO: no file
//   FILE truncated                         FILE held more than its bound; the
//                                          file holds the bytes kept
// Lines in that order, FILE in that order; an empty link text has no line.
struct IdentityFacts {
  std::optional<Identity> exe;
  std::optional<std::string> exe_link;
  std::optional<Identity> pid_ns;
  std::optional<std::string> pid_ns_link;
  std::map<ProcFile, int> errors;
  std::set<ProcFile> truncated;
  bool operator==(const IdentityFacts&) const = default;
};

IdentityFacts IdentityFactsOf(const v1::ProcessRecord& record);
std::string PrintIdentityFacts(const IdentityFacts& facts);
// Strict: the header line, known keys, each at most once, in order, valid
// values. The failure (kCorrupt) names the line.
[[nodiscard]] MaybeFailure ParseIdentityFacts(std::string_view text, IdentityFacts* out);

// proctape-frame:
//   scan_start_mono_ns N, scan_end_mono_ns N    Frame times (capturing host's
//                                               CLOCK_MONOTONIC)
//   scan_start_realtime_ns N                    the scan start as wall clock:
//                                               Header.capture_start_realtime_ns
//                                               + (scan start - capture start)
//   cut_reason TEXT                             Frame.cut_reason, when cut
//   hostname, kernel_release, boot_id BYTES     Header.host, as read
//   pid_max, clock_ticks_per_second, page_size N
//   capturer_pid_ns_inode N                     Header.capturer_pid_ns_inode:
//                                               the namespace whose pids the
//                                               frame holds
//   environ redacted|kept                       Header.redaction.environ
//   kept_entry BYTES                            one per kept_entries entry
//   dropped_pid N                               a record not written: a pid
//                                               seen before in the frame, or
//                                               not in 1..2147483647
// Numbers are decimal (the times may be negative); N = 0 and empty bytes have
// no line. The frame's index is not a fact of the frame: it is not written.
struct FrameFacts {
  std::int64_t scan_start_mono_ns = 0;
  std::int64_t scan_end_mono_ns = 0;
  std::int64_t scan_start_realtime_ns = 0;
  std::string cut_reason;
  v1::HostFacts host;
  std::uint64_t capturer_pid_ns_inode = 0;
  v1::RedactionPolicy::EnvironMode environ = v1::RedactionPolicy::ENVIRON_MODE_UNSPECIFIED;
  std::vector<std::string> kept_entries;
  std::vector<std::int64_t> dropped_pids;
};

FrameFacts FrameFactsOf(const Snapshot& snapshot, std::size_t frame);
std::string PrintFrameFacts(const FrameFacts& facts);
// Strict as ParseIdentityFacts.
[[nodiscard]] MaybeFailure ParseFrameFacts(std::string_view text, FrameFacts* out);

}  // namespace proctape
