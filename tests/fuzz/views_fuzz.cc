// SPDX-License-Identifier: Apache-2.0
// Fuzz target `views`: every view of the analyze layer -- show, tree, diff,
// explain, export (json, dot, proc-dir) -- on decoded-then-mutated files (the
// structure-aware input of tests/fuzz/snapshot_input.h, as the replay
// target). The functions the commands call, not the binary: each report is
// built, rendered as text and as JSON. With a filter taken from the file
// (the first record's pid, its comm) the filtered forms run too.
#include <cstddef>
#include <cstdint>
#include <string>

#include "analyze/diff.h"
#include "analyze/explain.h"
#include "analyze/export.h"
#include "procdir/writer.h"
#include "analyze/show.h"
#include "analyze/tree.h"
#include "core/proc_parse.h"
#include "proto/convert.h"
#include "replay/frame_evidence.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/snapshot_input.h"

using namespace proctape;

namespace {

// At most this many frames are drawn (tree, dot): a file of many frames is
// no other code path.
constexpr std::size_t kFramesDrawn = 4;
// The proc-dir export writes a directory per process: past this many it is
// the file system that is measured, not proctape (a 60,000-process frame took
// 25 s of the regression run). Its scale is tested live
// (tests/live/hostile_files_cli_test.cc); here the parsing of what it writes.
constexpr int kProcDirProcesses = 256;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Snapshot snapshot;
  if (!fuzz::DecodeSnapshotInput(data, size, &snapshot)) return 0;
  const std::string name = "input.ptape";
  std::string out;

  ProcessFilter filter;
  if (!snapshot.frames.empty() && !snapshot.frames[0].processes().empty()) {
    const v1::ProcessRecord& r = snapshot.frames[0].processes(0);
    filter.pid = r.pid();
    if (std::optional<StatFields> stat = StatInFrame(snapshot.frames[0], r.pid())) {
      filter.comm = stat->comm;
    }
  }

  // show
  for (const ProcessFilter& f : {ProcessFilter{}, filter}) {
    v1::ShowReport show = BuildShow(snapshot, FormatError{}, name, f);
    out += RenderShow(show) + ToJson(show);
  }

  // tree, every frame drawn, whole and from the filter's pid, cut and not
  const std::size_t frames = std::min(snapshot.frames.size(), kFramesDrawn);
  for (std::size_t k = 0; k < frames; ++k) {
    for (bool kernel : {false, true}) {
      TreeOptions options;
      options.frame = k;
      options.kernel = kernel;
      if (kernel) options.filter = filter;
      Failure failure;
      if (std::optional<v1::TreeReport> tree = BuildTree(snapshot, name, options, &failure)) {
        out += RenderTree(*tree) + RenderTree(*tree, 40) + ToJson(*tree);
      }
    }
    if (filter.pid) {
      TreeOptions options;
      options.frame = k;
      options.root = *filter.pid;
      Failure failure;
      if (std::optional<v1::TreeReport> tree = BuildTree(snapshot, name, options, &failure)) {
        out += RenderTree(*tree);
      }
    }
    out += FrameDot(snapshot, k);
  }

  // diff: the first frame against the last, and each frame against itself
  if (!snapshot.frames.empty()) {
    DiffSide a{&snapshot, name, 0, "--frame-a"};
    DiffSide b{&snapshot, name, snapshot.frames.size() - 1, "--frame-b"};
    for (const ProcessFilter& f : {ProcessFilter{}, filter}) {
      Failure failure;
      if (std::optional<v1::DiffReport> diff = BuildDiff(a, b, &failure, f)) {
        out += RenderDiff(*diff) + RenderDiff(*diff, true) + ToJson(*diff);
      }
    }
    Failure failure;
    if (std::optional<v1::DiffReport> same = BuildDiff(b, b, &failure)) out += RenderDiff(*same);
  }

  // explain, every recorded check
  v1::Explanation explanation = Explain(snapshot, name);
  out += RenderExplanation(explanation, false) + RenderExplanation(explanation, true) +
         ToJson(explanation);

  // export: json (checked against protobuf's limit), and the first frame as
  // a proc-dir, written under the scratch directory and removed
  std::string json;
  (void)ToJsonChecked(ToExport(snapshot), &json);
  if (!snapshot.frames.empty() && snapshot.frames[0].processes_size() <= kProcDirProcesses) {
    const std::string dir = fuzz::ScratchDir() + "/proc-dir";
    ProcDirStats stats;
    (void)WriteProcDir(snapshot, 0, dir, true, &stats);
    fuzz::RemoveTree(dir);
  }
  fuzz::Keep(out.size() + json.size());
  return 0;
}

#ifdef PROCTAPE_LIBFUZZER
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
  return fuzz::MutateSnapshotInput(data, size, max_size, seed);
}
#endif
