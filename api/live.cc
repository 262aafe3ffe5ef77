// SPDX-License-Identifier: Apache-2.0
// The live host's calls of include/proctape/live.h. Each call opens its own
// ProcfsEvidence (one per call, none shared: an Evidence is not thread-safe)
// and catches every exception at its edge.
#include "proctape/live.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "api/convert.h"
#include "api/guard.h"
#include "api/record.h"
#include "capture/fingerprint.h"
#include "capture/host_facts.h"
#include "capture/live_checks.h"
#include "capture/live_record.h"
#include "capture/procfs_evidence.h"
#include "core/proc_parse.h"
#include "format/fingerprint_file.h"
#include "proto/convert.h"

namespace proctape::api {
namespace {

using detail::Fail;
using detail::Guard;

constexpr std::int64_t kMaxPid = 2147483647;

std::string Escaped(const std::string& s) { return EscapeBytes(s, 1024); }

// The live /proc, or null with *error (kProc).
std::unique_ptr<ProcfsEvidence> OpenProc(const LiveOptions& options, Error* error) {
  Failure failure;
  auto live = ProcfsEvidence::Open(options.proc_root, &failure);
  if (!live) *error = Fail(ErrorCode::kProc, EscapeBytes(failure.message, 4096));
  return live;
}

// The boot id as read, or "" with *error (kProc).
std::string BootId(const LiveOptions& options, Error* error) {
  std::string boot_id = CollectHostFacts(options.proc_root).boot_id();
  if (boot_id.empty()) {
    *error = Fail(ErrorCode::kProc, "cannot read " + Escaped(options.proc_root) +
                                        "/sys/kernel/random/boot_id: the boot cannot be known");
  }
  return boot_id;
}

// The executable is attested by device and inode: a path that is not a
// regular file cannot be (as `proctape fingerprint --exe`).
std::string ExeProblem(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
  if (S_ISREG(st.st_mode)) return "";
  return S_ISDIR(st.st_mode) ? "a directory, not an executable file" : "not a regular file";
}

}  // namespace

FingerprintResult TakeFingerprint(std::int64_t root_pid, const std::string& exe_path,
                                  const LiveOptions& options) noexcept {
  return Guard<FingerprintResult>([&] {
    FingerprintResult out;
    if (root_pid < 2 || root_pid > kMaxPid) {
      out.error = Fail(ErrorCode::kInvalidArgument,
                       "root pid " + std::to_string(root_pid) + " is outside 2..2147483647");
      return out;
    }
    auto live = OpenProc(options, &out.error);
    if (!live) return out;
    if (std::string why = ExeProblem(exe_path); !why.empty()) {
      out.error = Fail(ErrorCode::kExe, "cannot attest " + Escaped(exe_path) + ": " + why);
      return out;
    }
    const std::string boot_id = BootId(options, &out.error);
    if (boot_id.empty()) return out;
    TakenFingerprint taken = proctape::TakeFingerprint(*live, root_pid, exe_path, boot_id);
    if (!taken.root.resolved()) {
      out.root_status = static_cast<Status>(taken.root.status);
      out.error = Fail(ErrorCode::kRoot,
                       "root " + std::to_string(root_pid) +
                           " cannot be fingerprinted: " + std::string(StatusName(out.root_status)) +
                           ": " + EscapeBytes(taken.root.detail, 1024));
      return out;
    }
    if (!taken.exe.ok()) {
      out.error = Fail(ErrorCode::kExe,
                       "cannot attest " + Escaped(exe_path) + ": " + std::strerror(taken.exe.err));
      return out;
    }
    out.fingerprint = detail::FromProto(taken.fingerprint);
    return out;
  });
}

ResolveResult Resolve(const Request& request, const Fingerprint& fingerprint,
                      const RecordPolicy& record, const LiveOptions& options) noexcept {
  return Guard<ResolveResult>([&] {
    ResolveResult out;
    // The CLI's ranges (proctape resolve --deadline-ms, --byte-budget).
    if (request.deadline_ms < 0 || request.deadline_ms > 3'600'000) {
      out.error =
          Fail(ErrorCode::kInvalidArgument,
               "deadline_ms " + std::to_string(request.deadline_ms) + " is outside 0..3600000");
      return out;
    }
    if (request.byte_budget < 1 || request.byte_budget > (std::uint64_t{1} << 40)) {
      out.error =
          Fail(ErrorCode::kInvalidArgument, "byte_budget " + std::to_string(request.byte_budget) +
                                                " is outside 1..1099511627776");
      return out;
    }
    const v1::RootFingerprint taken = detail::ToProto(fingerprint);
    if (std::string why = FingerprintProblem(taken); !why.empty()) {
      out.error = Fail(ErrorCode::kInvalidArgument, "the fingerprint cannot be used: " + why);
      return out;
    }
    // The output before any work (fs/output_file.h, rule 1).
    std::unique_ptr<OutputFile> output = detail::OpenRecording(record, &out.error);
    if (!out.error.ok()) return out;
    auto live = OpenProc(options, &out.error);
    if (!live) return out;
    // A start tick counts clock ticks since boot: from another boot it names
    // nothing of this one.
    const std::string boot_id = BootId(options, &out.error);
    if (boot_id.empty()) return out;
    if (std::string why = OtherBoot(taken, boot_id); !why.empty()) {
      out.error = Fail(ErrorCode::kOtherBoot, why);
      return out;
    }
    proctape::Request core = detail::ToCore(request);
    ApplyFingerprint(taken, &core);
    v1::Header header;
    if (output) FillHeader(ScanOptions{}, options.proc_root, options.command_line, &header);
    ProcfsEvidence* proc = live.get();
    FrameSource frames;
    frames.pid_ns = [proc](std::int64_t pid) { return proc->PidNamespace(pid); };
    frames.open_workers = [&options] {
      return OpenScanWorkers(options.proc_root, options.scan_threads == 0 ? DefaultScanThreads()
                                                                          : options.scan_threads);
    };
    return detail::ResolveRecorded(*live, std::move(core), taken, record.when, std::move(output),
                                   frames, std::move(header));
  });
}

LivenessResult CheckLiveness(const ProcessIdentity& identity, const LiveOptions& options) noexcept {
  return Guard<LivenessResult>([&] {
    LivenessResult out;
    auto live = OpenProc(options, &out.error);
    if (!live) return out;
    // A start tick counts clock ticks since boot: from another boot it names
    // nothing of this one (docs/resolver.md, "Liveness").
    BootIdentity checked{identity.pid, identity.start_ticks, ""};
    if (!identity.boot_id.empty()) {
      Failure why;
      checked.boot_id = ParseBootId(identity.boot_id, &why);
      if (checked.boot_id.empty()) {
        out.error = Fail(ErrorCode::kInvalidArgument, "boot_id: " + why.message);
        return out;
      }
      const std::string boot_id = BootId(options, &out.error);
      if (boot_id.empty()) return out;
      if (std::string other = OtherBoot(checked.boot_id, boot_id); !other.empty()) {
        out.error =
            Fail(ErrorCode::kOtherBoot, "pid " + std::to_string(identity.pid) + ", start tick " +
                                            std::to_string(identity.start_ticks) + " is " + other);
        return out;
      }
    }
    proctape::LivenessVerdict verdict;
    v1::Resolution unused;
    LivenessCheck(checked, &verdict)(*live, &unused);
    out.verdict = detail::FromCore(verdict);
    return out;
  });
}

}  // namespace proctape::api
