// SPDX-License-Identifier: Apache-2.0
#include "cli/command_io.h"
#include "cli/help.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "cli/completion_spec.h"
#include "cli/errors.h"
#include "cli/jail.h"
#include "cli/exit_codes.h"
#include "cli/options.h"
#include "cli/parse_errors.h"
#include "format/file_format.h"

namespace proctape {
namespace {

// Every command: its group in `proctape --help`, in this order, and its one
// line there. A test checks that every registered command is here.
struct Entry {
  const char* group;
  const char* name;
  const char* summary;
};
constexpr Entry kCommands[] = {
    {"On a live host", "fingerprint",
     "record a root's pid, start time and executable, before the turn"},
    {"On a live host", "resolve", "find the host pid of the exact process a sandbox started"},
    {"On a live host", "liveness", "is (pid, start tick) still alive? re-reads its stat only"},
    {"On a live host", "capture", "record bounded /proc evidence of this host into a .ptape"},
    {"Snapshot files", "verify", "check a .ptape whole: intact, or where it is damaged"},
    {"Snapshot files", "show", "what a file holds: host, frames, tape, verdicts, damage"},
    {"Snapshot files", "tree", "one frame's processes as a tree, with their identities"},
    {"Snapshot files", "diff", "what changed between two frames: exits, pid reuse, execs"},
    {"Snapshot files", "explain",
     "a recorded resolution, attempt by attempt, candidate by candidate"},
    {"Snapshot files", "export", "JSON, DOT, SQLite, CSV, or a frame as a /proc-like directory"},
    {"Snapshot files", "replay", "run the identical resolver against a recording: reproduced?"},
    {"Snapshot files", "explore", "what else could the kernel have done? every race, judged"},
    {"Snapshot files", "minimize", "the smallest host on which a check keeps its verdict"},
    {"Snapshot files", "sql", "SQL over one file or a corpus (embedded SQLite)"},
    {"Tests and cleanup", "corpus", "the regression corpus: add, check (in shards), list, rm"},
    {"Tests and cleanup", "lab", "stage a namespace-pid race with real processes, and record it"},
    {"Tests and cleanup", "ownership",
     "plan a verifier's cleanup from two snapshots (signals nothing)"},
    {"Help", "help", "this list; 'help COMMAND' for one; 'help exit-codes'"},
};

const Entry* Find(const std::string& name) {
  for (const Entry& e : kCommands) {
    if (name == e.name) return &e;
  }
  return nullptr;
}

std::string Suggestion(const CLI::App& app, const std::string& word) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  return DidYouMean(word, names);
}

bool IsCommand(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == name) return true;
  }
  return false;
}

// The command a command line runs, with a corpus subcommand: "corpus add".
std::string CommandOf(const CLI::App& app, const std::vector<std::string>& argv) {
  if (argv.size() < 2 || !IsCommand(app, argv[1])) return "";
  std::string command = argv[1];
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() != argv[1] || argv.size() < 3) continue;
    for (const CLI::App* inner : sub->get_subcommands({})) {
      if (inner->get_name() == argv[2]) command += " " + argv[2];
    }
  }
  return command;
}

// --json among the options: what follows `--` is operands (a FILE named
// --json), never an option, so it never makes errors JSON.
bool AskedForJson(const std::vector<std::string>& argv) {
  const auto begin = argv.begin() + (argv.empty() ? 0 : 1);
  const auto operands = std::find(begin, argv.end(), "--");
  return std::find(begin, operands, "--json") != operands;
}

}  // namespace

std::string CommandSummary(const std::string& name) {
  const Entry* e = Find(name);
  return e != nullptr ? e->summary : "";
}

void GroupCommands(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({})) {
    const Entry* e = Find(sub->get_name());
    sub->group(e != nullptr ? e->group : "Other");
  }
}

std::string TopHelp(const CLI::App& app) {
  std::string out =
      "proctape: find, record and replay the identity of Linux processes\n\n"
      "Usage: proctape COMMAND [OPTIONS] [ARGS]  ('proctape help COMMAND': one command)\n";
  std::string group;
  for (const Entry& e : kCommands) {
    if (!IsCommand(app, e.name)) continue;
    if (group != e.group) {
      group = e.group;
      out += "\n" + group + ":\n";
    }
    std::string name = e.name;
    name.resize(std::max<std::size_t>(name.size() + 1, 13), ' ');
    out += "  " + name + e.summary + "\n";
  }
  std::string others;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (Find(sub->get_name()) == nullptr) others += "  " + sub->get_name() + "\n";
  }
  if (!others.empty()) out += "\nOther:\n" + others;
  // What the top level takes instead of a command (TopLevel below), as prose:
  // an indented "  --version" line would read as a command to the scripts
  // that list them.
  out +=
      "\nAlso: 'proctape --version' (-V; with --json, one document) prints the version\n"
      "and the format versions it writes and reads; 'proctape --print-jail' prints\n"
      "what the kernel enforces on each command (docs/security.md).\n";
  out +=
      "\nExit status: 0 success, 2 usage error; verdicts, damage and drift have their own\n"
      "('proctape help exit-codes'). Every command takes --help; most take --json.\n"
      "proctape is read-only: it never signals, ptraces or writes to another process.\n";
  return out;
}

// Whether this binary is the portable build (-DPROCTAPE_PORTABLE=ON:
// protobuf, zstd, nettle and the C++ runtime linked in; README "Install").
#ifdef PROCTAPE_PORTABLE
constexpr bool kPortable = true;
#else
constexpr bool kPortable = false;
#endif

// proctape's license, as an SPDX identifier (LICENSE at the repository's root).
constexpr const char* kLicense = "Apache-2.0";

std::string VersionText() {
  return std::string("proctape ") + PROCTAPE_VERSION + " (format " +
         std::to_string(kFormatVersion) + ", reads " + std::to_string(kOldestFormatVersion) + ".." +
         std::to_string(kFormatVersion) + (kPortable ? ", portable" : "") + ") " + kLicense + "\n";
}

std::string VersionJson() {
  // Every value is a constant of this build: nothing to escape.
  return std::string("{\"version\":\"") + PROCTAPE_VERSION +
         "\",\"format\":{\"writes\":" + std::to_string(kFormatVersion) +
         ",\"reads_oldest\":" + std::to_string(kOldestFormatVersion) +
         ",\"reads_newest\":" + std::to_string(kFormatVersion) +
         "},\"portable\":" + (kPortable ? "true" : "false") + ",\"license\":\"" + kLicense +
         "\"}\n";
}

// `proctape help [TOPIC [SUBCOMMAND]]`, answered before CLI11 parses (a
// command name after `help` would otherwise be taken for that command).
namespace {

int Help(const CLI::App& app, const std::vector<std::string>& args) {
  // `help`, `help --help`, `help help`: the list of commands.
  if (args.empty() ||
      (args.size() == 1 && (args[0] == "--help" || args[0] == "-h" || args[0] == "help"))) {
    std::fputs(TopHelp(app).c_str(), stdout);
    return kExitOk;
  }
  const std::string& topic = args[0];
  // Hidden: the generator of the shell completions reads it at build time.
  if (topic == "--completion-spec" && args.size() == 1) {
    std::fputs(CompletionSpec(app).c_str(), stdout);
    return kExitOk;
  }
  if (topic == "exit-codes") {
    if (args.size() > 1) {
      return UsageError("unexpected argument " + Quoted(args[1]) +
                        " (exit-codes is the whole table)");
    }
    std::fputs(ExitCodeHelp(), stdout);
    return kExitOk;
  }
  if (!IsCommand(app, topic) || topic == "help") {
    return UsageError(Quoted(topic) + " is not a command or topic" + Suggestion(app, topic));
  }
  const CLI::App* command = nullptr;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == topic) command = sub;
  }
  // The path before the command's own name, as `COMMAND --help` shows it:
  // "Usage: proctape corpus add ...", never "Usage: add ...".
  std::string path = app.get_name();
  if (args.size() > 1) {
    const CLI::App* inner = nullptr;
    for (const CLI::App* sub : command->get_subcommands({})) {
      if (sub->get_name() == args[1]) inner = sub;
    }
    if (inner == nullptr) return UsageError(Quoted(topic + " " + args[1]) + " is not a command");
    if (args.size() > 2) return UsageError("unexpected argument " + Quoted(args[2]));
    path += " " + command->get_name();
    command = inner;
  }
  std::fputs(command->help(path).c_str(), stdout);
  return kExitOk;
}

}  // namespace

void RegisterHelp(CLI::App& app, int* exit_code) {
  // Registered so that it is listed and grouped; TopLevel() answers it.
  CLI::App* sub =
      app.add_subcommand("help", "The list of commands, one command's help, or the exit statuses.");
  sub->allow_extras();
  sub->callback([exit_code] { *exit_code = kExitOk; });
}

std::optional<int> TopLevel(const CLI::App& app, const std::vector<std::string>& argv) {
  if (argv.size() < 2) {
    std::fputs(TopHelp(app).c_str(), stderr);
    return kExitUsage;
  }
  const std::string& first = argv[1];
  // Under --json every failure is JSON, those of the top level too (a
  // command not yet known is named "").
  SetErrorMode(CommandOf(app, argv), AskedForJson(argv));
  if (first == "--help" || first == "-h") {
    std::fputs(TopHelp(app).c_str(), stdout);
    return kExitOk;
  }
  if (first == "--version" || first == "-V") {
    // `--version` alone, or with --json; nothing else follows it.
    const bool json = argv.size() == 3 && argv[2] == "--json";
    if (argv.size() > 2 && !json) {
      return UsageError("--version takes only --json, not " + Quoted(argv[2]));
    }
    std::fputs((json ? VersionJson() : VersionText()).c_str(), stdout);
    return kExitOk;
  }
  if (first == "--print-jail") {
    // What the kernel enforces on each command here (cli/jail.h).
    if (argv.size() > 2) return UsageError("--print-jail takes nothing, not " + Quoted(argv[2]));
    std::fputs(DescribeJail().c_str(), stdout);
    return kExitOk;
  }
  if (!first.empty() && first[0] == '-') {
    return UsageError("unknown option " + Quoted(first) + ": a command comes first");
  }
  if (!IsCommand(app, first)) {
    return UsageError(Quoted(first) + " is not a proctape command" + Suggestion(app, first));
  }
  if (first == "help") {
    if (int entered = EnterCommand({"help", {}}); entered != kExitOk) return entered;
    return Help(app, {argv.begin() + 2, argv.end()});
  }
  return std::nullopt;
}

int UsageError(const CLI::App& app, const std::vector<std::string>& argv, const std::string& what) {
  SetErrorMode(CommandOf(app, argv), AskedForJson(argv));
  return UsageError(what);
}

}  // namespace proctape
