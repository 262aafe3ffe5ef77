// SPDX-License-Identifier: Apache-2.0
// `proctape capture`'s options (cli/capture_options.cc registers them, with
// its help) and the command they run (cli/capture_command.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "capture/frame_scanner.h"

namespace proctape {

struct CaptureOptions {
  std::string output;  // empty: ./<hostname>-<UTC time>.ptape
  std::uint64_t frames = 1;
  bool has_frames = false;
  bool until_exit = false;  // with --root: frames until the root has exited
  std::int64_t interval_ms = 1000;
  bool has_interval = false;
  std::int64_t root = 0;
  bool has_root = false;
  std::string env = "redact";
  std::uint64_t max_processes = ScanOptions{}.max_processes;
  std::uint64_t max_bytes = ScanOptions{}.max_bytes;
  unsigned threads = 0;  // 0: DefaultScanThreads()
  bool force = false;
  bool json = false;
  std::string proc = "/proc";
  std::string proc_root;  // --proc-root: a /proc-like directory (procdir/evidence.h)
  std::vector<std::string> command_line;
};

// Runs the capture; returns the exit status.
int RunCapture(const CaptureOptions& o);

}  // namespace proctape
