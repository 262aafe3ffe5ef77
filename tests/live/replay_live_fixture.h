// SPDX-License-Identifier: Apache-2.0
// What the live tests of `proctape replay` (replay_live_test.cc,
// replay_corpus_live_test.cc) share: the binary run with a timeout fit for a
// replay, and a replay run with the host's /proc hidden (a private mount
// namespace with an empty tmpfs over /proc), with why that cannot run here.
// In proctape::live::replay_live: its Proctape is not files.h's.
#pragma once

#include <unistd.h>

#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/sandbox.h"

namespace proctape::live::replay_live {

inline constexpr int kReplayTimeoutMs = 30'000;

inline CommandResult RunArgv(std::vector<std::string> argv, int timeout_ms = kReplayTimeoutMs) {
  return live::RunCommand(argv, timeout_ms);
}

inline CommandResult Proctape(std::vector<std::string> args, int timeout_ms = kReplayTimeoutMs) {
  args.insert(args.begin(), ::proctape::live::TestedBinary());
  return RunArgv(args, timeout_ms);
}

// `proctape replay ARGS...` run in a private mount namespace whose /proc is
// an empty tmpfs: the host's /proc cannot be read, nor any process's. The
// shell checks the hiding took (no /proc/self, nothing listed) before it
// execs proctape; the replay's own exit status and output come through.
inline CommandResult ReplayWithProcHidden(const std::vector<std::string>& replay_args) {
  std::vector<std::string> argv = {
      live::FindOnPath("unshare"),
      "--mount",
      "--propagation",
      "private",
      "/bin/sh",
      "-c",
      "mount -t tmpfs none /proc || exit 90; test ! -e /proc/self || exit 91; "
      "test -z \"$(ls -A /proc)\" || exit 92; exec \"$0\" replay \"$@\"",
      ::proctape::live::TestedBinary()};
  argv.insert(argv.end(), replay_args.begin(), replay_args.end());
  return RunArgv(argv);
}

// Why the hidden-/proc replay cannot run here, or empty.
inline std::string HiddenProcUnavailable() {
  // The sanitizer runtime linked into a sanitizer build's proctape reads
  // /proc/self/maps at startup and exits without it; the plain build runs
  // these tests.
  if (live::TestedBinarySanitized())
    return "the AddressSanitizer runtime of this build needs /proc itself";
  if (::geteuid() != 0) return "needs root to mount over /proc in a mount namespace";
  if (live::FindOnPath("unshare").empty()) return "unshare is not installed";
  return "";
}

}  // namespace proctape::live::replay_live
