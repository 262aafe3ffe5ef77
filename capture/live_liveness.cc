// SPDX-License-Identifier: Apache-2.0
#include "capture/live_liveness.h"

#include <utility>

#include "capture/host_facts.h"
#include "capture/live_record.h"
#include "core/proc_parse.h"
#include "format/file_holds.h"
#include "format/fingerprint_file.h"
#include "format/reader.h"

namespace proctape {
namespace {

// The one RESOLVED verdict of a recording and the boot it was resolved in
// (its fingerprint's, else the recording's header's).
std::optional<OptionFailure> RecordedIdentity(const std::string& file, BootIdentity* identity) {
  Snapshot snapshot;
  ReadKeep keep;  // the header and the resolutions: no frame, no tape
  keep.frames.emplace();
  keep.observations = false;
  if (FormatError error = ReadSnapshot(file, &snapshot, keep); !error.ok()) {
    return OptionFailure{*ToFailure(error), "--from-recording", file};
  }
  std::vector<const v1::Resolution*> resolved;
  for (const v1::Resolution& r : snapshot.resolutions) {
    if (r.has_resolve() && r.verdict().status() == v1::Verdict::RESOLVED) resolved.push_back(&r);
  }
  if (resolved.size() != 1) {
    return OptionFailure{
        Failure(FailureKind::kUsage,
                (resolved.empty() ? "holds no RESOLVED resolution"
                                  : "holds " + std::to_string(resolved.size()) +
                                        " RESOLVED resolutions, not one") +
                    ": it is " + FileHolds(snapshot) + " (give --pid and --start)"),
        "--from-recording", file};
  }
  const v1::Resolution& r = *resolved.front();
  identity->pid = r.verdict().pid();
  identity->start_ticks = r.verdict().start_ticks();
  identity->boot_id = r.resolve().has_fingerprint() ? r.resolve().fingerprint().boot_id()
                                                    : snapshot.header.host().boot_id();
  return std::nullopt;
}

}  // namespace

std::optional<OptionFailure> LivenessIdentity(const LivenessSource& source,
                                              BootIdentity* identity) {
  *identity = BootIdentity{source.pid, source.start, ""};
  std::string option = "--boot-id";
  std::string named = source.boot_id;
  if (source.has_boot_id) {
    Failure unused;  // a value that is no boot id was refused as the option was read
    identity->boot_id = ParseBootId(source.boot_id, &unused);
  } else if (!source.from_recording.empty()) {
    if (auto refused = RecordedIdentity(source.from_recording, identity)) return refused;
    option = "--from-recording";
    named = source.from_recording;
  }
  const bool fingerprinted = !source.fingerprint.empty();
  if (identity->boot_id.empty() && !fingerprinted) return std::nullopt;  // nothing to check
  const std::string host_boot = CollectHostFacts(source.proc).boot_id();
  if (host_boot.empty()) {
    return OptionFailure{
        Failure(FailureKind::kInternal, "cannot read " + EscapeBytes(source.proc, 4096) +
                                            "/sys/kernel/random/boot_id: the identity's boot "
                                            "cannot be checked"),
        "", ""};
  }
  if (fingerprinted) {
    Failure failure;
    std::optional<v1::RootFingerprint> fp =
        ReadFingerprintOfBoot(source.fingerprint, host_boot, "this host's",
                              "resolve and check the process of this boot", &failure);
    if (!fp) return OptionFailure{failure, "--fingerprint", source.fingerprint};
    identity->boot_id = fp->boot_id();
    return std::nullopt;
  }
  if (std::string other = OtherBoot(identity->boot_id, host_boot); !other.empty()) {
    return OptionFailure{Failure(FailureKind::kOtherBoot,
                                 "pid " + std::to_string(identity->pid) + ", start tick " +
                                     std::to_string(identity->start_ticks) + " is " + other +
                                     " (this host's): its start tick counts from another boot "
                                     "and names no process of this one"),
                         option, named};
  }
  return std::nullopt;
}

std::string UncheckedBootWarning(const BootIdentity& identity) {
  return "the boot of pid " + std::to_string(identity.pid) + ", start tick " +
         std::to_string(identity.start_ticks) +
         " is not known: a start tick counts from its boot, and after a reboot the same pid "
         "and start tick can name another process (give --fingerprint FILE, "
         "--from-recording FILE or --boot-id ID)";
}

LiveLiveness CheckLivenessLive(ProcfsEvidence& live, const BootIdentity& identity,
                               const std::string& proc,
                               const std::vector<std::string>& command_line,
                               std::unique_ptr<OutputFile> record) {
  LiveLiveness out;
  LiveCheck check = LivenessCheck(identity, &out.verdict);
  LiveRecordOptions options;
  options.proc_root = proc;
  options.command_line = command_line;
  out.record_failure =
      RunLiveCheck(live, options, std::move(record), [&](Evidence& ev, v1::Resolution* r) {
        check(ev, r);
        out.ran = true;
      });
  // After the verdict, as resolve warns of a late fingerprint.
  if (out.ran && out.verdict.boot_unchecked) out.warnings.push_back(UncheckedBootWarning(identity));
  return out;
}

}  // namespace proctape
