// SPDX-License-Identifier: Apache-2.0
// Fuzz target `proc_root`: `capture --proc-root DIR` on generated /proc-like
// directories. The input describes a small tree (tests/fuzz/proc_tree.h:
// PID directories, their stat, cmdline, environ, status and cgroup, the side
// files proctape-frame and PID/proctape-identity, links pointing anywhere,
// FIFOs), made under a fresh directory per input and removed after. The
// import runs as the command runs it (capture::Run on procdir's
// ImportSource): ProcDirEvidence sealed in DIR, one frame scanned with the
// recorded frame's facts, written by the real writer, then read back. Invariants: the import never blocks (a FIFO
// is a damaged entry, not a wait: a hang is a libFuzzer timeout), and the
// file it writes reads back whole.
#include <cstddef>
#include <cstdint>
#include <sys/stat.h>

#include <memory>
#include <string>
#include <vector>

#include "procdir/evidence.h"
#include "procdir/import.h"
#include "capture/capture_run.h"
#include "fs/output_file.h"
#include "format/reader.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/proc_tree.h"

using namespace proctape;

namespace {

// The import of `dir` into `path`, as `capture --proc-root DIR -o PATH`
// runs it (procdir/import.h OpenImportDir and ImportSource, then
// capture/capture_run.h Run); true when a file was written.
bool Import(const std::string& dir, const std::string& path) {
  Failure failure;
  std::unique_ptr<ProcDirEvidence> ev = OpenImportDir(dir, &failure);
  if (!ev) return false;
  capture::Request request;
  capture::EvidenceSource source;
  if (ImportSource(std::move(ev), dir, {"proctape", "capture", "--proc-root", dir},
                   &request.plan.scan, &source)) {
    return false;
  }
  request.source_name = dir;
  request.output_name = path;
  OutputRequest out;
  out.path = path;
  out.force = true;
  out.binary = true;
  out.remove_on_interrupt = false;
  Failure output_error;
  std::unique_ptr<OutputFile> output = OutputFile::Open(out, &output_error);
  if (!output) fuzz::Broken("cannot open the scratch output: " + output_error.message);
  const capture::Result result = capture::Run(request, source, std::move(output), nullptr);
  return result.stop == capture::Unfinished::kNo;  // a damaged side file: nothing written
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string dir = fuzz::ScratchDir() + "/proc";
  const std::string path = fuzz::ScratchDir() + "/import.ptape";
  fuzz::RemoveTree(dir);
  if (::mkdir(dir.c_str(), 0755) != 0) fuzz::Broken("cannot make " + dir);
  fuzz::MakeTree(fuzz::ParseTree(data, size), dir);
  if (Import(dir, path)) {
    Snapshot snapshot;
    FormatError error = ReadSnapshot(path, &snapshot);
    if (!error.ok())
      fuzz::Broken("the import wrote a file that does not read back: " + error.message);
    if (snapshot.frames.size() != 1)
      fuzz::Broken("the import wrote another number of frames than 1");
  }
  fuzz::RemoveTree(path);
  fuzz::RemoveTree(dir);
  return 0;
}
