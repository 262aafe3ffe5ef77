// SPDX-License-Identifier: Apache-2.0
// What the fingerprint tests (fingerprint_cli_test.cc,
// fingerprint_live_cli_test.cc, liveness_boot_cli_test.cc) share: the built
// binary they run (PROCTAPE_BINARY), the boot they run on, and fingerprint
// files edited to another shape. The tests live in proctape::live.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <functional>
#include <string>

#include "format/fingerprint_file.h"
#include "proctape.pb.h"
#include "tests/live/build_paths.h"
#include "tests/live/files.h"

namespace proctape::live {

inline std::string HostBootId() { return live::FileBytes("/proc/sys/kernel/random/boot_id"); }

// A fingerprint file as `proctape fingerprint` writes it, of the test's own
// process, edited by `edit` (header and fingerprint alike).
inline std::string WriteEdited(const TempDir& dir, const std::string& name,
                               const std::function<void(v1::Header&, v1::RootFingerprint&)>& edit) {
  const std::string good = dir.File(name + ".orig");
  CommandResult r = Proctape({"fingerprint", "--root", std::to_string(::getpid()), "-o", good});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  FingerprintFile file = ReadFingerprintFile(good);
  EXPECT_TRUE(file.ok()) << file.error;
  edit(file.header, file.fingerprint);
  const std::string path = dir.File(name);
  const MaybeFailure failed = WriteFingerprintFile(path, false, file.header, file.fingerprint);
  EXPECT_FALSE(failed) << failed->message;
  return path;
}

}  // namespace proctape::live
