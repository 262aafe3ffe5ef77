// SPDX-License-Identifier: Apache-2.0
#include "cli/liveness_identity.h"

#include <optional>
#include <vector>

#include "capture/host_facts.h"
#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/fingerprint_load.h"
#include "core/proc_parse.h"
#include "format/file_holds.h"
#include "format/fingerprint_file.h"
#include "format/reader.h"

namespace proctape {
namespace {

// The one RESOLVED verdict of a recording and the boot it was resolved in
// (its fingerprint's, else the recording's header's).
bool RecordedIdentity(const std::string& file, BootIdentity* identity, int* exit_code) {
  Snapshot snapshot;
  ReadKeep keep;  // the header and the resolutions: no frame, no tape
  keep.frames.emplace();
  keep.observations = false;
  if (FormatError error = ReadSnapshot(file, &snapshot, keep); !error.ok()) {
    *exit_code = FailAbout(ExitCodeFor(error.kind), "--from-recording", file, error.message);
    return false;
  }
  std::vector<const v1::Resolution*> resolved;
  for (const v1::Resolution& r : snapshot.resolutions) {
    if (r.has_resolve() && r.verdict().status() == v1::Verdict::RESOLVED) resolved.push_back(&r);
  }
  if (resolved.size() != 1) {
    *exit_code = FailAbout(kExitUsage, "--from-recording", file,
                           (resolved.empty() ? "holds no RESOLVED resolution"
                                             : "holds " + std::to_string(resolved.size()) +
                                                   " RESOLVED resolutions, not one") +
                               ": it is " + FileHolds(snapshot) + " (give --pid and --start)");
    return false;
  }
  const v1::Resolution& r = *resolved.front();
  identity->pid = r.verdict().pid();
  identity->start_ticks = r.verdict().start_ticks();
  identity->boot_id = r.resolve().has_fingerprint() ? r.resolve().fingerprint().boot_id()
                                                    : snapshot.header.host().boot_id();
  return true;
}

}  // namespace

bool LivenessIdentity(const LivenessSource& source, BootIdentity* identity, int* exit_code) {
  *identity = BootIdentity{source.pid, source.start, ""};
  std::string option = "--boot-id";
  std::string named = source.boot_id;
  if (source.has_boot_id) {
    std::string unused;  // a value that is no boot id was refused as the option was read
    identity->boot_id = ParseBootId(source.boot_id, &unused);
  } else if (!source.from_recording.empty()) {
    if (!RecordedIdentity(source.from_recording, identity, exit_code)) return false;
    option = "--from-recording";
    named = source.from_recording;
  }
  const bool fingerprinted = !source.fingerprint.empty();
  if (identity->boot_id.empty() && !fingerprinted) return true;  // nothing to check
  const std::string host_boot = CollectHostFacts(source.proc).boot_id();
  if (host_boot.empty()) {
    *exit_code = Fail(kExitInternal, "cannot read " + EscapeBytes(source.proc, 4096) +
                                         "/sys/kernel/random/boot_id: the identity's boot "
                                         "cannot be checked");
    return false;
  }
  if (fingerprinted) {
    std::optional<v1::RootFingerprint> fp =
        LoadFingerprint(source.fingerprint, host_boot, "this host's",
                        "resolve and check the process of this boot", exit_code);
    if (!fp) return false;
    identity->boot_id = fp->boot_id();
    return true;
  }
  if (std::string other = OtherBoot(identity->boot_id, host_boot); !other.empty()) {
    *exit_code = FailAbout(kExitOtherBoot, option, named,
                           "pid " + std::to_string(identity->pid) + ", start tick " +
                               std::to_string(identity->start_ticks) + " is " + other +
                               " (this host's): its start tick counts from another boot and "
                               "names no process of this one");
    return false;
  }
  return true;
}

std::string UncheckedBootWarning(const BootIdentity& identity) {
  return "the boot of pid " + std::to_string(identity.pid) + ", start tick " +
         std::to_string(identity.start_ticks) +
         " is not known: a start tick counts from its boot, and after a reboot the same pid "
         "and start tick can name another process (give --fingerprint FILE, "
         "--from-recording FILE or --boot-id ID)";
}

}  // namespace proctape
