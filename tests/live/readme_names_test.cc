// SPDX-License-Identifier: Apache-2.0
// README.md names only what the binary has. readme_test.cc runs its ```sh
// blocks; this checks what no run reaches: the opening paragraph names every
// command `proctape --help` lists; every `proctape COMMAND ...` README shows,
// in a block (its comments too) or in running text, names a command of
// `proctape help --completion-spec` with options that command takes; and
// every `lab SCENARIO` README or docs/ names is one of `proctape lab --list`.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/cli_contract.h"
#include "tests/live/files.h"
#include "tests/live/readme_examples.h"

namespace proctape::live {
namespace {

std::string Source(const std::string& relative) {
  return std::string(PROCTAPE_SOURCE_DIR) + "/" + relative;
}

// A piece of a markdown page that is code: a line of a fenced block, or an
// inline `span` of its running text (a span may wrap: its newlines are
// spaces).
struct Code {
  int line = 0;
  std::string text;
};

std::vector<Code> CodeOf(const std::string& markdown) {
  std::vector<Code> out;
  std::string prose;             // the running text, newlines kept
  std::vector<int> prose_lines;  // the line of each byte of `prose`
  bool fenced = false;
  int n = 0;
  for (const std::string& line : LinesOf(markdown)) {
    ++n;
    if (line.compare(std::min(line.find_first_not_of(' '), line.size()), 3, "```") == 0) {
      fenced = !fenced;
      continue;
    }
    if (fenced) {
      out.push_back({n, line});
      continue;
    }
    prose += line + "\n";
    prose_lines.resize(prose.size(), n);
  }
  for (std::size_t at = prose.find('`'); at != std::string::npos; at = prose.find('`', at + 1)) {
    const std::size_t end = prose.find('`', at + 1);
    if (end == std::string::npos) break;
    std::string span = prose.substr(at + 1, end - at - 1);
    for (char& c : span) c = c == '\n' ? ' ' : c;
    out.push_back({prose_lines[at], span});
    at = end;
  }
  return out;
}

// The binary's commands ("corpus add" among them) and each one's options.
struct CommandLine {
  std::map<std::string, std::set<std::string>> options;  // command -> its options
  bool Has(const std::string& command) const { return options.count(command) > 0; }
};

CommandLine TheCommandLine() {
  const CommandResult spec = Proctape({"help", "--completion-spec"});
  EXPECT_EQ(spec.exit_code, 0) << Describe(spec);
  CommandLine out;
  std::istringstream in(spec.out);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, '\t');) f.push_back(field);
    if (f.size() >= 2 && f[0] == "command") out.options[f[1]];
    if (f.size() >= 3 && f[0] == "option") out.options[f[1]].insert(f[2]);
  }
  return out;
}

std::set<std::string> Scenarios() {
  const CommandResult list = Proctape({"lab", "--list"});
  EXPECT_EQ(list.exit_code, 0) << Describe(list);
  std::set<std::string> out;
  for (const std::string& line : LinesOf(list.out)) {
    if (!line.empty() && line[0] != ' ') out.insert(line.substr(0, line.find(' ')));
  }
  return out;
}

TEST(ReadmeNames, TheOpeningParagraphNamesEveryCommand) {
  const std::string readme = FileBytes(Source("README.md"));
  const std::string opening = readme.substr(0, readme.find("\n## "));
  for (const CommandWords& command : EveryCommand()) {
    if (command.size() != 1 || command[0] == "help") continue;
    EXPECT_NE(opening.find("`" + command[0] + "`"), std::string::npos)
        << "README.md's opening paragraph does not name `" << command[0]
        << "`, which 'proctape --help' lists";
  }
}

TEST(ReadmeNames, EveryCommandItShowsIsTheBinarysWithItsOptions) {
  const CommandLine cli = TheCommandLine();
  ASSERT_GE(cli.options.size(), 19u) << "the completion spec was not read";
  // What the top level takes before any command (cli/help.cc).
  const std::set<std::string> top = {"--help", "-h", "--version", "-V", "--print-jail", "help"};
  const std::regex invocation(
      "(?:^|[\\s('\"$])(?:build/cli/)?proctape ([-A-Za-z][-a-z]*)([^|;&#)]*)");
  std::size_t checked = 0;
  for (const Code& code : CodeOf(FileBytes(Source("README.md")))) {
    // A YAML step's name is prose ("Upload the proctape evidence").
    if (std::regex_search(code.text, std::regex("^\\s*-?\\s*name:"))) continue;
    for (auto it = std::sregex_iterator(code.text.begin(), code.text.end(), invocation);
         it != std::sregex_iterator(); ++it) {
      const std::string where = "README.md line " + std::to_string(code.line) + ": " + code.text;
      std::string command = (*it)[1].str();
      std::vector<std::string> rest = Words((*it)[2].str());
      ++checked;
      if (top.count(command) > 0) continue;
      if (!cli.Has(command)) {
        ADD_FAILURE() << where << "\n'proctape " << command << "' is not a command of the binary";
        continue;
      }
      if (!rest.empty() && cli.Has(command + " " + rest[0])) {
        command += " " + rest[0];
        rest.erase(rest.begin());
      }
      for (const std::string& word : rest) {
        std::smatch option;
        if (!std::regex_match(word, option, std::regex("(--?[A-Za-z][-a-z]*)(=.*|[,.'\"`]*)"))) {
          continue;
        }
        EXPECT_EQ(cli.options.at(command).count(option[1].str()), 1u)
            << where << "\n'proctape " << command << "' takes no option " << option[1].str();
      }
    }
  }
  EXPECT_GE(checked, 50u) << "README.md's commands were not read";
}

TEST(ReadmeNames, EveryLabScenarioNamedIsOneTheLabHas) {
  const std::set<std::string> scenarios = Scenarios();
  ASSERT_GE(scenarios.size(), 10u) << "'proctape lab --list' was not read";
  std::vector<std::string> pages = {"README.md"};
  for (const auto& e : std::filesystem::recursive_directory_iterator(Source("docs"))) {
    if (e.path().extension() == ".md") {
      pages.push_back(std::filesystem::relative(e.path(), PROCTAPE_SOURCE_DIR).string());
    }
  }
  const std::regex lab("(?:proctape |['`])lab ([a-z][-a-z]*)");
  for (const std::string& page : pages) {
    for (const Code& code : CodeOf(FileBytes(Source(page)))) {
      for (auto it = std::sregex_iterator(code.text.begin(), code.text.end(), lab);
           it != std::sregex_iterator(); ++it) {
        EXPECT_EQ(scenarios.count((*it)[1].str()), 1u)
            << page << " line " << code.line << ": " << code.text << "\n'lab " << (*it)[1].str()
            << "' is no scenario of 'proctape lab --list'";
      }
    }
  }
}

}  // namespace
}  // namespace proctape::live
