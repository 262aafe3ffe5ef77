// SPDX-License-Identifier: Apache-2.0
// `proctape show FILE...`: what a snapshot file holds (analyze/show.h), as
// text or one JSON object. A damaged file is shown up to its damage, and the
// exit status is the damage's (10-16). Several files are shown in the order
// given, separated by a blank line (JSON: an array); the exit status is the
// largest of theirs.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "analyze/show.h"
#include "analyze/show_file.h"
#include "cli/command_io.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "core/proc_parse.h"
#include "proto/convert.h"

namespace proctape {
namespace {

struct ShowOptions {
  std::vector<std::string> files;
  bool json = false;
  ProcessFilter filter;  // --pid, --uid, --comm when given
  std::int64_t pid = 0;
  std::uint32_t uid = 0;
  std::string comm;
};

void Print(const std::string& piece) { std::fwrite(piece.data(), 1, piece.size(), stdout); }

// One file (analyze/show_file.h ShowFile): its text on standard output,
// after a blank line unless it is the first text shown (*shown says whether
// one was) (JSON: its report, after `json_before`); its status. Printed
// piece by piece, a frame at a time, each frame's selection read back for it
// alone. A file that cannot be read at all shows nothing in text; under
// --json it is still its report (the document itself, or an entry of its
// files[]), as verify's is: its file and its error, "intact": false,
// nothing else (docs/cli/json.md, "Several files").
int ShowOne(const std::string& file, bool json, const ProcessFilter& filter, bool* shown,
            const std::string& json_before) {
  const ShowOutcome show = ShowFile(file, filter);
  if (show.unread) {
    if (json) Print(json_before + ToJson(show.report));
    std::fflush(stdout);
    return Fail(*show.damage);
  }
  if (json) {
    Print(json_before);
    if (MaybeFailure failed = ShowJson(show.report, show.selections, Print)) {
      std::fflush(stdout);
      return Fail(kExitInternal, show.report.file() + ": cannot print JSON: " + failed->message);
    }
  } else {
    if (*shown) std::fputs("\n", stdout);
    RenderShow(show.report, show.selections, Print);
  }
  *shown = true;
  std::fflush(stdout);
  if (show.nothing_selected) {
    if (show.damage) Fail(*show.damage);
    return Fail(*show.nothing_selected);
  }
  return show.damage ? Fail(*show.damage) : kExitOk;
}

int RunShow(const ShowOptions& o) {
  if (int entered = EnterCommand({"show", InputsNamed("FILE", o.files)}); entered != kExitOk) {
    return entered;
  }
  int worst = kExitOk;
  bool shown = false;
  // --json: one report, or {"files":[...]} of several (JsonList), each
  // printed as it is read.
  const bool several = o.files.size() > 1;
  for (std::size_t i = 0; i < o.files.size(); ++i) {
    const std::string before = !o.json ? "" : !several ? "" : i == 0 ? "{\"files\":[" : ",";
    worst = Worst(worst, ShowOne(o.files[i], o.json, o.filter, &shown, before));
  }
  if (o.json) std::fputs(several ? "]}\n" : "\n", stdout);
  return worst;
}

}  // namespace

void RegisterShow(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ShowOptions>();
  CLI::App* sub = app.add_subcommand(
      "show",
      "Print what a snapshot file holds: who wrote it and how; the capturing host\n"
      "(hostname, kernel, boot id, pid_max, clock ticks per second); when the capture\n"
      "started and ended; the capturer's pid, uid and pid namespace (not the initial one:\n"
      "every pid in the file is a pid of that namespace); each frame (processes, scan\n"
      "duration, bytes read, reads truncated at their bound, a scan cut by a bound, and the\n"
      "recorded resolution it precedes); the tape; each recorded resolution (request,\n"
      "verdict, observations); how environments were stored (a WARNING when values were\n"
      "kept; a kept token entry shows its variable name and length, never its value); and\n"
      "whether the file is intact. A damaged file (a capture that was killed, a flipped\n"
      "bit) is shown up to the damage: the last line names it, and the exit status is its\n"
      "kind's (13 truncated, 14 checksum, ...). Names and other bytes from the host are\n"
      "printed escaped (\\xNN). 'proctape tree' draws the processes of one frame.\n\n"
      "--pid, --uid and --comm list, under each frame, the processes they select (all\n"
      "of them, when several are given), one line each as 'proctape tree' prints them.\n"
      "A filter that selects nothing in any frame exits 5.");
  sub->add_option("FILE", o->files,
                  "a .ptape file, or - for standard input; several are shown in order, "
                  "separated by a blank line")
      ->check(NonEmptyPath())
      ->required();
  CLI::Option* pid =
      AddSigned(sub, "--pid", o->pid, 1, kMaxPidValue, "list this process in each frame", "PID");
  CLI::Option* uid = AddUnsigned(sub, "--uid", o->uid, 0, 4294967294,
                                 "list the processes of this real uid in each frame", "UID");
  CLI::Option* comm = sub->add_option("--comm", o->comm,
                                      "list the processes whose command name (stat field 2) is "
                                      "exactly this, byte for byte, in each frame")
                          ->type_name("NAME");
  sub->add_flag("--json", o->json,
                "print one JSON object (ShowReport of proto/views.proto; docs/views.md)");
  sub->footer(std::string("Examples:\n"
                          "  proctape show failure.ptape\n"
                          "  proctape show host.ptape.partial      # a capture that was killed\n"
                          "  proctape show failure.ptape --json\n"
                          "  proctape show before.ptape after.ptape\n\n") +
              ExitStatusFooter("0, 2 usage error, 5 the filter selects no process, 10-16 the "
                               "file is damaged (shown up to the damage; several files: the "
                               "largest of their statuses)"));
  sub->callback([o, pid, uid, comm, exit_code] {
    if (pid->count() > 0) o->filter.pid = o->pid;
    if (uid->count() > 0) o->filter.uid = o->uid;
    if (comm->count() > 0) o->filter.comm = o->comm;
    *exit_code = RunShow(*o);
  });
}

}  // namespace proctape
