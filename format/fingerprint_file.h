// SPDX-License-Identifier: Apache-2.0
// A fingerprint file (`docs/format.md` section 12): step 1 of
// `docs/resolver.md`, "The eight steps" (the root's host pid and its stat
// start time, /bin/sleep's device and inode) kept on disk between the
// moment it is taken (`proctape fingerprint`, before the turn) and the
// resolution that relies on it (`proctape resolve --fingerprint`, after).
//
// It is a .ptape file (docs/format.md, "Fingerprint files") of exactly three
// chunks: the header (whose host facts hold the boot id that scopes the
// start tick), one `fingerprint` chunk (a RootFingerprint), the footer.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/failure.h"
#include "format/format_error.h"
#include "fs/output_file.h"
#include "proctape.pb.h"

namespace proctape {

// Writes header, fingerprint and footer to `output` (opened, and so checked,
// before the fingerprint was taken: fs/output_file.h). A failure (kIo, one
// line) when the file cannot be written; nothing is left then.
MaybeFailure WriteFingerprintFile(std::unique_ptr<OutputFile> output, const v1::Header& header,
                                  const v1::RootFingerprint& fingerprint);
// The same to `path`, opened here: an existing NAME replaced only with
// `force`; "-" is standard output. The output refused: OutputFile::Open's
// failure (kUsage or kIo).
MaybeFailure WriteFingerprintFile(const std::string& path, bool force, const v1::Header& header,
                                  const v1::RootFingerprint& fingerprint);

// What is wrong with a fingerprint as a basis for a resolution, or "" when
// nothing is: the root pid must be a pid the resolver accepts (2..2^31-1),
// the boot id must be there (a start tick means nothing outside its boot),
// and the executable must have an attested identity (no errno, an inode).
std::string FingerprintProblem(const v1::RootFingerprint& fingerprint);

// "" when `fingerprint` was taken in the boot `boot_id` names (the bytes of
// /proc/sys/kernel/random/boot_id as read, compared exactly); otherwise one
// line naming both. A start tick counts clock ticks since boot: from another
// boot it names no process of this one. An empty `boot_id` (it could not be
// read) matches no fingerprint.
std::string OtherBoot(const v1::RootFingerprint& fingerprint, const std::string& boot_id);
// The same of any boot id as read (an identity's, a recording's): "" when it
// is `boot_id`, else "in boot X, not in Y".
std::string OtherBoot(std::string_view boot, const std::string& boot_id);

struct FingerprintFile {
  enum class Problem {
    kNone,
    kFormat,           // the file cannot be read whole: `format` says how
    kNotAFingerprint,  // an intact .ptape that holds no fingerprint (a capture, a recording)
    kInvalid,          // a fingerprint, but not in a fingerprint file's shape, or unusable
  };
  Problem problem = Problem::kNone;
  FormatError format;  // kFormat: the first damage, as ReadSnapshot found it
  std::string error;   // one line, without the file name, for every problem
  v1::Header header;
  v1::RootFingerprint fingerprint;
  bool ok() const { return problem == Problem::kNone; }
};

// Reads a fingerprint file and checks its shape: intact, exactly one
// fingerprint chunk and nothing else but header and footer, the
// fingerprint's boot id the header's, and FingerprintProblem() empty.
FingerprintFile ReadFingerprintFile(const std::string& path);

// The fingerprint of the file at `path` (ReadFingerprintFile), taken in the
// boot `boot_id` names (as read), or nullopt with *failure, whose message
// says what is wrong without naming the file (its caller names it, e.g.
// "--fingerprint 'FILE': ..."):
//   the file is damaged or cannot be read: its damage's kind (kIo,
//   kBadMagic ... kTooLarge);
//   an intact file that holds no fingerprint (a capture, a recording):
//   kUsage, with how to take one ('proctape fingerprint');
//   a fingerprint not in a fingerprint file's shape, or unusable: kCorrupt;
//   a fingerprint of another boot: kOtherBoot, naming both boots, `whose`
//   (whose boot `boot_id` is, e.g. "this host's") and `remedy` (what fits
//   the caller: "fingerprint the root again").
std::optional<v1::RootFingerprint> ReadFingerprintOfBoot(const std::string& path,
                                                         const std::string& boot_id,
                                                         const std::string& whose,
                                                         const std::string& remedy,
                                                         Failure* failure);

}  // namespace proctape
