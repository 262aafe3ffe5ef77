// SPDX-License-Identifier: Apache-2.0
// No piece of a recording's token in any output (docs/security.md "The token
// in outputs"): every read command, run by the binary on every corpus
// recording and on the shapes built to split the token (a comm of its first
// 15 characters, an argv cut across it, environ values and a MANIFEST holding
// pieces, a file named with one), has its standard output, its standard error
// and every file it writes searched for a 12-character piece of each token of
// the file, as text, hex and base64 (token_search.h). `export --format json`
// and minimize's recording are lossless by design (docs/export.md): not
// searched.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "format/reader.h"
#include "tests/hostile/token_search.h"

namespace proctape::hostile {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string Quote(const std::string& word) {
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out.append("'\\''");
    } else {
      out.push_back(c);
    }
  }
  out.push_back('\'');
  return out;
}

// The tokens a view must not show, found without TokenMask: every request's
// token, every kept entry's value, `--token` on the header's command line.
std::vector<std::string> TokensOf(const std::string& path) {
  Snapshot s;
  ReadSnapshot(path, &s);  // a damaged file: the tokens read before the damage
  std::vector<std::string> out;
  for (const v1::Resolution& r : s.resolutions) {
    if (r.has_resolve()) out.push_back(r.resolve().token());
  }
  for (const std::string& entry : s.header.redaction().kept_entries()) {
    if (entry.find('=') != std::string::npos) out.push_back(entry.substr(entry.find('=') + 1));
  }
  const auto& args = s.header.command_line();
  for (int i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--token") out.push_back(args[i + 1]);
  }
  return out;
}

class Scratch {
 public:
  Scratch() {
    std::string t = (fs::temp_directory_path() / "proctape-token-pieces-XXXXXX").string();
    path_ = ::mkdtemp(t.data()) == nullptr ? "" : t;
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs `proctape ARGS` (OUT is the directory its outputs go to, emptied
// first), and says which of its outputs holds a piece of which token.
std::string Leaks(const std::vector<std::string>& args, const std::string& out,
                  const std::vector<std::string>& tokens) {
  std::error_code ec;
  fs::remove_all(out, ec);
  fs::create_directories(out);
  std::string command = std::string(PROCTAPE_BINARY);
  for (const std::string& a : args) {
    command.push_back(' ');
    command.append(Quote(a));
  }
  command.append(" </dev/null >").append(Quote(out + "/.stdout"));
  command.append(" 2>").append(Quote(out + "/.stderr"));
  const int status = std::system(command.c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) >= 128) return command + ": ended by a signal";
  std::string found;
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    if (!e.is_regular_file() || e.path().extension() == ".json" ||
        e.path().filename() == "x.min.ptape") {
      continue;
    }
    const std::string bytes = Slurp(e.path());
    for (const std::string& token : tokens) {
      const std::string piece = FindTokenPiece(bytes, token);
      if (!piece.empty()) found += "\n  " + e.path().filename().string() + ": " + piece;
    }
  }
  return found.empty() ? "" : command + found;
}

// Every read command on `file` (a recording or not), its outputs in `out`.
std::vector<std::vector<std::string>> ReadCommands(const std::string& file,
                                                   const std::string& out) {
  return {{"verify", file},
          {"verify", file, "--json"},
          {"show", file},
          {"show", file, "--json"},
          {"tree", file},
          {"tree", file, "--json"},
          {"diff", file},
          {"diff", file, "--json"},
          {"replay", file},
          {"replay", file, "--json"},
          {"replay", file, "--model", "frames"},
          {"explain", file, "--all"},
          {"explain", file, "--json"},
          {"export", file, "--format", "dot", "-o", out + "/x.dot"},
          {"export", file, "--format", "proc-dir", "-o", out + "/x.proc-dir"},
          {"export", file, "--format", "sqlite", "-o", out + "/x.sqlite"},
          {"export", file, "--format", "csv", "-o", out + "/x.csv"},
          {"export", file, "--format", "json", "-o", out + "/x.json"},  // its report only
          {"sql", file, "-c", "SELECT * FROM processes", "-c", "SELECT * FROM resolutions", "-c",
           "SELECT * FROM files"},
          {"sql", file, "--json", "-c", "SELECT * FROM processes"},
          {"ownership", "--baseline", file, "--current", file, "--uid", "0", "--cgroup", "/",
           "--self", "1"},
          {"minimize", file, "-o", out + "/x.min.ptape"}};
}

TEST(TokenPieces, NoOutputOfAnyReadCommandOnACorpusRecordingHoldsAPieceOfItsToken) {
  Scratch scratch;
  ASSERT_FALSE(scratch.path().empty());
  const std::string corpus = std::string(PROCTAPE_SOURCE_DIR) + "/corpus";
  const std::string out = scratch.path() + "/out";
  std::vector<std::string> all;
  int files = 0;
  for (const auto& e : fs::directory_iterator(corpus)) {
    if (e.path().extension() != ".ptape") continue;
    const std::string file = e.path().string();
    const std::vector<std::string> tokens = TokensOf(file);
    all.insert(all.end(), tokens.begin(), tokens.end());
    ++files;
    for (const auto& args : ReadCommands(file, out)) EXPECT_EQ(Leaks(args, out, tokens), "");
  }
  ASSERT_GT(files, 0) << corpus;
  EXPECT_EQ(Leaks({"corpus", "list", corpus}, out, all), "");
  EXPECT_EQ(Leaks({"corpus", "list", corpus, "--json"}, out, all), "");
  EXPECT_EQ(Leaks({"corpus", "check", corpus}, out, all), "");
}

class TokenShape : public ::testing::TestWithParam<std::string> {};

// The shape built by the generator with its corpus; token-environ's file is
// named with a piece of the token, as run_all.sh names it.
TEST_P(TokenShape, NoOutputOfAnyReadCommandHoldsAPieceOfTheToken) {
  Scratch scratch;
  ASSERT_FALSE(scratch.path().empty());
  const std::string dir = scratch.path();
  const std::string generated = dir + "/file.ptape";
  const std::string make = std::string(HOSTILE_FILE_BINARY) + " " + GetParam() + " " +
                           Quote(generated) + " --corpus " + Quote(dir + "/corpus") + " >" +
                           Quote(dir + "/info");
  ASSERT_EQ(std::system(make.c_str()), 0) << make;
  const std::vector<std::string> tokens = TokensOf(generated);
  ASSERT_FALSE(tokens.empty());
  std::string file = generated;
  if (GetParam() == "token-environ") {
    file = dir + "/" + tokens[0].substr(0, 16) + ".ptape";
    fs::rename(generated, file);
  }
  const std::string out = dir + "/out";
  for (const auto& args : ReadCommands(file, out)) EXPECT_EQ(Leaks(args, out, tokens), "");
  EXPECT_EQ(Leaks({"explore", file, "--depth", "1", "--out", out}, out, tokens), "");
  EXPECT_EQ(Leaks({"corpus", "list", dir + "/corpus"}, out, tokens), "");
  EXPECT_EQ(Leaks({"corpus", "list", dir + "/corpus", "--json"}, out, tokens), "");
  EXPECT_EQ(Leaks({"corpus", "check", dir + "/corpus"}, out, tokens), "");
}

INSTANTIATE_TEST_SUITE_P(Hostile, TokenShape,
                         ::testing::Values("token-comm", "token-argv-4096", "token-environ"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string n = p.param;
                           for (char& c : n) c = c == '-' ? '_' : c;
                           return n;
                         });

}  // namespace
}  // namespace proctape::hostile
