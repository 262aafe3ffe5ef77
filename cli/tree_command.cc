// SPDX-License-Identifier: Apache-2.0
// `proctape tree FILE`: the process forest of one frame (analyze/tree.h), as
// text or one JSON object.
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "analyze/tree.h"
#include "cli/command_io.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/outputs.h"
#include "cli/options.h"
#include "cli/exit_codes.h"
#include "core/proc_parse.h"
#include "format/reader.h"
#include "proto/convert.h"
#include "replay/token_mask.h"

namespace proctape {
namespace {

struct TreeCliOptions {
  std::string file;
  bool json = false;
  TreeOptions tree;
  std::int64_t marker = 0;
  bool has_marker = false;
  std::int64_t pid = 0;  // --pid, --uid, --comm: options.tree.filter when given
  std::uint32_t uid = 0;
  std::string comm;
  bool wide = false;  // --wide: never cut a line
};

// The columns to fit: standard output's terminal width (TIOCGWINSZ, else
// $COLUMNS, else 80); 0 when standard output is not a terminal (a pipe or a
// file gets every line whole).
std::size_t TerminalWidth() {
  if (::isatty(STDOUT_FILENO) != 1) return 0;
  struct winsize size = {};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  if (const char* columns = std::getenv("COLUMNS")) {
    const std::optional<std::uint64_t> n =
        ParseInteger(columns, std::uint64_t{1}, std::uint64_t{100'000});
    if (n) return *n;
  }
  return 80;
}

int RunTree(TreeCliOptions o) {
  if (o.has_marker) o.tree.marker = o.marker;
  if (int entered = EnterCommand({"tree", {{"FILE", o.file}}}); entered != kExitOk) return entered;
  // Only the frame drawn is kept whole (the others as their shells), and no
  // observation; a lab file without --marker keeps every frame, where
  // DerivedMarker looks for the process its resolution resolved.
  ReadKeep keep;
  keep.frames = std::vector<std::uint64_t>{o.tree.frame};
  keep.observations = false;
  if (!o.tree.marker) keep.every_frame_if = DerivesMarker;
  Snapshot snapshot;
  const FormatError error = ReadSnapshot(o.file, &snapshot, keep);
  const std::string name = TokenMask::Of(snapshot).Shown(o.file);  // it may hold a piece of it
  const std::string damage = error.ok() ? "" : name + ": " + EscapeBytes(error.message);
  if (!error.ok() && snapshot.frames.empty()) return Fail(ExitCodeFor(error.kind), damage);
  std::string why;
  bool root_missing = false;
  std::optional<v1::TreeReport> report = BuildTree(snapshot, name, o.tree, &why, &root_missing);
  // A damaged file that cannot show what was asked (a --frame past the
  // frames before the damage) is one line, the damage's, with its status.
  if (!report && !error.ok()) return Fail(ExitCodeFor(error.kind), damage + "; " + why);
  // A --root in no process of the frame selected nothing: not found, as a
  // --pid that selects nothing.
  if (!report) return Fail(root_missing ? kExitNotFound : kExitUsage, why);
  // Said first; the status is the damage's, also when the tree is drawn.
  if (!error.ok())
    Fail(ExitCodeFor(error.kind), damage + " (the frames before the damage are used)");
  if (!error.ok()) report->set_warning(name + ": " + EscapeBytes(error.message));
  if (o.json) {
    std::printf("%s\n", ToJson(*report).c_str());
  } else {
    std::fputs(RenderTree(*report, o.wide ? 0 : TerminalWidth()).c_str(), stdout);
  }
  if (report->has_selected() && report->selected() == 0) {
    std::fflush(stdout);
    return Fail(kExitNotFound, name + " frame " + std::to_string(o.tree.frame) + ": " +
                                   FilterText(report->filter(), true) + " selects no process");
  }
  return error.ok() ? kExitOk : ExitCodeFor(error.kind);
}

}  // namespace

// What `--help` says of the command, above its options.
constexpr const char* kDescription =
    "Draw the processes of one frame of a snapshot file as a tree, like 'pstree -p':\n"
    "one line per process with its host pid, then its command name (stat field 2,\n"
    "quoted), state, parent pid, process group and session (stat fields 5 and 6), start\n"
    "time in clock ticks after boot (and in seconds), real uid, NSpid chain (outermost\n"
    "first: the last number is its pid inside its own namespace), executable identity\n"
    "(device:inode) and argv (each element quoted). (pid, start tick) is a process's\n"
    "identity. Bytes that are not printable ASCII, quotes and backslashes are escaped as\n"
    "\\xNN, so a hostile name cannot forge a line or a terminal escape.\n\n"
    "Marks after '<=': the process a recorded resolution resolved, the root it searched\n"
    "beneath, and the host process that the sandbox's marker names. The marker (what the\n"
    "sandboxed shell's 'echo $$' wrote, a pid of the sandbox's namespace) is not stored\n"
    "in files: give it with --marker N ('proctape lab' prints it). For a 'proctape lab'\n"
    "recording it is derived: the innermost NSpid of the resolved process is the $$ of\n"
    "the shell that exec'd it. A process whose parent is not in the frame is a root of\n"
    "the forest. Kernel threads beneath kthreadd are folded into one count unless\n"
    "--kernel is given.\n\n"
    "--pid (its subtree), --uid and --comm select processes (all of them, when several\n"
    "are given); each is drawn beneath its ancestors, which are drawn as context lines\n"
    "('PID \"comm\" (context)'). A filter that selects nothing exits 5.\n\n"
    "On a terminal each line is cut to its width and ends with '>' (--wide keeps\n"
    "every line whole); into a pipe or a file lines are never cut.";

void RegisterTree(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<TreeCliOptions>();
  CLI::App* sub = app.add_subcommand("tree", kDescription);
  sub->add_option("FILE", o->file, "a .ptape file, or - for standard input")
      ->check(NonEmptyPath())
      ->required();
  AddUnsigned(sub, "--frame", o->tree.frame, 0, 4294967295,
              "the frame to draw, counted from 0 in file order ('proctape show' lists them)")
      ->capture_default_str();
  AddSigned(sub, "--root", o->tree.root, 1, kMaxPidValue,
            "draw only this host pid and its descendants", "PID");
  CLI::Option* marker = AddSigned(sub, "--marker", o->marker, 1, kMaxPidValue,
                                  "the marker's value: mark the host process with that pid", "PID");
  CLI::Option* pid = AddSigned(sub, "--pid", o->pid, 1, kMaxPidValue,
                               "draw only this process and its descendants (beneath their "
                               "ancestors, drawn as context)",
                               "PID");
  CLI::Option* uid = AddUnsigned(sub, "--uid", o->uid, 0, 4294967294,
                                 "draw only the processes of this real uid", "UID");
  CLI::Option* comm = sub->add_option("--comm", o->comm,
                                      "draw only the processes whose command name (stat field "
                                      "2) is exactly this, byte for byte")
                          ->type_name("NAME");
  sub->add_flag("--kernel", o->tree.kernel, "show kernel threads instead of folding them");
  sub->add_flag("--wide", o->wide,
                "never cut a line (on a terminal, lines are cut to its width, ending with '>')");
  sub->add_flag("--json", o->json,
                "print one JSON object (TreeReport of proto/views.proto; docs/views.md)");
  sub->footer(std::string("Examples:\n"
                          "  proctape tree failure.ptape\n"
                          "  proctape tree failure.ptape --frame 1 --root 4242\n"
                          "  proctape tree host.ptape --marker 1 --kernel\n"
                          "  proctape tree host.ptape --comm sleep --uid 1000\n"
                          "  proctape tree failure.ptape --json\n\n") +
              ExitStatusFooter("0, 2 usage error, 5 the filter or --root selects no process, 10-16 "
                               "damaged file"));
  sub->callback([o, marker, pid, uid, comm, exit_code] {
    o->has_marker = marker->count() > 0;
    if (pid->count() > 0) o->tree.filter.pid = o->pid;
    if (uid->count() > 0) o->tree.filter.uid = o->uid;
    if (comm->count() > 0) o->tree.filter.comm = o->comm;
    *exit_code = RunTree(*o);
  });
}

}  // namespace proctape
