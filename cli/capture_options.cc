// SPDX-License-Identifier: Apache-2.0
// `proctape capture`: its options and help text (the command itself is
// cli/capture_command.cc).
#include "cli/capture_options.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/live_proc.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "core/checked.h"

namespace proctape {

// What `--help` says of the command, above its options.
constexpr const char* kDescription =
    "Capture bounded /proc evidence of this host into a .ptape snapshot file: per process\n"
    "the raw bytes of stat, cmdline, environ (values redacted by default), status and\n"
    "cgroup, the identity of its executable and of its pid namespace; failed reads are\n"
    "kept with their errno. The file is written as a temporary FILE.XXXXXX.partial beside\n"
    "FILE and renamed when complete; Ctrl-C finishes it with the frames complete (exit 130).";

// Above the exit statuses in `--help`.
constexpr const char* kFooter =
    "Bounds per process: stat 4096, cmdline 65536, environ 65536,\n"
    "status 16384, cgroup 4096 bytes.\n"
    "The summary goes to standard output (standard error with -o -).\n\n"
    "Examples:\n"
    "  proctape capture\n"
    "  proctape capture -o ci-host.ptape --frames 10 --interval 500\n"
    "  proctape capture --root 4242 -o sandbox.ptape --json\n"
    "  proctape capture --root 4242 --interval 10 --until-exit -o watch.ptape\n"
    "  proctape capture -o - | ssh me@desk 'cat > host.ptape'\n"
    "  proctape capture --proc-root frame0 -o again.ptape\n\n";

// --proc-root DIR: one frame of a /proc-like directory instead of this
// host's, so without the options of live frames.
void AddProcRootOption(CLI::App* sub, std::string& proc_root, CLI::Option* proc) {
  sub->add_option("--proc-root", proc_root,
                  "capture one frame of a /proc-like directory instead: a 'proctape export "
                  "--format proc-dir' (its proctape-identity and proctape-frame side files give "
                  "back identities, errnos, truncation, times and host facts) or a fixture made "
                  "by another tool (read like /proc). Sealed inside DIR: no link out of it is "
                  "followed, and exe and ns/pid links are kept as text, never followed")
      ->check(NonEmptyPath("directory"))
      ->type_name("DIR")
      ->excludes(proc)
      ->excludes(sub->get_option("--frames"))
      ->excludes(sub->get_option("--interval"))
      ->excludes(sub->get_option("--threads"))
      ->excludes(sub->get_option("--until-exit"));
}

void RegisterCapture(CLI::App& app, int* exit_code, std::vector<std::string> command_line) {
  auto o = std::make_shared<CaptureOptions>();
  o->command_line = std::move(command_line);
  CLI::App* sub = app.add_subcommand("capture", kDescription);
  AddOutputOption(sub, o->output,
                  "output file; '-' for standard output (default: "
                  "./<hostname>-<UTC time YYYYmmddTHHMMSSZ>.ptape)")
      ->type_name("FILE");
  AddUnsigned(sub, "--frames", o->frames, 1, 1'000'000, "number of frames to capture")
      ->capture_default_str();
  AddSigned(sub, "--interval", o->interval_ms, 0, 86'400'000,
            "milliseconds from one frame's start to the next", "MS")
      ->capture_default_str();
  AddSigned(sub, "--root", o->root, 1, kMaxPidValue,
            "capture only this process and its descendants", "PID")
      ->each([o](const std::string&) { o->has_root = true; });
  sub->add_flag("--until-exit", o->until_exit,
                "with --root: frames until the root has exited (gone, zombie, pid reused); "
                "--frames N caps them");
  sub->add_option("--env", o->env,
                  "redact: store each environ value as '*' of the same length (keys kept); "
                  "keep: store values as read (the file may then hold secrets)")
      ->capture_default_str()
      ->check(CLI::IsMember({"redact", "keep"}));
  AddUnsigned(sub, "--max-processes", o->max_processes, 1, 4194304, "process records per frame")
      ->capture_default_str();
  // At least what one process can take: a smaller budget is refused as
  // any value outside its range is, naming the range.
  AddUnsigned(sub, "--max-bytes", o->max_bytes, ScanOptions{}.WorstCaseProcessBytes(), UINT64_MAX,
              "/proc bytes one frame may read (at least the sum of the file bounds, 155648)",
              "BYTES")
      ->capture_default_str();
  AddUnsigned(sub, "--threads", o->threads, 1, 64,
              "threads reading /proc (default: the cores, at most 4); the file's content "
              "and order do not depend on it");
  AddForceOption(sub, o->force, "replace an existing output file (a regular file: never a link)");
  sub->add_flag("--json", o->json, "print the summary as one JSON object");
  CLI::Option* proc = AddProcOption(sub, o->proc);
  AddProcRootOption(sub, o->proc_root, proc);
  sub->footer(std::string(kFooter) +
              ExitStatusFooter("0 written, 1 /proc cannot be listed, 2 usage error (a --proc-root "
                               "with no process), 5 --root in no frame, 8 a frame cut by a bound "
                               "(5, 8: the file is written all the same), 10 --proc-root cannot "
                               "be opened, or the output refused or cannot be written, 15 a "
                               "--proc-root side file damaged, 130 interrupted: the file holds "
                               "the frames complete"));
  sub->callback([o, sub, exit_code] {
    o->has_interval = sub->get_option("--interval")->count() > 0;
    o->has_frames = sub->get_option("--frames")->count() > 0;
    *exit_code = RunCapture(*o);
  });
}

}  // namespace proctape
