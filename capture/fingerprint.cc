// SPDX-License-Identifier: Apache-2.0
#include "capture/fingerprint.h"

#include <time.h>

#include <cstring>
#include <utility>

#include "capture/host_facts.h"
#include "core/proc_parse.h"
#include "core/resolver.h"
#include "format/fingerprint_file.h"
#include "proto/convert.h"

namespace proctape {
namespace {

// Forwards every call; keeps the bytes of the last file read, so that the
// command name comes from the very stat read that gave the start tick.
class KeepLastRead : public Evidence {
 public:
  explicit KeepLastRead(Evidence& inner) : inner_(inner) {}
  ListResult ListPids(std::uint64_t bound) override { return inner_.ListPids(bound); }
  ReadResult ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) override {
    ReadResult r = inner_.ReadFile(pid, file, bound);
    last_ = r.data;
    return r;
  }
  Identity ExeIdentity(std::int64_t pid) override { return inner_.ExeIdentity(pid); }
  Identity PathIdentity(const std::string& path) override { return inner_.PathIdentity(path); }
  std::int64_t NowNs() override { return inner_.NowNs(); }
  void SleepUntil(std::int64_t mono_ns) override { inner_.SleepUntil(mono_ns); }
  const std::string& last() const { return last_; }

 private:
  Evidence& inner_;
  std::string last_;
};

std::int64_t RealtimeNs() {
  struct timespec ts;
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

TakenFingerprint TakeFingerprint(Evidence& evidence, std::int64_t root_pid,
                                 const std::string& exe_path, const std::string& boot_id) {
  TakenFingerprint out;
  KeepLastRead keep(evidence);
  out.root = FingerprintRoot(keep, root_pid);
  if (!out.root.resolved()) return out;
  out.exe = evidence.PathIdentity(exe_path);
  v1::RootFingerprint& fp = out.fingerprint;
  fp.set_root_pid(root_pid);
  fp.set_root_start_ticks(out.root.start_ticks);
  if (StatParse parsed = ParseStat(keep.last()); parsed.ok()) fp.set_root_comm(parsed.fields->comm);
  fp.set_boot_id(boot_id);
  fp.set_exe_path(exe_path);
  *fp.mutable_exe_identity() = ToProto(out.exe);
  fp.set_taken_mono_ns(evidence.NowNs());
  fp.set_taken_realtime_ns(RealtimeNs());
  return out;
}

v1::Header FingerprintHeader(const std::string& proc_root,
                             const std::vector<std::string>& command_line) {
  v1::Header header;
  header.set_tool_version(PROCTAPE_VERSION);
  FillCaptureHeader(proc_root, &header);
  for (const std::string& arg : command_line) header.add_command_line(arg);
  return header;
}

WrittenFingerprint WriteRootFingerprint(Evidence& evidence, std::int64_t root_pid,
                                        const std::string& exe_path, const std::string& proc_root,
                                        const std::vector<std::string>& command_line,
                                        std::unique_ptr<OutputFile> output) {
  WrittenFingerprint out;
  const v1::Header header = FingerprintHeader(proc_root, command_line);
  out.boot_id = header.host().boot_id();
  if (out.boot_id.empty()) {
    out.failure = OptionFailure{
        Failure(FailureKind::kInternal, "cannot read " + EscapeBytes(proc_root, 4096) +
                                            "/sys/kernel/random/boot_id: a fingerprint must "
                                            "name its boot"),
        "", ""};
    return out;
  }
  out.taken = TakeFingerprint(evidence, root_pid, exe_path, out.boot_id);
  if (!out.taken.root.resolved()) return out;
  if (!out.taken.exe.ok()) {
    out.failure = OptionFailure{Failure(FailureKind::kUsage, std::string("cannot attest it: ") +
                                                                 std::strerror(out.taken.exe.err)),
                                "--exe", exe_path};
    return out;
  }
  const std::string path = output->path();
  if (MaybeFailure failed =
          WriteFingerprintFile(std::move(output), header, out.taken.fingerprint)) {
    out.failure = OptionFailure{std::move(*failed), "--output", path};
  }
  return out;
}

}  // namespace proctape
