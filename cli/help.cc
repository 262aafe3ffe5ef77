#include "cli/help.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "cli/errors.h"
#include "cli/exit_codes.h"
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
    {"On a live host", "fingerprint", "record a root's pid, start time and executable, before the turn"},
    {"On a live host", "resolve", "find the host pid of the exact process a sandbox started"},
    {"On a live host", "liveness", "is (pid, start tick) still alive? re-reads its stat only"},
    {"On a live host", "capture", "record bounded /proc evidence of this host into a .ptape"},
    {"Snapshot files", "verify", "check a .ptape whole: intact, or where it is damaged"},
    {"Snapshot files", "show", "what a file holds: host, frames, tape, verdicts, damage"},
    {"Snapshot files", "tree", "one frame's processes as a tree, with their identities"},
    {"Snapshot files", "diff", "what changed between two frames: exits, pid reuse, execs"},
    {"Snapshot files", "explain", "a recorded resolution, attempt by attempt, candidate by candidate"},
    {"Snapshot files", "export", "a file as JSON, a tree as DOT, a frame as a /proc-like directory"},
    {"Snapshot files", "replay", "run the identical resolver against a recording: reproduced?"},
    {"Tests and cleanup", "corpus", "the regression corpus: add, check, list, rm recordings"},
    {"Tests and cleanup", "lab", "stage a namespace-pid race with real processes, and record it"},
    {"Tests and cleanup", "ownership", "plan a verifier's cleanup from two snapshots (signals nothing)"},
    {"Help", "help", "this list; 'help COMMAND' for one; 'help exit-codes'"},
};

const Entry* Find(const std::string& name) {
  for (const Entry& e : kCommands) {
    if (name == e.name) return &e;
  }
  return nullptr;
}

// Levenshtein distance, for "did you mean".
std::size_t Distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string Suggestion(const CLI::App& app, const std::string& word) {
  std::string best;
  std::size_t best_distance = 3;  // at most 2 edits away
  for (const CLI::App* sub : app.get_subcommands({})) {
    std::size_t d = Distance(word, sub->get_name());
    if (d < best_distance) {
      best_distance = d;
      best = sub->get_name();
    }
  }
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
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

bool AskedForJson(const std::vector<std::string>& argv) {
  return std::find(argv.begin() + (argv.empty() ? 0 : 1), argv.end(), "--json") != argv.end();
}

std::size_t Indent(const std::string& line) {
  const std::size_t n = line.find_first_not_of(' ');
  return n == std::string::npos ? line.size() : n;
}

}  // namespace

std::string Reflow(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string out;
  std::size_t column = 0;      // of the output line being filled
  std::size_t hanging = 0;     // where the block's wrapped lines start
  std::size_t start = 0;       // the indent of the block's first line
  bool open = false;           // a block is being filled
  bool words_on_line = false;  // a word was put since the line (or label) began
  auto put = [&](const std::string& w) {
    if (words_on_line && column + 1 + w.size() > width) {
      out += "\n" + std::string(hanging, ' ');
      column = hanging;
      words_on_line = false;
    }
    if (words_on_line) {
      out += ' ';
      ++column;
    }
    out += w;
    column += w.size();
    words_on_line = true;
  };
  auto put_words = [&](const std::string& part) {
    std::istringstream words(part);
    for (std::string w; words >> w;) put(w);
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const std::size_t indent = Indent(line);
    if (indent == line.size()) {  // a blank line ends the block
      out += open ? "\n\n" : "\n";
      open = false;
      continue;
    }
    const bool continues = open && indent == hanging && (indent == 0 || hanging > start);
    if (continues) {
      put_words(line.substr(indent));
      continue;
    }
    if (open) out += "\n";
    open = true;
    start = indent;
    column = indent;
    words_on_line = false;
    hanging = indent;
    if (indent == 0) {
      put_words(line);
      continue;
    }
    // An item: "  json      the whole file" hangs where its text starts,
    // after the label's run of spaces; "  - each attempt: ..." under its
    // next line's deeper indent, or two columns in.
    const std::size_t label_end = line.find("  ", indent);
    const std::size_t text_at =
        label_end == std::string::npos ? std::string::npos : line.find_first_not_of(' ', label_end);
    const std::size_t next = i + 1 < lines.size() ? Indent(lines[i + 1]) : 0;
    const bool deeper = next > indent && next < lines[i + 1].size();
    hanging = text_at != std::string::npos ? text_at : deeper ? next : indent + 2;
    // An item of one line that fits is kept as written (a table's spacing).
    if (line.size() <= width && !(deeper && next == hanging)) {
      out += line + "\n";
      open = false;
      continue;
    }
    out += std::string(indent, ' ');
    if (text_at != std::string::npos) {
      out += line.substr(indent, text_at - indent);
      column = text_at;
      put_words(line.substr(text_at));
      continue;
    }
    put_words(line.substr(indent));
  }
  if (open) out += "\n";
  return out;
}

namespace {

class Formatter : public CLI::Formatter {
 public:
  Formatter() {
    column_width(28);
    label("REQUIRED", "(required)");
  }
  // The description wrapped to fit 80 columns beside the option column.
  std::string make_option_desc(const CLI::Option* opt) const override {
    const std::size_t width = 80 - get_column_width();
    std::string out;
    std::size_t line = 0;
    std::string word;
    auto flush = [&] {
      if (word.empty()) return;
      if (line > 0 && line + 1 + word.size() > width) {
        out += "\n";
        line = 0;
      } else if (line > 0) {
        out += " ";
        ++line;
      }
      out += word;
      line += word.size();
      word.clear();
    };
    for (char c : opt->get_description()) {
      if (c == ' ' || c == '\n') {
        flush();
        if (c == '\n') {
          out += "\n";
          line = 0;
        }
      } else {
        word += c;
      }
    }
    flush();
    return out;
  }
  // " NAME", "=DEFAULT", " ...", " (required)": CLI11's generic type names
  // (TEXT, INT, UINT) become VALUE and N; a set of choices ("TEXT:{a,b}")
  // is shown as "a|b". A positional is named by itself: no type after it.
  std::string make_option_opts(const CLI::Option* opt) const override {
    std::string out;
    if (opt->get_type_size() != 0) {
      std::string type = opt->get_positional() ? "" : opt->get_type_name();
      if (std::size_t brace = type.find(":{"); brace != std::string::npos && type.back() == '}') {
        type = type.substr(brace + 2, type.size() - brace - 3);
        std::replace(type.begin(), type.end(), ',', '|');
      }
      if (type == "TEXT") type = "VALUE";
      if (type == "INT" || type == "UINT" || type == "INT64" || type == "UINT64") type = "N";
      if (!type.empty()) out += " " + type;
      if (!opt->get_default_str().empty()) out += "=" + opt->get_default_str();
      if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
      if (opt->get_required()) out += " (required)";
    }
    return out;
  }
  // A positional in the usage line: "FILE", "FILE...", "FILE [FILE]",
  // "[DIR]" (never CLI11's "FILES(1x)").
  std::string make_option_usage(const CLI::Option* opt) const override {
    const std::string name = opt->get_name(true, false);
    std::string out = name;
    const int min = std::max(opt->get_expected_min(), 1);
    if (opt->get_expected_max() >= CLI::detail::expected_max_vector_size) {
      out += "...";
    } else {
      for (int i = 1; i < min; ++i) out += " " + name;
      for (int i = min; i < opt->get_expected_max(); ++i) out += " [" + name + "]";
    }
    return opt->get_required() ? out : "[" + out + "]";
  }
  // The description, reflowed to 80 columns, then a blank line before "Usage:".
  std::string make_description(const CLI::App* app) const override {
    const std::string desc = app->get_description();
    return desc.empty() ? "" : Reflow(desc, 80) + "\n";
  }
  // A subcommand in its parent's list: its name and the first sentence of
  // its description, wrapped to 80 columns.
  std::string make_subcommand(const CLI::App* sub) const override {
    std::string desc = sub->get_description();
    for (char& c : desc) {
      if (c == '\n') c = ' ';
    }
    if (std::size_t end = desc.find(". "); end != std::string::npos) desc.resize(end + 1);
    std::string out = "  " + sub->get_name();
    out.resize(std::max<std::size_t>(out.size() + 1, get_column_width()), ' ');
    std::size_t column = out.size();
    std::string word;
    std::istringstream words(desc);
    bool first = true;
    while (words >> word) {
      if (!first && column + 1 + word.size() > 80) {
        out += "\n" + std::string(get_column_width(), ' ');
        column = get_column_width();
      } else if (!first) {
        out += " ";
        ++column;
      }
      out += word;
      column += word.size();
      first = false;
    }
    return out + "\n";
  }
};

}  // namespace

std::shared_ptr<CLI::Formatter> MakeFormatter() { return std::make_shared<Formatter>(); }

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
  out +=
      "\nExit status: 0 success, 2 usage error; verdicts, damage and drift have their own\n"
      "('proctape help exit-codes'). Every command takes --help; most take --json.\n"
      "proctape is read-only: it never signals, ptraces or writes to another process.\n";
  return out;
}

std::string VersionText() {
  return std::string("proctape ") + PROCTAPE_VERSION + "\nformat: writes version " +
         std::to_string(kFormatVersion) + ", reads version 1 to " +
         std::to_string(kFormatVersion) + "\n";
}

// `proctape help [TOPIC [SUBCOMMAND]]`, answered before CLI11 parses (a
// command name after `help` would otherwise be taken for that command).
namespace {

int Help(const CLI::App& app, const std::vector<std::string>& args) {
  // `help`, `help --help`, `help help`: the list of commands.
  if (args.empty() || (args.size() == 1 && (args[0] == "--help" || args[0] == "-h" ||
                                            args[0] == "help"))) {
    std::fputs(TopHelp(app).c_str(), stdout);
    return kExitOk;
  }
  const std::string& topic = args[0];
  if (topic == "exit-codes" && args.size() == 1) {
    std::fputs(ExitCodeHelp(), stdout);
    return kExitOk;
  }
  if (!IsCommand(app, topic) || topic == "help") {
    return Fail(kExitUsage, "help: '" + topic + "' is not a command or topic" +
                                Suggestion(app, topic) + " (see 'proctape help')");
  }
  const CLI::App* command = nullptr;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == topic) command = sub;
  }
  if (args.size() > 1) {
    const CLI::App* inner = nullptr;
    for (const CLI::App* sub : command->get_subcommands({})) {
      if (sub->get_name() == args[1]) inner = sub;
    }
    if (inner == nullptr || args.size() > 2) {
      return Fail(kExitUsage, "help: '" + topic + " " + args[1] + "' is not a command" +
                                  " (see 'proctape help " + topic + "')");
    }
    command = inner;
  }
  std::fputs(command->help().c_str(), stdout);
  return kExitOk;
}

}  // namespace

void RegisterHelp(CLI::App& app, int* exit_code) {
  // Registered so that it is listed and grouped; TopLevel() answers it.
  CLI::App* sub = app.add_subcommand("help", "The list of commands, one command's help, or the exit statuses.");
  sub->allow_extras();
  sub->callback([exit_code] { *exit_code = kExitOk; });
}

std::optional<int> TopLevel(const CLI::App& app, const std::vector<std::string>& argv) {
  if (argv.size() < 2) {
    std::fputs(TopHelp(app).c_str(), stderr);
    return kExitUsage;
  }
  const std::string& first = argv[1];
  if (first == "--help" || first == "-h") {
    std::fputs(TopHelp(app).c_str(), stdout);
    return kExitOk;
  }
  if (first == "--version" || first == "-V") {
    std::fputs(VersionText().c_str(), stdout);
    return kExitOk;
  }
  if (!first.empty() && first[0] == '-') {
    return Fail(kExitUsage, "unknown option '" + first + "': a command comes first (see 'proctape --help')");
  }
  if (!IsCommand(app, first)) {
    return Fail(kExitUsage, "'" + first + "' is not a proctape command" + Suggestion(app, first) +
                                " (see 'proctape --help')");
  }
  if (first == "help") return Help(app, {argv.begin() + 2, argv.end()});
  SetErrorMode(CommandOf(app, argv), AskedForJson(argv));
  return std::nullopt;
}

int UsageError(const CLI::App& app, const std::vector<std::string>& argv, const std::string& what) {
  const std::string command = CommandOf(app, argv);
  SetErrorMode(command, AskedForJson(argv));
  if (command.empty()) return Fail(kExitUsage, what + " (see 'proctape --help')");
  return Fail(kExitUsage, command + ": " + what + " (see 'proctape " + command + " --help')");
}

}  // namespace proctape
