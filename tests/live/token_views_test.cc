// SPDX-License-Identifier: Apache-2.0
// The token of a recording appears in no byte of any view's output, text or
// --json, for every corpus file: show, tree and diff of every frame, explain
// (also --all), replay, export --format dot and --format proc-dir of every
// frame. The corpus recordings hold their token where views print bytes: the
// request, the kept environ entry, bwrap's argv (the token is an argument of
// the sandbox's shell) and the sleep's environ. A JSON string that is base64
// (a `bytes` field) is decoded and checked too. `export --format json` is the
// lossless output: it keeps the token, as documented.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "format/reader.h"
#include "format/writer.h"
#include "tests/live/corpus_files.h"
#include "tests/live/files.h"

namespace proctape::live {
namespace {

// The tokens a view must not show, found independently of TokenMask: every
// request's token and every kept entry's value.
std::vector<std::string> Tokens(const Snapshot& s) {
  std::vector<std::string> out;
  for (const v1::Resolution& r : s.resolutions) {
    if (r.has_resolve() && !r.resolve().token().empty()) out.push_back(r.resolve().token());
  }
  for (const std::string& entry : s.header.redaction().kept_entries()) {
    if (entry.find('=') != std::string::npos) out.push_back(entry.substr(entry.find('=') + 1));
  }
  return out;
}

bool Base64Decode(const std::string& in, std::string* out) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (in.empty() || in.size() % 4 != 0) return false;
  out->clear();
  unsigned bits = 0;
  int have = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '=') {
      if (i + 2 < in.size()) return false;
      continue;
    }
    int v = value(in[i]);
    if (v < 0) return false;
    bits = (bits << 6) | static_cast<unsigned>(v);
    have += 6;
    if (have >= 8) {
      have -= 8;
      out->push_back(static_cast<char>((bits >> have) & 0xff));
    }
  }
  return true;
}

// Every string literal of a JSON text, unescaped enough to compare (\" and \\).
std::vector<std::string> JsonStrings(const std::string& json) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < json.size(); ++i) {
    if (json[i] != '"') continue;
    std::string s;
    for (++i; i < json.size() && json[i] != '"'; ++i) {
      if (json[i] == '\\' && i + 1 < json.size()) ++i;
      s.push_back(json[i]);
    }
    out.push_back(s);
  }
  return out;
}

// Where `token` shows in `output`: as is, or in a base64 string of JSON.
std::string Leak(const std::string& output, const std::string& token) {
  if (output.find(token) != std::string::npos) return "as is";
  for (const std::string& s : JsonStrings(output)) {
    std::string decoded;
    if (Base64Decode(s, &decoded) && decoded.find(token) != std::string::npos) {
      return "base64 " + s;
    }
  }
  return "";
}

// Every file under `dir`, concatenated.
std::string DirBytes(const std::string& dir) {
  std::string out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out += FileBytes(e.path().string());
  }
  return out;
}

TEST(TokenViewsCliTest, NoViewOfACorpusRecordingPrintsItsToken) {
  const auto files = CorpusFiles();
  ASSERT_GE(files.size(), 24u);
  std::size_t checked = 0;
  for (const auto& [entry, file] : files) {
    Snapshot s;
    ASSERT_TRUE(ReadSnapshot(file, &s).ok()) << entry;
    const std::vector<std::string> tokens = Tokens(s);
    if (tokens.empty()) continue;
    TempDir tmp("token-views");
    std::vector<std::pair<std::string, std::string>> outputs;  // (view, bytes)
    auto run = [&](std::vector<std::string> args) {
      CommandResult r = Proctape(args);
      std::string what;
      for (const std::string& a : args) what += (a == file ? entry : a) + " ";
      EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 20 || r.exit_code == 21)
          << what << Describe(r);
      outputs.emplace_back(what, r.out + r.err);
    };
    for (const char* json : {"", "--json"}) {
      std::vector<std::string> extra;
      if (*json) extra.push_back(json);
      auto with = [&extra](std::vector<std::string> args) {
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
      };
      run(with({"show", file}));
      run(with({"explain", file}));
      run(with({"explain", file, "--all"}));
      run(with({"replay", file}));
      for (std::size_t k = 0; k < s.frames.size(); ++k) {
        run(with({"tree", file, "--frame", std::to_string(k)}));
        if (k + 1 < s.frames.size()) {
          run(with({"diff", file, "--frames", std::to_string(k), std::to_string(k + 1)}));
        }
      }
    }
    for (std::size_t k = 0; k < s.frames.size(); ++k) {
      run({"export", file, "--format", "dot", "--frame", std::to_string(k)});
      const std::string dir = tmp.File("frame" + std::to_string(k));
      CommandResult r = Proctape(
          {"export", file, "--format", "proc-dir", "--frame", std::to_string(k), "--out", dir});
      ASSERT_EQ(r.exit_code, 0) << entry << ": " << Describe(r);
      outputs.emplace_back("export " + entry + " --format proc-dir --frame " + std::to_string(k),
                           r.out + DirBytes(dir));
    }
    for (const auto& [view, bytes] : outputs) {
      for (const std::string& token : tokens) {
        const std::string leak = Leak(bytes, token);
        EXPECT_EQ(leak, "") << view << "shows the token " << token << " (" << leak << ")";
      }
    }
    // The lossless export keeps it, as its help says.
    CommandResult json = Proctape({"export", file, "--format", "json"});
    ASSERT_EQ(json.exit_code, 0) << Describe(json);
    EXPECT_NE(Leak(json.out, tokens[0]), "") << entry;
    ++checked;
  }
  EXPECT_GE(checked, 24u);
}

// A recorded verdict quotes the bytes that decided it: a TOKEN_MISMATCH
// quotes the environ that holds the token twice. replay prints the recorded
// verdict (--json: its evidence); a what-if --token is masked too.
TEST(TokenViewsCliTest, ReplayNeverPrintsTheTokenAVerdictQuotes) {
  TempDir tmp("token-replay");
  const std::string token = "5e1f0a9c7b3d2e4f6a8b0c1d2e3f4a5b";
  const std::string path = tmp.File("mismatch.ptape");
  Failure failure;
  auto writer = SnapshotWriter::Create(path, SnapshotWriter::Options{}, &failure);
  ASSERT_TRUE(writer) << failure.message;
  v1::Header h;
  h.set_format_version(1);
  h.set_tool_version("test");
  h.add_command_line("proctape");
  h.add_command_line("resolve");
  h.add_command_line("--token=" + token);
  h.mutable_redaction()->set_environ(v1::RedactionPolicy::ENVIRON_REDACTED);
  ASSERT_TRUE(writer->WriteHeader(h));
  v1::Resolution r;
  r.mutable_resolve()->set_root_pid(40);
  r.mutable_resolve()->set_root_start_ticks(100);
  r.mutable_resolve()->set_token(token);
  r.mutable_resolve()->set_token_var("PROCTAPE_TOKEN");
  r.mutable_verdict()->set_status(v1::Verdict::TOKEN_MISMATCH);
  r.mutable_verdict()->set_subject_pid(41);
  r.mutable_verdict()->set_file(v1::PROC_FILE_ENVIRON);
  r.mutable_verdict()->set_evidence("PROCTAPE_TOKEN=" + token + std::string(1, '\0') +
                                    "PROCTAPE_TOKEN=" + token + std::string(1, '\0'));
  ASSERT_TRUE(writer->WriteResolution(r));
  ASSERT_TRUE(writer->Finish(v1::Footer{}));
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"replay", path},
           {"replay", path, "--json"},
           {"show", path},
           {"show", path, "--json"},
           {"explain", path},
           {"explain", path, "--json"},
           {"replay", path, "--json", "--token", "what-if-token-value"}}) {
    CommandResult out = Proctape(args);
    for (const std::string& t : {token, std::string("what-if-token-value")}) {
      EXPECT_EQ(Leak(out.out + out.err, t), "")
          << args[0] << " " << args.back() << ": " << Describe(out);
    }
  }
}

// The lab prints the checks it recorded (--json): their token by its length.
TEST(TokenViewsCliTest, TheLabsReportNeverPrintsItsToken) {
  if (!SandboxUnavailable(SandboxKind::kUnshare).empty()) GTEST_SKIP() << "no unshare sandbox";
  TempDir tmp("token-lab");
  const std::string path = tmp.File("plain.ptape");
  CommandResult r = Proctape({"lab", "plain", "--sandbox", "unshare", "--record", path, "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Snapshot s;
  ASSERT_TRUE(ReadSnapshot(path, &s).ok());
  const std::vector<std::string> tokens = Tokens(s);
  ASSERT_FALSE(tokens.empty());
  for (const std::string& token : tokens) {
    EXPECT_EQ(Leak(r.out + r.err, token), "") << Describe(r);
  }
}

}  // namespace
}  // namespace proctape::live
