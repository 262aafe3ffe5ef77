// `proctape liveness` on the live host.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "capture/live_checks.h"
#include "capture/procfs_evidence.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/jail.h"
#include "cli/options.h"
#include "cli/exit_codes.h"
#include "cli/live_proc.h"
#include "cli/live_run.h"
#include "cli/outputs.h"
#include "core/proc_parse.h"
#include "proto/convert.h"
#include "proto/summary.h"

namespace proctape {
namespace {

struct LivenessOptions {
  std::int64_t pid = 0;
  std::uint64_t start = 0;
  std::string proc = "/proc";
  bool json = false;
  std::string record;
  bool has_record = false;
  bool force = false;
  std::vector<std::string> command_line;
};

int RunLiveness(const LivenessOptions& o) {
  // The output first, then --proc: a directory that is not a procfs root is
  // refused before anything is read from it.
  int exit_code = kExitOk;
  std::unique_ptr<OutputFile> record = OpenRecord(o.has_record, o.record, o.force, {}, &exit_code);
  if (exit_code != kExitOk) return exit_code;
  if (int jailed = Jail({"liveness", {}, {}}); jailed != kExitOk) return jailed;
  auto evidence = OpenLiveProc(o.proc, &exit_code);
  if (!evidence) return exit_code;
  // The pid must be one this host can have (cli/live_proc.h).
  if (!PidBelowPidMax("--pid", o.pid, o.proc, &exit_code)) return exit_code;
  LivenessVerdict v;
  bool ran = false;
  LiveCheck check = LivenessCheck(o.pid, o.start, &v);
  bool recorded = RunMaybeRecorded(*evidence, std::move(record), o.proc, o.command_line, {},
                                   [&](Evidence& ev, v1::Resolution* r) {
                                     check(ev, r);
                                     ran = true;
                                   });
  if (!ran) return kExitIo;
  std::FILE* out = VerdictStream(o.record);
  if (o.json) {
    std::fprintf(out, "%s\n", ToJson(ToSummary(ToProto(v))).c_str());
  } else if (v.status == LivenessStatus::kError) {
    std::fprintf(out, "ERROR %s: %s\n", std::string(StatusName(v.reason)).c_str(),
                 v.detail.c_str());
  } else {
    std::fprintf(out, "%s: %s\n", std::string(LivenessName(v.status)).c_str(), v.detail.c_str());
  }
  if (!recorded) return kExitIo;
  return ExitCodeFor(v);
}

}  // namespace

void RegisterLiveness(CLI::App& app, int* exit_code, std::vector<std::string> command_line) {
  auto o = std::make_shared<LivenessOptions>();
  o->command_line = std::move(command_line);
  CLI::App* sub = app.add_subcommand(
      "liveness",
      "Is the process identified by (--pid, --start) still alive? Re-reads its stat only:\n"
      "gone or state Z/X/x is DEAD, the same start time is ALIVE, another start time means\n"
      "the pid was reused (ERROR). Never signals anything.");
  // A value that cannot be a pid is a usage error, not a process that is gone:
  // 2..2147483647 (seed 000), and below this host's pid_max (checked when run).
  AddLivePid(sub, "--pid", o->pid,
            "host pid, as resolve printed it (2 up to below pid_max)")
      ->required();
  AddUnsigned(sub, "--start", o->start, 1, UINT64_MAX, "start tick, as resolve printed it (not 0)",
              "TICKS")
      ->required();
  AddProcOption(sub, o->proc);
  sub->add_flag("--json", o->json, "print the verdict as one JSON object (LivenessSummary)");
  AddSideOutputOption(sub, "--record", o->record,
                      "also write FILE (.ptape): frames before and after, the stat read and "
                      "verdict; - writes it to standard output (the verdict then goes to "
                      "standard error)")
      ->each([o](const std::string&) { o->has_record = true; });
  AddForceOption(sub, o->force, "with --record FILE: replace an existing FILE");
  sub->footer(std::string("Example:\n  proctape liveness --pid 48213 --start 1234567\n\n") +
              ExitStatusFooter("0 ALIVE, 2 usage error, 3 DEAD, 4 pid reused, 7 unreadable, 10 --record refused or cannot be written"));
  sub->callback([o, exit_code] { *exit_code = RunLiveness(*o); });
}

}  // namespace proctape
