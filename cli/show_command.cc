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
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "core/proc_parse.h"
#include "format/reader.h"
#include "proto/convert.h"

namespace proctape {
namespace {

struct ShowOptions {
  std::vector<std::string> files;
  bool json = false;
};

// One file: its text on standard output, after a blank line unless it is the
// first text shown (*shown says whether one was) (JSON: into *json); its status.
int ShowOne(const std::string& file, bool json, bool* shown, std::string* report_json) {
  Snapshot snapshot;
  const FormatError error = ReadSnapshot(file, &snapshot);
  const std::string name = EscapeBytes(file, 4096);
  if (!error.ok() && snapshot.chunks == 0) {
    std::fflush(stdout);
    return Fail(ExitCodeFor(error.kind), name + ": " + EscapeBytes(error.message));
  }
  const v1::ShowReport report = BuildShow(snapshot, error, name);
  if (json) {
    *report_json = ToJson(report);
  } else {
    if (*shown) std::fputs("\n", stdout);
    std::fputs(RenderShow(report).c_str(), stdout);
  }
  *shown = true;
  if (error.ok()) return kExitOk;
  std::fflush(stdout);
  return Fail(ExitCodeFor(error.kind), name + ": " + EscapeBytes(error.message));
}

int RunShow(const ShowOptions& o) {
  if (std::string why = StdinOnce({{"FILE", o.files}}); !why.empty()) return Fail(kExitUsage, why);
  int worst = kExitOk;
  std::vector<std::string> reports;
  bool shown = false;
  for (const std::string& file : o.files) {
    std::string json;
    worst = Worst(worst, ShowOne(file, o.json, &shown, &json));
    if (!json.empty()) reports.push_back(json);
  }
  if (o.json && !reports.empty()) std::printf("%s\n", JsonList(reports).c_str());
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
      "printed escaped (\\xNN). 'proctape tree' draws the processes of one frame.");
  sub->add_option("FILE", o->files,
                  "a .ptape file, or - for standard input; several are shown in order, "
                  "separated by a blank line")
      ->required();
  sub->add_flag("--json", o->json,
                "print one JSON object (ShowReport of proto/views.proto; docs/views.md)");
  sub->footer(std::string("Examples:\n"
                          "  proctape show failure.ptape\n"
                          "  proctape show host.ptape.partial      # a capture that was killed\n"
                          "  proctape show failure.ptape --json\n"
                          "  proctape show before.ptape after.ptape\n\n") +
              ExitStatusFooter("0, 2 usage error, 10-16 the file is damaged (shown up to the "
                               "damage; several files: the largest of their statuses)"));
  sub->callback([o, exit_code] { *exit_code = RunShow(*o); });
}

}  // namespace proctape
