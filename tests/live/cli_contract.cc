// SPDX-License-Identifier: Apache-2.0
#include "tests/live/cli_contract.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "tests/live/files.h"

namespace proctape::live {
namespace {

bool StartsWithWord(const std::string& line) {
  return line.size() > 2 && line.compare(0, 2, "  ") == 0 && line[2] != ' ';
}

// The names listed under `section` ("Subcommands:") or, for the top level,
// under every group heading: "  NAME  summary" lines.
std::vector<std::string> ListedNames(const std::string& text, const std::string& section) {
  std::vector<std::string> out;
  bool in_list = section.empty();
  for (const std::string& line : LinesOf(text)) {
    if (!section.empty()) {
      if (line == section) {
        in_list = true;
        continue;
      }
      if (in_list && !line.empty() && line[0] != ' ') in_list = false;
    }
    if (!in_list || !StartsWithWord(line)) continue;
    const std::string name = line.substr(2, line.find(' ', 2) - 2);
    if (name.find_first_not_of("abcdefghijklmnopqrstuvwxyz-") != std::string::npos) continue;
    out.push_back(name);
  }
  return out;
}

}  // namespace

std::string NameOf(const CommandWords& command) {
  std::string out;
  for (const std::string& w : command) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::vector<CommandWords> EveryCommand() {
  std::vector<CommandWords> out;
  const CommandResult top = Proctape({"--help"});
  for (const std::string& name : ListedNames(top.out, "")) {
    out.push_back({name});
    if (name == "help") continue;  // its help is the list above
    for (const std::string& sub : ListedNames(HelpOf({name}).text, "Subcommands:")) {
      out.push_back({name, sub});
    }
  }
  return out;
}

Help HelpOf(const CommandWords& command) {
  std::vector<std::string> args = command;
  args.push_back("--help");
  const CommandResult r = Proctape(args);
  return {r.exit_code, r.out};
}

std::string HelpEntry::Name() const {
  if (positional) return names.empty() ? "" : names.front();
  std::string best;
  for (const std::string& n : names) {
    if (n.compare(0, 2, "--") == 0) best = n;
  }
  return best.empty() && !names.empty() ? names.front() : best;
}

bool HelpEntry::Has(const std::string& name) const {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A further value name in help: upper case ("J"), never a description word.
static bool IsValueWord(const std::string& w) {
  for (char c : w) {
    if (!(std::isupper(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return !w.empty();
}

std::vector<HelpEntry> HelpEntries(const std::string& help) {
  std::vector<HelpEntry> out;
  bool in_section = false;
  for (const std::string& line : LinesOf(help)) {
    if (line == "Positionals:" || line == "Options:") {
      in_section = true;
      continue;
    }
    if (!line.empty() && line[0] != ' ') in_section = false;
    if (!in_section || !StartsWithWord(line)) continue;
    // The names and value end where the description begins: two spaces.
    std::istringstream words(line.substr(2, line.find("  ", 2) - 2));
    HelpEntry e;
    std::string first;
    words >> first;
    e.positional = first[0] != '-';
    if (e.positional) e.value = first;  // named by what it is: FILE, DIR, NAME
    std::istringstream names(first);
    for (std::string n; std::getline(names, n, ',');) e.names.push_back(n);
    for (std::string w; words >> w;) {
      if (w == "(required)") {
        e.required = true;
      } else if (w != "..." && !e.positional && e.value.empty()) {
        e.value = w.substr(0, w.find('='));
      } else if (!e.positional && !e.value.empty() && IsValueWord(w)) {
        // Every value an option takes: "--frames I J" takes "I J" (a
        // description that starts after one space is lower case).
        e.value.push_back(' ');
        e.value.append(w);
      }
    }
    if (!e.Has("--help")) out.push_back(e);
  }
  return out;
}

bool IsIntegerValue(const std::string& value) {
  static const std::set<std::string> names = {"N", "PID", "UID", "TICKS", "MS", "BYTES"};
  return names.count(value) > 0;
}

bool IsPathValue(const std::string& value) {
  return value == "FILE" || value == "DIR" || value == "PATH";
}

std::vector<std::string> LinesOf(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::size_t Columns(const std::string& line) {
  std::size_t columns = 0;
  for (unsigned char c : line) columns += (c & 0xc0) != 0x80 ? 1 : 0;
  return columns;
}

}  // namespace proctape::live
