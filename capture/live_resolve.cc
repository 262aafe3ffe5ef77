// SPDX-License-Identifier: Apache-2.0
#include "capture/live_resolve.h"

#include <cstring>
#include <utility>

#include "capture/host_facts.h"
#include "capture/live_checks.h"
#include "capture/live_record.h"
#include "core/proc_parse.h"
#include "format/fingerprint_file.h"
#include "proto/convert.h"

namespace proctape {
namespace {

OptionFailure Refusal(FailureKind kind, std::string message, std::string option = "",
                      std::string path = "") {
  return OptionFailure{Failure(kind, std::move(message)), std::move(option), std::move(path)};
}

// The root and the executable from the fingerprint file taken before the
// turn: it must be of this host's boot, and --root, if given, its root.
std::optional<OptionFailure> FromFingerprint(const LiveResolveRequest& in, Request* request,
                                             std::optional<v1::RootFingerprint>* fingerprint) {
  const std::string boot_id = CollectHostFacts(in.proc).boot_id();
  if (boot_id.empty()) {
    return Refusal(FailureKind::kInternal, "cannot read " + EscapeBytes(in.proc, 4096) +
                                               "/sys/kernel/random/boot_id: the fingerprint's "
                                               "boot cannot be checked");
  }
  Failure failure;
  *fingerprint = ReadFingerprintOfBoot(in.fingerprint, boot_id, "this host's",
                                       "fingerprint the root again", &failure);
  if (!*fingerprint) return OptionFailure{failure, "--fingerprint", in.fingerprint};
  if (in.root && *in.root != (*fingerprint)->root_pid()) {
    return Refusal(FailureKind::kUsage, "--root " + std::to_string(*in.root) + " is not the root " +
                                            std::to_string((*fingerprint)->root_pid()) + " that " +
                                            EscapeBytes(in.fingerprint, 4096) + " fingerprinted");
  }
  ApplyFingerprint(**fingerprint, request);
  return std::nullopt;
}

// The root from --root and the executable attested now; *late says what
// was not fixed before the turn, for a warning.
std::optional<OptionFailure> FromOptions(ProcfsEvidence& live, const LiveResolveRequest& in,
                                         Request* request, std::string* late) {
  if (!in.root) {
    return Refusal(FailureKind::kUsage,
                   "give --fingerprint FILE (taken before the turn) or --root PID");
  }
  request->root_pid = *in.root;
  // The executable is attested by device and inode.
  std::string why = in.exe_problem;
  if (why.empty()) {
    request->exe = live.PathIdentity(in.exe);
    if (!request->exe.ok()) why = std::strerror(request->exe.err);
  }
  if (!why.empty()) {
    return Refusal(FailureKind::kUsage, "cannot attest it: " + why, "--exe", in.exe);
  }
  if (in.root_start) {
    request->root_start_ticks = *in.root_start;
    *late = "--exe " + EscapeBytes(in.exe, 1024) +
            " is attested now, not before the turn: an executable replaced since cannot be "
            "detected (use 'proctape fingerprint' before the turn and --fingerprint)";
  } else {
    *late = "root " + std::to_string(*in.root) +
            " is fingerprinted late: its start tick is read, and --exe attested, now, not "
            "before the turn, so a restarted root or a replaced executable cannot be detected "
            "(use 'proctape fingerprint' before the turn and --fingerprint)";
  }
  return std::nullopt;
}

}  // namespace

LiveResolution ResolveLive(ProcfsEvidence& live, const LiveResolveRequest& in,
                           std::unique_ptr<OutputFile> record) {
  LiveResolution out;
  out.request = in.words;
  std::optional<v1::RootFingerprint> fingerprint;
  std::string late;
  out.refused = in.fingerprint.empty() ? FromOptions(live, in, &out.request, &late)
                                       : FromFingerprint(in, &out.request, &fingerprint);
  if (out.refused) return out;
  const bool fingerprint_now = !fingerprint && !in.root_start;
  LiveCheck check =
      ResolveCheck(&out.request, fingerprint ? fingerprint->exe_path() : in.exe, fingerprint_now,
                   &out.verdict, fingerprint ? &*fingerprint : nullptr);
  LiveRecordOptions options;
  options.proc_root = in.proc;
  options.command_line = in.command_line;
  options.kept_entries = {TokenEntry(out.request)};
  out.record_failure =
      RunLiveCheck(live, options, std::move(record), [&](Evidence& ev, v1::Resolution* r) {
        std::unique_ptr<Evidence> watched = in.watch ? in.watch(ev) : nullptr;
        check(watched ? *watched : ev, r);
        out.ran = true;
      });
  if (!out.ran) return out;
  // Only for a resolution that used what was read late (not one that failed
  // at the root's fingerprint or was refused as a request).
  const bool used_late =
      in.root_start ? out.verdict.status != Status::kInvalidRequest : out.verdict.late_fingerprint;
  if (!late.empty() && used_late) out.warnings.push_back(late);
  return out;
}

}  // namespace proctape
