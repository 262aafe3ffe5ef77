// SPDX-License-Identifier: Apache-2.0
#include "procdir/import.h"

#include "capture/host_facts.h"
#include "capture/live_record.h"

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

}  // namespace proctape
