// SPDX-License-Identifier: Apache-2.0
// A fingerprint file given to `resolve --fingerprint` or `replay
// --fingerprint` (format/fingerprint_file.h), read and checked against the
// boot it must belong to.
#pragma once

#include <optional>
#include <string>

#include "proctape.pb.h"

namespace proctape {

// The fingerprint of `path`, or nullopt after one line on standard error
// ("proctape: FILE ...") with *exit_code set:
//   the file is damaged or cannot be read: its status (10-16);
//   an intact file that holds no fingerprint (a capture, a recording): 2;
//   a fingerprint not in a fingerprint file's shape, or unusable: 15;
//   a fingerprint of another boot than `boot_id` (as read; `whose` says
//   whose boot that is, e.g. "this host's"): 9, with `remedy`, what fits
//   the command ("fingerprint the root again" fits resolve, not replay).
std::optional<v1::RootFingerprint> LoadFingerprint(const std::string& path,
                                                   const std::string& boot_id,
                                                   const std::string& whose,
                                                   const std::string& remedy, int* exit_code);

}  // namespace proctape
