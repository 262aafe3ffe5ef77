// SPDX-License-Identifier: Apache-2.0
// `proctape diff A [B]`: what changed between two frames, of one file or of
// two (analyze/diff.h), as text or one JSON object. Frames of different boots
// are refused (exit 2) unless --force.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "analyze/diff.h"
#include "analyze/diff_files.h"
#include "cli/command_io.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "cli/view_output.h"
#include "core/proc_parse.h"
#include "proto/convert.h"

namespace proctape {
namespace {

struct DiffOptions {
  DiffRequest request;
  bool all = false;  // list each process outside the other frame's scope
  bool json = false;
  std::int64_t pid = 0;  // --pid, --uid, --comm: request.filter when given
  std::uint32_t uid = 0;
  std::string comm;
};

int RunDiff(DiffOptions o) {
  if (MaybeFailure bad = CheckDiffRequest(&o.request)) return Fail(*bad);
  if (int entered = EnterCommand({"diff", InputsNamed("FILE", o.request.files)});
      entered != kExitOk) {
    return entered;
  }
  const DiffOutcome diff = DiffFiles(o.request);
  if (diff.failure) return Fail(*diff.failure);
  return SayView(diff.notes, [&] {
    if (o.json) {
      std::printf("%s\n", ToJson(diff.report).c_str());
    } else {
      std::fputs(RenderDiff(diff.report, o.all).c_str(), stdout);
    }
  });
}

}  // namespace

// What `--help` says of the command, above its options.
constexpr const char* kDescription =
    "Say what changed between two frames: of one file (by default its first and its last\n"
    "complete frame; --frames I J for others) or of two files (by default A's last\n"
    "complete frame and B's first). A process's identity is its (pid, start tick), never\n"
    "a pid alone and never a name, so each change is one of:\n"
    "  reused       the pid is in both frames with another start tick: the process of A\n"
    "               ended and another took its pid (shown as - A, + B);\n"
    "  exited       a process of A whose pid is free in B;\n"
    "  appeared     a process of B whose pid was free in A;\n"
    "  reparented   the same process under another parent pid (its parent ended and a\n"
    "               subreaper or init adopted it);\n"
    "  argv, exe    the same process with another argv (an exec; a zombie's is empty) or\n"
    "               another executable identity (device:inode);\n"
    "  unidentified a record whose stat is unreadable or malformed: not compared.\n"
    "Processes are printed as 'proctape tree' prints them. Start ticks count from boot:\n"
    "frames of different boots (the files' boot ids differ) are refused with exit status\n"
    "2 unless --force. A damaged file's complete frames are used; the exit status is then\n"
    "the damage's (10-16).\n\n"
    "--pid, --uid and --comm compare only the processes they select (all of them, when\n"
    "several are given) in A or in B; the changes and counts are theirs. A filter that\n"
    "selects nothing in either frame exits 5.";

void RegisterDiff(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<DiffOptions>();
  auto frame_a = std::make_shared<std::size_t>(0);
  auto frame_b = std::make_shared<std::size_t>(0);
  CLI::App* sub = app.add_subcommand("diff", kDescription);
  sub->add_option("FILE", o->request.files,
                  "one .ptape file (two of its frames) or two; - for "
                  "standard input")
      ->check(NonEmptyPath())
      ->required()
      ->expected(1, 2);
  AddUnsigned(sub, "--frames", o->request.frames, 0, 4294967295,
              "two frames I J of one file, counted from 0", "I J")
      ->expected(2);
  CLI::Option* fa =
      AddUnsigned(sub, "--frame-a", *frame_a, 0, 4294967295, "the frame of A, counted from 0");
  CLI::Option* fb =
      AddUnsigned(sub, "--frame-b", *frame_b, 0, 4294967295, "the frame of B, counted from 0");
  sub->add_flag("--force", o->request.force, "compare frames of different boots all the same");
  CLI::Option* pid =
      AddSigned(sub, "--pid", o->pid, 1, kMaxPidValue, "compare only this pid", "PID");
  CLI::Option* uid = AddUnsigned(sub, "--uid", o->uid, 0, 4294967294,
                                 "compare only the processes of this real uid", "UID");
  CLI::Option* comm = sub->add_option("--comm", o->comm,
                                      "compare only the processes whose command name (stat "
                                      "field 2) is exactly this, byte for byte")
                          ->type_name("NAME");
  sub->add_flag("--all", o->all,
                "list each process outside the other frame's scope (a --root capture beside a "
                "whole host), not only how many");
  sub->add_flag("--json", o->json,
                "print one JSON object (DiffReport of proto/views.proto; docs/views.md)");
  sub->footer(std::string("Examples:\n"
                          "  proctape diff failure.ptape                  # first frame -> last\n"
                          "  proctape diff failure.ptape --frames 1 2\n"
                          "  proctape diff before.ptape after.ptape\n"
                          "  proctape diff a.ptape b.ptape --frame-a 0 --frame-b 3 --json\n\n") +
              ExitStatusFooter("0, 2 usage error (frames of different boots without --force), 5 "
                               "the filter selects no process, 10-16 damaged file"));
  sub->callback([o, frame_a, frame_b, fa, fb, pid, uid, comm, exit_code] {
    if (pid->count() > 0) o->request.filter.pid = o->pid;
    if (uid->count() > 0) o->request.filter.uid = o->uid;
    if (comm->count() > 0) o->request.filter.comm = o->comm;
    if (fa->count() > 0) o->request.frame_a = *frame_a;
    if (fb->count() > 0) o->request.frame_b = *frame_b;
    *exit_code = RunDiff(*o);
  });
}

}  // namespace proctape
