// SPDX-License-Identifier: Apache-2.0
// hostile_file: writes the hostile shapes of tests/hostile/README.md.
//
//   hostile_file --list                      each shape: name, its defaults, what it stresses
//   hostile_file SHAPE OUT [KEY=VALUE...] [--corpus DIR] [--pad BYTES]
//       writes OUT; prints what the harness needs (token=, pid=,
//       resolutions=, bytes=);
//       --corpus DIR also makes DIR a corpus of that one file (its MANIFEST
//       expects the recorded verdicts)
//   hostile_file --cost FILE...  what reading each FILE whole charges the
//       reader's budget (docs/format.md section 7): "FILE bytes=B
//       materialized=M per-byte=M/B", or the error that stopped it
//   hostile_file --find-token TOKEN FILE...  each FILE holding a 12-character
//       piece of TOKEN (text, hex, base64): "FILE: FORM"; exit 1 if any
//   hostile_file --token-patterns TOKEN  the fixed strings, one a line, a
//       case-folded search for which finds every such piece (run_all.sh's
//       `grep -aiF -f`); none when TOKEN is under 12 characters
//
// Exit status: 0, 1 a piece of the token found or a file not written, 2 usage.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "corpus/expect.h"
#include "corpus/manifest.h"
#include "corpus/sha256.h"
#include "format/snapshot_stream.h"
#include "tests/hostile/shapes.h"
#include "tests/hostile/token_search.h"

namespace {

using namespace proctape;
using namespace proctape::hostile;

int Usage(const std::string& why) {
  std::fprintf(stderr,
               "hostile_file: %s\nusage: hostile_file --list\n"
               "       hostile_file SHAPE OUT [KEY=VALUE...] [--corpus DIR] [--pad BYTES]\n"
               "       hostile_file --find-token TOKEN FILE...\n"
               "       hostile_file --token-patterns TOKEN\n",
               why.c_str());
  return 2;
}

int List() {
  for (const Shape& s : AllShapes()) {
    std::printf("%s\t%s\t%s\n", s.name.c_str(), s.defaults.c_str(), s.stresses.c_str());
  }
  return 0;
}

int FindTokenIn(const std::string& token, const std::vector<std::string>& files) {
  int found = 0;
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (const std::string what = FindTokenPiece(bytes.str(), token); !what.empty()) {
      std::printf("%s: %s\n", f.c_str(), what.c_str());
      found = 1;
    }
  }
  return found;
}

// DIR/<sha>.ptape and DIR/MANIFEST: one entry, expecting each recorded
// verdict (NO_MATCH when the file records none, or a verdict no expect line
// can say: an entry must say one).
bool WriteCorpus(const Shape& shape, const Built& built, const std::string& dir,
                 std::string* error) {
  std::filesystem::create_directories(dir);
  ManifestEntry e;
  e.name = shape.name;
  e.sha256 = Sha256Hex(built.file.bytes());
  e.file = CorpusFileName(e.sha256);
  for (const v1::Resolution& r : built.file.outcomes()) {
    std::string expect =
        r.has_liveness_verdict() ? ExpectText(r.liveness_verdict()) : ExpectText(r.verdict());
    // A status no expect line can name (an edge value) is expected as another:
    // the entry drifts, but the check still reads and replays the file.
    e.expects.push_back(ExpectSyntaxError(expect).empty() ? expect : "NO_MATCH");
  }
  if (e.expects.empty()) e.expects.push_back("NO_MATCH");
  e.shows = shape.stresses + (built.manifest_text.empty() ? "" : "; " + built.manifest_text);
  e.kernel = "hostile";
  e.captured = "2026-12-01T00:00:00Z";
  e.scenario = "hostile_file " + shape.name + " " + built.manifest_text;
  Manifest m;
  m.entries.push_back(e);
  if (!built.file.WriteTo(dir + "/" + e.file, error)) return false;
  std::ofstream(dir + "/" + kManifestName) << FormatManifest(m);
  return true;
}

int Write(const std::vector<std::string>& args) {
  const Shape* shape = FindShape(args[0]);
  if (shape == nullptr) return Usage("no shape '" + args[0] + "' (--list)");
  std::vector<std::string> given;
  std::string corpus;
  for (std::size_t i = 2; i < args.size(); ++i) {
    if (args[i] == "--corpus" && i + 1 < args.size()) {
      corpus = args[++i];
    } else if (args[i] == "--pad" && i + 1 < args.size()) {
      FileBuilder::SetHeaderPad(std::stoull(args[++i]));
    } else {
      given.push_back(args[i]);
    }
  }
  Params params;
  std::string error;
  if (!params.Parse(shape->defaults, given, &error)) return Usage(error);
  Built built;
  try {
    shape->build(params, &built);
  } catch (const std::exception& e) {
    return Usage(shape->name + ": " + e.what());
  }
  if (!built.file.WriteTo(args[1], &error) ||
      (!corpus.empty() && !WriteCorpus(*shape, built, corpus, &error))) {
    std::fprintf(stderr, "hostile_file: %s\n", error.c_str());
    return 1;
  }
  std::printf("token=%s\npid=%lld\nresolutions=%zu\nbytes=%zu\n", built.token.c_str(),
              static_cast<long long>(built.pid), built.file.outcomes().size(),
              built.file.bytes().size());
  return 0;
}

// --cost: each FILE streamed whole, as `show` reads it (same_as resolved).
int Cost(const std::vector<std::string>& files) {
  int status = 0;
  for (const std::string& file : files) {
    FormatError error;
    std::unique_ptr<SnapshotStream> stream = SnapshotStream::Open(file, &error);
    while (stream && stream->Next() == SnapshotStream::Result::kItem) {
    }
    if (stream) error = stream->error();
    if (!error.ok()) {
      std::printf("%s error=%s\n", file.c_str(), error.message.c_str());
      status = 1;
      continue;
    }
    const double bytes = static_cast<double>(stream->bytes());
    std::printf("%s bytes=%llu materialized=%llu per-byte=%.1f\n", file.c_str(),
                static_cast<unsigned long long>(stream->bytes()),
                static_cast<unsigned long long>(stream->materialized()),
                static_cast<double>(stream->materialized()) / bytes);
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 1 && args[0] == "--list") return List();
  if (args.size() >= 3 && args[0] == "--find-token") {
    return FindTokenIn(args[1], std::vector<std::string>(args.begin() + 2, args.end()));
  }
  if (args.size() == 2 && args[0] == "--token-patterns") {
    for (const std::string& p : TokenPatterns(args[1])) std::printf("%s\n", p.c_str());
    return 0;
  }
  if (args.size() >= 2 && args[0] == "--cost") {
    return Cost(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  if (args.size() >= 2 && args[0].rfind("--", 0) != 0) return Write(args);
  return Usage(args.empty() ? "no shape" : "bad arguments");
}
