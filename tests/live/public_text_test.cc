// SPDX-License-Identifier: Apache-2.0
// What a user reads cites only what a user has (docs/cli/commands.md, "Help":
// no private references). Every command's --help, `proctape --help`,
// `proctape help exit-codes`, the public headers (include/proctape/, include/proctape.h),
// README.md and every page of docs/:
//   - name no design note ("seed 000", "the seed") and no issue number;
//   - cite documents that exist, with the sections they name:
//     `docs/NAME.md`, "Heading" (or 'Heading', as a --help writes it),
//     `docs/format.md` section 7, README "Install", BENCHMARKS.md, "Heading".
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/cli_contract.h"
#include "tests/live/files.h"

namespace proctape::live {
namespace {

struct Text {
  std::string where;  // "README.md", "proctape resolve --help"
  std::string text;
};

std::string Source(const std::string& relative) {
  return std::string(PROCTAPE_SOURCE_DIR) + "/" + relative;
}

// Every text a user is given: the binary's help and the shipped documents.
std::vector<Text> PublicTexts() {
  std::vector<Text> out;
  out.push_back({"proctape --help", Proctape({"--help"}).out});
  out.push_back({"proctape help exit-codes", Proctape({"help", "exit-codes"}).out});
  for (const CommandWords& command : EveryCommand()) {
    out.push_back({"proctape " + NameOf(command) + " --help", HelpOf(command).text});
  }
  namespace fs = std::filesystem;
  std::vector<std::string> files = {"README.md"};
  for (const auto& e : fs::recursive_directory_iterator(Source("docs"))) {
    if (e.path().extension() == ".md") {
      files.push_back(fs::relative(e.path(), PROCTAPE_SOURCE_DIR).string());
    }
  }
  for (const auto& e : fs::directory_iterator(Source("include/proctape"))) {
    files.push_back(fs::relative(e.path(), PROCTAPE_SOURCE_DIR).string());
  }
  files.push_back("include/proctape.h");  // the C ABI's header
  for (const std::string& f : files) out.push_back({f, FileBytes(Source(f))});
  return out;
}

// Runs of white space as one space (a help or a paragraph wraps a title).
std::string Unwrapped(const std::string& text) {
  return std::regex_replace(text, std::regex("\\s+"), " ");
}

// The headings of a markdown page, outside its fenced code blocks, each as
// one line without backticks.
std::vector<std::string> Headings(const std::string& markdown) {
  std::vector<std::string> out;
  bool fenced = false;
  for (const std::string& line : LinesOf(markdown)) {
    if (line.rfind("```", 0) == 0) fenced = !fenced;
    if (fenced) continue;
    std::smatch m;
    if (std::regex_match(line, m, std::regex("#+ +(.*)"))) {
      out.push_back(std::regex_replace(m[1].str(), std::regex("`"), ""));
    }
  }
  return out;
}

// Whether `doc` (a path of the source tree) has the section cited: a
// heading that is `title` or begins with it (after its number: "12.
// Fingerprint files"), or whose number is `number`.
bool HasSection(const std::string& doc, const std::string& title, const std::string& number) {
  const std::regex numbered("^[0-9]+[a-z]?\\. ");
  for (const std::string& h : Headings(FileBytes(Source(doc)))) {
    const std::string words = std::regex_replace(h, numbered, "");
    if (!title.empty() && (h.rfind(title, 0) == 0 || words.rfind(title, 0) == 0)) return true;
    if (!number.empty() && (h.rfind(number + ".", 0) == 0 || h.rfind(number + " ", 0) == 0)) {
      return true;
    }
  }
  return false;
}

TEST(PublicText, NamesNoDesignNoteAndNoIssueNumber) {
  const std::regex private_reference(
      "\\bseed[ -]?[0-9]{3}\\b|\\bthe seed\\b|\\bseed's\\b|\\bseed:|\\bissues? [0-9]+",
      std::regex::icase);
  for (const Text& t : PublicTexts()) {
    ASSERT_FALSE(t.text.empty()) << t.where << " could not be read";
    const std::string text = Unwrapped(t.text);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), private_reference);
         it != std::sregex_iterator(); ++it) {
      const std::size_t at = static_cast<std::size_t>(it->position());
      ADD_FAILURE() << t.where << " says '" << it->str() << "', which a user does not have: "
                    << "cite the section of docs/ that states the rule\n  ..."
                    << text.substr(at < 60 ? 0 : at - 60, 140) << "...";
    }
  }
}

TEST(PublicText, EveryDocumentAndSectionItCitesExists) {
  // A document, then what of it is cited: "Title", 'Title' or section N.
  const std::regex citation(
      "(docs/[A-Za-z0-9_/-]+\\.md|BENCHMARKS\\.md|README(?:\\.md)?)`?"
      "(?:,?\\s+(?:section\\s+([0-9]+[a-z]?)\\b|\"([^\"]+)\"|'([^']+)'))?");
  std::size_t cited = 0;
  for (const Text& t : PublicTexts()) {
    const std::string text = Unwrapped(t.text);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), citation);
         it != std::sregex_iterator(); ++it) {
      const std::smatch& m = *it;
      std::string doc = m[1].str();
      if (doc == "README") doc = "README.md";
      ++cited;
      if (!Exists(Source(doc))) {
        ADD_FAILURE() << t.where << " cites " << doc << ", which does not exist";
        continue;
      }
      const std::string title = m[3].matched ? m[3].str() : m[4].str();
      const std::string number = m[2].str();
      if (title.empty() && number.empty()) continue;
      EXPECT_TRUE(HasSection(doc, title, number))
          << t.where << " cites " << m.str() << ": " << doc << " has no such section";
    }
  }
  EXPECT_GE(cited, 100u) << "the citations of docs/ were not read";
}

}  // namespace
}  // namespace proctape::live
