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
#include "analyze/tree_file.h"
#include "cli/command_io.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "cli/view_output.h"
#include "core/proc_parse.h"
#include "proto/convert.h"

namespace proctape {
namespace {

struct TreeCliOptions {
  TreeRequest request;
  bool json = false;
  std::int64_t marker = 0;
  bool has_marker = false;
  std::int64_t pid = 0;  // --pid, --uid, --comm: request.tree.filter when given
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
  if (o.has_marker) o.request.tree.marker = o.marker;
  if (int entered = EnterCommand({"tree", {{"FILE", o.request.file}}}); entered != kExitOk) {
    return entered;
  }
  const TreeOutcome tree = TreeOfFile(o.request);
  if (tree.failure) return Fail(*tree.failure);
  return SayView(tree.notes, [&] {
    if (o.json) {
      std::printf("%s\n", ToJson(tree.report).c_str());
    } else {
      std::fputs(RenderTree(tree.report, o.wide ? 0 : TerminalWidth()).c_str(), stdout);
    }
  });
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
  sub->add_option("FILE", o->request.file, "a .ptape file, or - for standard input")
      ->check(NonEmptyPath())
      ->required();
  AddUnsigned(sub, "--frame", o->request.tree.frame, 0, 4294967295,
              "the frame to draw, counted from 0 in file order ('proctape show' lists them)")
      ->capture_default_str();
  AddSigned(sub, "--root", o->request.tree.root, 1, kMaxPidValue,
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
  sub->add_flag("--kernel", o->request.tree.kernel, "show kernel threads instead of folding them");
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
    if (pid->count() > 0) o->request.tree.filter.pid = o->pid;
    if (uid->count() > 0) o->request.tree.filter.uid = o->uid;
    if (comm->count() > 0) o->request.tree.filter.comm = o->comm;
    *exit_code = RunTree(*o);
  });
}

}  // namespace proctape
