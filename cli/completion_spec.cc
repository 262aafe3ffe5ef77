// SPDX-License-Identifier: Apache-2.0
#include "cli/completion_spec.h"

#include <string>

#include "cli/help.h"

namespace proctape {
namespace {

// The KIND of a value (cli/completion_spec.h), from the name help shows.
std::string KindOf(const CLI::Option* opt) {
  if (opt->get_expected_max() == 0) return "flag";  // takes no value
  const std::string type =
      opt->get_positional() ? opt->get_name(true, false) : opt->get_type_name();
  if (std::size_t brace = type.find(":{"); brace != std::string::npos && type.back() == '}') {
    return "choice:" + type.substr(brace + 2, type.size() - brace - 3);
  }
  if (type == "FILE") return "file";
  if (type == "DIR") return "dir";
  if (type == "PATH") return "path";
  return "value";
}

// The first sentence of a description, on one line (as a parent's list of
// subcommands shows it: cli/help_format.cc).
std::string FirstSentence(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\t') c = ' ';
  }
  if (std::size_t end = text.find(". "); end != std::string::npos) text.resize(end);
  while (!text.empty() && (text.back() == '.' || text.back() == ' ')) text.pop_back();
  return text;
}

void Describe(const CLI::App& command, const std::string& path, std::string* out) {
  *out += "command\t" + path + "\n";
  std::string summary = CommandSummary(path);
  if (summary.empty()) summary = FirstSentence(command.get_description());
  *out += "summary\t" + path + "\t" + summary + "\n";
  for (const CLI::Option* opt : command.get_options()) {
    if (opt->get_group().empty()) continue;  // hidden
    if (opt->get_positional()) {
      *out += "positional\t" + path + "\t" + KindOf(opt) + "\n";
      continue;
    }
    for (const std::string& name : opt->get_lnames()) {
      *out += "option\t" + path + "\t--" + name + "\t" + KindOf(opt) + "\n";
    }
    for (const std::string& name : opt->get_snames()) {
      *out += "option\t" + path + "\t-" + name + "\t" + KindOf(opt) + "\n";
    }
  }
  // `help` is answered before CLI11 parses (cli/help.h): its argument is a
  // command's name.
  if (path == "help") *out += "positional\thelp\tcommand\n";
  for (const CLI::App* sub : command.get_subcommands({})) {
    Describe(*sub, path + " " + sub->get_name(), out);
  }
}

}  // namespace

std::string CompletionSpec(const CLI::App& app) {
  std::string out;
  for (const CLI::App* sub : app.get_subcommands({})) Describe(*sub, sub->get_name(), &out);
  return out;
}

}  // namespace proctape
