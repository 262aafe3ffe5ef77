// SPDX-License-Identifier: Apache-2.0
// A fingerprint file given to --fingerprint (cli/fingerprint_load.h): read
// and checked by format/fingerprint_file.h ReadFingerprintOfBoot, its
// refusal said here.
#include "cli/fingerprint_load.h"

#include "cli/errors.h"
#include "format/fingerprint_file.h"

namespace proctape {

std::optional<v1::RootFingerprint> LoadFingerprint(const std::string& path,
                                                   const std::string& boot_id,
                                                   const std::string& whose,
                                                   const std::string& remedy, int* exit_code) {
  Failure failure;
  std::optional<v1::RootFingerprint> fingerprint =
      ReadFingerprintOfBoot(path, boot_id, whose, remedy, &failure);
  if (!fingerprint) *exit_code = FailAbout("--fingerprint", path, failure);
  return fingerprint;
}

}  // namespace proctape
