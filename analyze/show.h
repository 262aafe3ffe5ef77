// SPDX-License-Identifier: Apache-2.0
// `proctape show`: what a snapshot file holds, in one report: the header's
// facts (host, boot, capturer), the frames and their scans, the tape, each
// recorded resolution (request and verdict), the redaction policy, and the
// damage, if any. A damaged file is shown as far as it was read.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <utility>
#include <vector>
#include <string>
#include <string_view>

#include "analyze/filter.h"
#include "core/failure.h"
#include "format/format_error.h"
#include "format/reader.h"
#include "proto/summary.h"
#include "replay/token_mask.h"
#include "views.pb.h"

namespace proctape {

// The pid namespace inode of the initial namespace (the kernel's
// PROC_PID_INIT_INO): a capturer in it sees host pids.
inline constexpr std::uint64_t kInitialPidNsInode = 4026531836;

// `error` is what ReadSnapshot returned; `name` the file as the user gave it.
// Tokens and kept environment values are never copied into the report: only
// variable names and lengths. With a `filter` (--pid, --uid, --comm), each
// frame lists the processes it selects.
v1::ShowReport BuildShow(const Snapshot& snapshot, const FormatError& error,
                         const std::string& name, const ProcessFilter& filter = {});

// BuildShow of a file read item by item (format/snapshot_stream.h), one
// frame held at a time: SetHeader, then AddFrame of each frame in file order
// (whole: its parts joined), then Finish with the rest of what was read.
// A filter's selections are not kept in the report Finish returns (each
// frame's `selected` is there, empty): a frame's selection is serialized as
// it is added, into an anonymous memory file (memfd_create; in memory if
// none can be made), and Selection reads one back, masked as the report is,
// when it is printed. So the memory of a filtered show does not grow with
// the frames it lists (docs/format.md, "How proctape reads").
struct ShowTail {
  std::uint64_t chunks = 0;
  std::uint64_t bytes = 0;
  const v1::Footer* footer = nullptr;  // absent: nullptr
  std::uint64_t observations = 0;      // how many were read
  const std::vector<v1::Resolution>* resolutions = nullptr;
  const std::vector<v1::RootFingerprint>* fingerprints = nullptr;
};
class ShowBuilder {
 public:
  ShowBuilder(const std::string& name, const ProcessFilter& filter);
  ~ShowBuilder();
  ShowBuilder(const ShowBuilder&) = delete;
  ShowBuilder& operator=(const ShowBuilder&) = delete;
  void SetHeader(const v1::Header& header);
  void AddFrame(const v1::Frame& frame);
  v1::ShowReport Finish(const ShowTail& tail, const FormatError& error);
  // After Finish: the processes frame `position` selects, masked as the
  // report is (empty without a filter).
  v1::ShowReport::Selection Selection(int position) const;

 private:
  struct Kept {
    bool in_memory = false;
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
  };
  void Keep(const std::string& bytes);

  ProcessFilter filter_;
  v1::Header header_;
  v1::ShowReport report_;
  std::uint64_t processes_ = 0;
  // A process shown in several frames is one process: the count is of
  // identities (pid, start tick), each frame's own list says how many it holds.
  std::set<std::pair<std::int64_t, std::uint64_t>> selected_;
  // Each frame's selection, serialized: in the memory file `spool_fd_`, or
  // in `spool_` (when the file cannot be made or written).
  std::vector<Kept> spans_;
  int spool_fd_ = -1;
  std::uint64_t spool_size_ = 0;
  std::string spool_;
  TokenMask mask_;
};

// Each frame's selection, by position (ShowBuilder::Selection, or the
// report's own).
using ShowSelections = std::function<v1::ShowReport::Selection(int position)>;

// The text form, one fact per line; the last line says whether the file is
// intact or where it is damaged (analyze/show_render.cc).
std::string RenderShow(const v1::ShowReport& report);
// The same text piece by piece (a frame's line and its selection one piece),
// each handed to `emit` in order, each frame's selection from `selections`
// (the report's own `selected` is not read).
void RenderShow(const v1::ShowReport& report, const ShowSelections& selections,
                const std::function<void(const std::string&)>& emit);
// ToJson(report) with each frame's selection from `selections`, written
// piece by piece (a frame at a time) to `emit`; a failure (kInternal) when
// the printer fails (what was emitted is then incomplete).
MaybeFailure ShowJson(const v1::ShowReport& report, const ShowSelections& selections,
                      const std::function<void(const std::string&)>& emit);

// Shared by the report and its text form (Printable: proto/summary.h).
// b - a in nanoseconds: 0 when negative, INT64_MAX when larger (ElapsedNs).
std::int64_t Span(std::int64_t a, std::int64_t b);

}  // namespace proctape
