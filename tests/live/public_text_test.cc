// SPDX-License-Identifier: Apache-2.0
// What a user reads cites only what a user has (docs/cli/commands.md, "Help":
// no private references). Every command's --help, `proctape --help`,
// `proctape help exit-codes`, the public headers (include/proctape/, include/proctape.h),
// README.md and every page of docs/:
//   - name no design note ("seed 000", "the seed") and no issue number;
//   - cite documents that exist, with the sections they name:
//     `docs/NAME.md`, "Heading" (or 'Heading', as a --help writes it),
//     `docs/format.md` section 7, README "Install", BENCHMARKS.md, "Heading".
// And what a maintainer reads cites only what the repository has: no file
// `git ls-files` lists (comments, CMake, scripts, tests, BENCHMARKS.md)
// cites an issue number or the design note ("issue 4", "seed 000", "the
// seed"); each cites the section of docs/ that states the rule instead.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/child_process.h"
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

// Each citation in `text` (from `where`) of a document that does not exist,
// or of a section it does not have: a document, then what of it is cited:
// "Title", 'Title' or section N. `cited` counts the citations read.
std::vector<std::string> BrokenCitations(const std::string& where, const std::string& text,
                                         std::size_t* cited) {
  static const std::regex citation(
      "(docs/[A-Za-z0-9_/-]+\\.md|(?:[A-Za-z0-9_-]+/)*(?:BENCHMARKS\\.md|README(?:\\.md)?))`?"
      "(?:,?\\s+(?:section\\s+([0-9]+[a-z]?)\\b|\"([^\"]+)\"|'([^']+)'))?");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), citation);
       it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    std::string doc = m[1].str();
    if (doc == "README") doc = "README.md";
    // A folder's README is cited from beside it ("regressions/README.md"
    // in tests/fuzz/) or from the root; a path that is neither is a path
    // the code names (an install tree's, a variable's), not a citation.
    if (doc.rfind("docs/", 0) != 0 && doc.find('/') != std::string::npos) {
      const std::string beside =
          std::filesystem::path(where).parent_path().append(doc).lexically_normal().string();
      if (Exists(Source(beside))) {
        doc = beside;
      } else if (!Exists(Source(doc))) {
        continue;
      }
    }
    ++*cited;
    if (!Exists(Source(doc))) {
      out.push_back(where + " cites " + doc + ", which does not exist");
      continue;
    }
    const std::string title = m[3].matched ? m[3].str() : m[4].str();
    const std::string number = m[2].str();
    if (title.empty() && number.empty()) continue;
    if (!HasSection(doc, title, number)) {
      out.push_back(where + " cites " + m.str() + ": " + doc + " has no such section");
    }
  }
  return out;
}

TEST(PublicText, EveryDocumentAndSectionItCitesExists) {
  std::size_t cited = 0;
  for (const Text& t : PublicTexts()) {
    for (const std::string& b : BrokenCitations(t.where, Unwrapped(t.text), &cited))
      ADD_FAILURE() << b;
  }
  EXPECT_GE(cited, 100u) << "the citations of docs/ were not read";
}

// A citation of what the repository does not hold: an issue number
// ("issue 4", "Issue 13 section 1", "Issue13/", "the issue's"), the design
// note by number or name ("seed 000", "seed-002", "the seed", "the seed's",
// "Seed:", "Seed (step 5)", "Seed step 1", 'Seed, "Problem"'). A fuzz seed,
// an RNG's seed and explore's --seed are none of these.
const std::regex& PrivateCitation() {
  static const std::regex re(
      "\\bissues? ?#?[0-9]+|\\bthe issue's|\\bseed[ -]?[0-9]{3}\\b|\\bthe seed\\b|\\bseed:"
      "|\\bseed(?:, \"[A-Z]| \\((?:step|failure)| step [0-9])",
      std::regex::icase);
  return re;
}

// Citations a file may still hold, each with why: files that are being
// changed elsewhere. Remove an entry once its file is clean.
const std::set<std::pair<std::string, std::string>>& StillAllowed() {
  static const std::set<std::pair<std::string, std::string>> allowed = {};
  return allowed;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Each private citation of `text` (the file `path`), as "path:line: 'match'".
// A citation wrapped across two lines ("issue" at the end of one, "16" at the
// start of the next, after its comment marker) is found on the first.
std::vector<std::string> PrivateCitationsOf(const std::string& path, const std::string& text) {
  static const std::regex comment_lead("^\\s*(?://+|#+|\\*|--|;)?\\s*");
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  std::vector<std::string> found;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string raw_next = i + 1 < lines.size() ? lines[i + 1] : "";
    const std::string lower = Lower(lines[i] + " " + raw_next);
    if (lower.find("issue") == std::string::npos && lower.find("seed") == std::string::npos)
      continue;
    const std::string joined =
        lines[i] + " " +
        std::regex_replace(raw_next, comment_lead, "", std::regex_constants::format_first_only);
    for (auto it = std::sregex_iterator(joined.begin(), joined.end(), PrivateCitation());
         it != std::sregex_iterator(); ++it) {
      if (static_cast<std::size_t>(it->position()) >= lines[i].size()) continue;  // the next line's
      if (StillAllowed().count({path, Lower(it->str())}) > 0) continue;
      found.push_back(path + ":" + std::to_string(i + 1) + ": '" + it->str() + "'");
    }
  }
  return found;
}

TEST(PublicText, PrivateCitationsAreFoundWhereTheyAre) {
  EXPECT_EQ(PrivateCitationsOf("a.cc", "// ok\n// as issue 13, section 1 says\n"),
            std::vector<std::string>{"a.cc:2: 'issue 13'"});
  EXPECT_EQ(PrivateCitationsOf("a.cc", "// the resolver of seed 000 (the\n// seed's bounds)\n"),
            (std::vector<std::string>{"a.cc:1: 'seed 000'", "a.cc:1: 'the seed'"}));
  EXPECT_EQ(PrivateCitationsOf("a.sh", "# as a user runs them (issue\n# 16 §1)\n"),
            std::vector<std::string>{"a.sh:1: 'issue 16'"});
  EXPECT_EQ(
      PrivateCitationsOf("t.cc", "INSTANTIATE_TEST_SUITE_P(Issue13, X,\n// Seed (step 5): argv\n"),
      (std::vector<std::string>{"t.cc:1: 'Issue13'", "t.cc:2: 'Seed (step'"}));
  EXPECT_TRUE(PrivateCitationsOf("f.sh",
                                 "fuzz_seeds . $run/seeds  # the fuzz seed corpora\n"
                                 "std::mt19937_64 rng(seed); // XXH64 seed 0, --seed N\n"
                                 "no issue here; issues are tracked elsewhere\n")
                  .empty());
}

// Every text file the repository tracks: sources, CMake files, scripts,
// tests, BENCHMARKS.md, docs. Binary files and the regression corpus
// (corpus/: recorded host bytes) are not read, nor this file, whose
// patterns name what they forbid.
// Every tracked text file but the corpus and this one, as {path, bytes}.
std::vector<Text> TrackedTexts() {
  namespace fs = std::filesystem;
  const CommandResult listed = RunCommand(
      {"/usr/bin/git", "-c", "safe.directory=*", "-C", PROCTAPE_SOURCE_DIR, "ls-files", "-z"},
      60'000);
  EXPECT_TRUE(listed.started && listed.exit_code == 0)
      << "git ls-files: " << listed.error << listed.err;
  std::vector<Text> out;
  std::size_t start = 0;
  while (start < listed.out.size()) {
    std::size_t end = listed.out.find('\0', start);
    if (end == std::string::npos) end = listed.out.size();
    const std::string path = listed.out.substr(start, end - start);
    start = end + 1;
    if (path.empty() || path.rfind("corpus/", 0) == 0 || path == "tests/live/public_text_test.cc") {
      continue;
    }
    if (!fs::is_regular_file(Source(path))) continue;  // a deleted or a linked path
    std::string text = FileBytes(Source(path));
    if (text.substr(0, 8000).find('\0') != std::string::npos) continue;  // binary
    out.push_back({path, std::move(text)});
  }
  return out;
}

TEST(PublicText, NoTrackedFileCitesAnIssueOrTheDesignNote) {
  if (!std::filesystem::exists(Source(".git"))) {
    GTEST_SKIP() << PROCTAPE_SOURCE_DIR << " is not a git checkout";
  }
  const std::vector<Text> texts = TrackedTexts();
  std::vector<std::string> found;
  for (const Text& t : texts) {
    for (std::string& f : PrivateCitationsOf(t.where, t.text)) found.push_back(std::move(f));
  }
  EXPECT_GE(texts.size(), 300u) << "the tracked files were not read";
  for (const std::string& f : found) {
    ADD_FAILURE() << f << " cites what the repository does not hold: cite the section of docs/ "
                  << "that states the rule (`docs/resolver.md`, \"The eight steps\"), or say "
                  << "the reason in the comment itself";
  }
}

// A maintainer follows a comment's citation as a user follows a doc's: every
// tracked file's citation of a document names one that exists, and a
// section it has. A comment wrapped over lines is read as one line (its
// markers, //, #, *, --, dropped).
TEST(PublicText, EveryDocumentAndSectionATrackedFileCitesExists) {
  if (!std::filesystem::exists(Source(".git"))) {
    GTEST_SKIP() << PROCTAPE_SOURCE_DIR << " is not a git checkout";
  }
  static const std::regex comment_lead("\n\\s*(?://+|#+|\\*|--|;)?\\s*");
  std::size_t cited = 0;
  for (const Text& t : TrackedTexts()) {
    const std::string text = Unwrapped(std::regex_replace(t.text, comment_lead, " "));
    for (const std::string& b : BrokenCitations(t.where, text, &cited)) ADD_FAILURE() << b;
  }
  EXPECT_GE(cited, 500u) << "the citations of the tracked files were not read";
}

}  // namespace
}  // namespace proctape::live
