// SPDX-License-Identifier: Apache-2.0
// `proctape fingerprint`: `docs/resolver.md`, "The eight steps", step 1,
// before the turn. The root's pid
// and start tick, the expected executable's device and inode, and this boot,
// written to a fingerprint file that `resolve --fingerprint` consumes after
// the turn (capture/fingerprint.h WriteRootFingerprint).
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "capture/fingerprint.h"
#include "capture/procfs_evidence.h"
#include "cli/command_io.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/options.h"
#include "cli/exit_codes.h"
#include "cli/live_proc.h"
#include "cli/live_run.h"
#include "cli/outputs.h"
#include "core/proc_parse.h"
#include "proto/convert.h"
#include "proto/summary.h"
#include "written.pb.h"

namespace proctape {
namespace {

struct FingerprintOptions {
  std::int64_t root = 0;
  std::string exe = "/bin/sleep";
  std::string output;
  bool force = false;
  bool json = false;
  std::string proc = "/proc";
  std::vector<std::string> command_line;
};

// A boot id for one line: its trailing newline removed, escaped.
std::string BootText(std::string_view boot_id) { return EscapeBytes(BootIdLine(boot_id), 64); }

// What was written; the file may be standard output: the report then goes
// to standard error.
void PrintReport(const FingerprintOptions& o, const v1::RootFingerprint& fp,
                 const std::string& boot_id) {
  FILE* out = o.output == "-" ? stderr : stdout;
  if (o.json) {
    v1::FingerprintReport report;
    report.set_file(EscapedText(o.output == "-" ? "standard output" : o.output));
    *report.mutable_fingerprint() = ToSummary(fp, boot_id);
    std::fprintf(out, "%s\n", ToJson(report).c_str());
    return;
  }
  std::fprintf(out,
               "fingerprinted root %lld \"%s\" at start tick %llu, %s as %llu:%llu, in boot %s: "
               "wrote %s\n",
               static_cast<long long>(fp.root_pid()), EscapeBytes(fp.root_comm(), 64).c_str(),
               static_cast<unsigned long long>(fp.root_start_ticks()),
               EscapeBytes(fp.exe_path(), 1024).c_str(),
               static_cast<unsigned long long>(fp.exe_identity().dev()),
               static_cast<unsigned long long>(fp.exe_identity().ino()),
               BootText(fp.boot_id()).c_str(), EscapeBytes(o.output, 4096).c_str());
}

int RunFingerprint(const FingerprintOptions& o) {
  if (std::string why = ForceWithoutOutput(o.force, "-o", true, o.output); !why.empty()) {
    return Fail(kExitUsage, why);
  }
  // The executable is attested by device and inode: a path that is not an
  // executable file is refused before any work (cli/live_proc.h).
  if (std::string why = ExeFileError(o.exe); !why.empty()) {
    return FailAbout(kExitUsage, "--exe", o.exe, "cannot attest it: " + why);
  }
  int exit_code = kExitOk;
  std::unique_ptr<ProcfsEvidence> live = OpenLiveProc(o.proc, &exit_code);
  if (!live) return exit_code;
  if (!PidBelowPidMax("--root", o.root, o.proc, &exit_code)) return exit_code;
  // The output before the root is read: checked, its temporary made.
  CommandIo io{"fingerprint", {{"--exe", o.exe, false}}, OutputRequest{}};
  io.output->path = o.output;
  io.output->force = o.force;
  io.output->stdout_allowed = true;
  io.output->binary = true;
  std::unique_ptr<OutputFile> output;
  if (int entered = EnterCommand(io, &output); entered != kExitOk) return entered;
  WrittenFingerprint written =
      WriteRootFingerprint(*live, o.root, o.exe, o.proc, o.command_line, std::move(output));
  if (written.failure) return FailOption(*written.failure);
  if (const Verdict& root = written.taken.root; !root.resolved()) {
    return Fail(ExitCodeFor(root.status), "cannot fingerprint root " + std::to_string(o.root) +
                                              ": " + std::string(StatusName(root.status)) + ": " +
                                              EscapeBytes(root.detail, 1024));
  }
  PrintReport(o, written.taken.fingerprint, written.boot_id);
  return kExitOk;
}

}  // namespace

void RegisterFingerprint(CLI::App& app, int* exit_code, std::vector<std::string> command_line) {
  auto o = std::make_shared<FingerprintOptions>();
  o->command_line = std::move(command_line);
  CLI::App* sub = app.add_subcommand(
      "fingerprint",
      "Before the turn: record the root's host pid and its start time (stat field 22), the\n"
      "expected executable's device and inode, and this boot's id, in a small .ptape file\n"
      "(docs/resolver.md, 'When the root is fingerprinted': a root's identity is fixed\n"
      "before the sandbox starts). 'resolve --fingerprint FILE' resolves against it after\n"
      "the turn, so a root restarted meanwhile is ROOT_RESTARTED and a replaced executable\n"
      "EXE_MISMATCH; 'resolve --record' copies it into the recording. A fingerprint from\n"
      "another boot is refused (exit 9).");
  AddLivePid(sub, "--root", o->root, "host pid of the app-server that will start the sandbox")
      ->required();
  sub->add_option("--exe", o->exe, "the expected executable, attested by device and inode")
      ->check(NonEmptyPath())
      ->type_name("FILE")
      ->capture_default_str();
  AddOutputOption(sub, o->output, "the fingerprint file (.ptape); - writes it to standard output")
      ->required();
  AddForceOption(sub, o->force, "replace an existing output file (a regular file: never a link)");
  sub->add_flag("--json", o->json,
                "print the fingerprint written as one JSON object (FingerprintReport; on "
                "standard error for -o -)");
  AddProcOption(sub, o->proc);
  sub->footer(std::string("Example:\n"
                          "  proctape fingerprint --root \"$APP_SERVER_PID\" -o root.ptape\n"
                          "  ... the turn starts the sandbox ...\n"
                          "  proctape resolve --fingerprint root.ptape --token \"$TOKEN\"\n\n") +
              ExitStatusFooter("0 written, 2 usage error, 5 the root is gone or dead (a "
                               "zombie), 7 its stat cannot be read or parsed, 10 the output "
                               "refused or cannot be written"));
  sub->callback([o, exit_code] { *exit_code = RunFingerprint(*o); });
}

}  // namespace proctape
