// What the fingerprint tests (fingerprint_cli_test.cc,
// fingerprint_live_cli_test.cc) share: the built binary they run
// (PROCTAPE_BINARY) and the boot they run on. The tests live in proctape::live.
#pragma once

#include <string>

#include "tests/live/build_paths.h"
#include "tests/live/files.h"

namespace proctape::live {

inline std::string HostBootId() { return live::FileBytes("/proc/sys/kernel/random/boot_id"); }

}  // namespace proctape::live
