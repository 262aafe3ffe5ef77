// SPDX-License-Identifier: Apache-2.0
#include "procdir/import.h"

#include "capture/host_facts.h"
#include "capture/live_record.h"
#include "core/proc_parse.h"

namespace proctape {

v1::Header ImportHeader(const ScanOptions& scan, const std::vector<std::string>& command_line,
                        const FrameFacts* facts, std::int64_t* import_start_mono_ns) {
  v1::Header header;
  FillScanHeader(scan, command_line, &header);
  FillImportCapturer(&header);
  if (import_start_mono_ns) *import_start_mono_ns = header.capture_start_mono_ns();
  if (facts) {
    *header.mutable_host() = facts->host;
    header.set_capturer_pid_ns_inode(facts->capturer_pid_ns_inode);
    header.set_capture_start_mono_ns(facts->scan_start_mono_ns);
    header.set_capture_start_realtime_ns(facts->scan_start_realtime_ns);
  }
  return header;
}

std::unique_ptr<ProcDirEvidence> OpenImportDir(const std::string& dir, Failure* failure) {
  std::unique_ptr<ProcDirEvidence> opened = ProcDirEvidence::Open(dir, failure);
  if (!opened) return nullptr;
  if (!opened->HoldsAProcess()) {
    *failure = Failure(FailureKind::kUsage,
                       "holds no process: no numeric PID entry with a stat file (a copy of /proc, "
                       "or an export --format proc-dir, is expected)");
    return nullptr;
  }
  return opened;
}

MaybeFailure ImportSource(std::unique_ptr<ProcDirEvidence> dir, const std::string& dir_name,
                          const std::vector<std::string>& command_line, ScanOptions* scan,
                          capture::EvidenceSource* source) {
  capture::EvidenceSource s;
  ProcDirEvidence* ev = dir.get();
  s.evidence = std::move(dir);
  s.hooks.evidence = ev;
  s.hooks.pid_ns = [ev](std::int64_t pid) { return ev->PidNamespace(pid); };
  s.hooks.prepare = [ev](v1::ProcessRecord* r) {
    ev->AddLinkTexts(r);
    return ev->error().empty();
  };
  s.hooks.failed = [ev] { return ev->error(); };
  const FrameFacts* facts = ev->frame() ? &*ev->frame() : nullptr;
  if (facts) {
    if (scan->keep_environ && facts->environ == v1::RedactionPolicy::ENVIRON_REDACTED) {
      return Failure(FailureKind::kUsage,
                     "--env keep: " + EscapeBytes(dir_name, 4096) +
                         " holds redacted environ values: they cannot be kept");
    }
    scan->kept_entries = facts->kept_entries;
    s.hooks.recorded = true;
    s.hooks.recorded_begin_ns = facts->scan_start_mono_ns;
    s.hooks.recorded_end_ns = facts->scan_end_mono_ns;
    s.hooks.recorded_cut = facts->cut_reason;
  }
  // An import's header holds the recorded frame's times.
  s.header = ImportHeader(*scan, command_line, facts, &s.start_ns);
  *source = std::move(s);
  return std::nullopt;
}

}  // namespace proctape
