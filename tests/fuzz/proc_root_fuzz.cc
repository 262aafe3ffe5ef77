// SPDX-License-Identifier: Apache-2.0
// Fuzz target `proc_root`: `capture --proc-root DIR` on generated /proc-like
// directories. The input describes a small tree (tests/fuzz/proc_tree.h:
// PID directories, their stat, cmdline, environ, status and cgroup, the side
// files proctape-frame and PID/proctape-identity, links pointing anywhere,
// FIFOs), made under a fresh directory per input and removed after. The
// import runs as cli/capture_command.cc runs it: ProcDirEvidence sealed in
// DIR, one frame scanned with the recorded frame's facts, written by the
// real writer, then read back. Invariants: the import never blocks (a FIFO
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
#include "capture/frame_scanner.h"
#include "fs/output_file.h"
#include "format/reader.h"
#include "format/writer.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/proc_tree.h"

using namespace proctape;

namespace {

// The import of `dir` into `path`; true when a file was written.
bool Import(const std::string& dir, const std::string& path) {
  Failure failure;
  std::unique_ptr<ProcDirEvidence> ev = ProcDirEvidence::Open(dir, &failure);
  if (!ev) return false;
  ScanOptions scan;
  const FrameFacts* facts = ev->frame() ? &*ev->frame() : nullptr;
  if (facts) scan.kept_entries = facts->kept_entries;
  const v1::Header header = ImportHeader(scan, {"proctape", "capture", "--proc-root", dir}, facts);
  OutputRequest request;
  request.path = path;
  request.force = true;
  request.binary = true;
  request.remove_on_interrupt = false;
  Failure output_error;
  std::unique_ptr<OutputFile> output = OutputFile::Open(request, &output_error);
  if (!output) fuzz::Broken("cannot open the scratch output: " + output_error.message);
  std::unique_ptr<SnapshotWriter> writer = SnapshotWriter::Create(std::move(output), {});
  if (!writer->WriteHeader(header)) fuzz::Broken("WriteHeader: " + writer->error());
  FrameCallbacks callbacks;
  callbacks.begin = [&writer, facts](std::int64_t t) {
    writer->BeginFrame(0, facts ? facts->scan_start_mono_ns : t);
  };
  callbacks.record = [&writer, &ev](v1::ProcessRecord&& r) {
    ev->AddLinkTexts(&r);
    return ev->error().empty() && writer->AddProcess(std::move(r));
  };
  std::vector<ScanWorker> workers;
  ProcDirEvidence* dir_ev = ev.get();
  ScanStats s = ScanFrameParallel(
      *ev, scan, [dir_ev](std::int64_t pid) { return dir_ev->PidNamespace(pid); }, workers,
      callbacks);
  if (!ev->error().empty()) return false;  // the capture fails (exit 9): nothing written
  if (facts && s.cut_reason.empty()) s.cut_reason = facts->cut_reason;
  if (!writer->frame_open()) return false;
  if (!writer->EndFrame(facts ? facts->scan_end_mono_ns : s.scan_end_mono_ns, s.cut_reason,
                        s.bytes_read)) {
    return false;
  }
  v1::Footer footer;
  footer.set_capture_end_mono_ns(facts ? facts->scan_end_mono_ns : ev->NowNs());
  return writer->Finish(footer);
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
