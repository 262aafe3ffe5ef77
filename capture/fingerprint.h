// SPDX-License-Identifier: Apache-2.0
// Taking a root's fingerprint before the turn (`docs/resolver.md`, "The eight
// steps", step 1: the root's host pid and its stat start time, and /bin/sleep's
// device and inode), for `proctape fingerprint` and the lab. The file that
// keeps it until the resolution is format/fingerprint_file.h.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "capture/option_failure.h"
#include "core/evidence.h"
#include "core/verdict.h"
#include "fs/output_file.h"
#include "proctape.pb.h"

namespace proctape {

struct TakenFingerprint {
  // The root's stat as FingerprintRoot read it: RESOLVED with its start tick,
  // or why it cannot be fingerprinted (MISSING_ROOT, UNREADABLE,
  // MALFORMED_RECORD), with the evidence.
  Verdict root;
  Identity exe;                     // the executable's identity, or the errno of its stat
  v1::RootFingerprint fingerprint;  // whole only when ok()
  bool ok() const { return root.resolved() && exe.ok(); }
};

// Reads the root's stat once through `evidence` (at most 4,096 bytes, as the
// resolver does), then attests `exe_path` (PathIdentity: links followed).
// The fingerprint holds the root's pid, start tick and command name (for
// people only: never used to decide), `exe_path` and its identity, `boot_id`
// (as read, the host's /proc/sys/kernel/random/boot_id) and the monotonic
// (evidence's clock) and real times it was taken. The exe is not attested
// when the root cannot be fingerprinted.
TakenFingerprint TakeFingerprint(Evidence& evidence, std::int64_t root_pid,
                                 const std::string& exe_path, const std::string& boot_id);

// The header of a fingerprint file taken on this host: its facts (the boot id
// read from `proc_root`, which the fingerprint repeats), the capturer, the
// tool version and `command_line`.
v1::Header FingerprintHeader(const std::string& proc_root,
                             const std::vector<std::string>& command_line);

struct WrittenFingerprint {
  // Why nothing was written: this host's boot id cannot be read (kInternal),
  // the executable cannot be attested ("--exe", kUsage), the file cannot be
  // written ("--output", kIo; nothing is left of it). Unset with `taken`'s
  // root not RESOLVED: the root cannot be fingerprinted, and that verdict's
  // status (MISSING_ROOT, UNREADABLE, MALFORMED_RECORD) says why.
  std::optional<OptionFailure> failure;
  TakenFingerprint taken;  // the fingerprint written, when no failure
  std::string boot_id;     // this host's, as read (FingerprintHeader)
};

// `proctape fingerprint`: the header of this host (FingerprintHeader of
// `proc_root`, `command_line`), the fingerprint of `root_pid` and `exe_path`
// taken through `evidence` (TakeFingerprint), written to `output` (opened,
// and so checked, before: format/fingerprint_file.h WriteFingerprintFile).
WrittenFingerprint WriteRootFingerprint(Evidence& evidence, std::int64_t root_pid,
                                        const std::string& exe_path, const std::string& proc_root,
                                        const std::vector<std::string>& command_line,
                                        std::unique_ptr<OutputFile> output);

}  // namespace proctape
