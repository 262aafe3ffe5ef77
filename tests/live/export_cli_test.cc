// `proctape export` and `proctape capture --proc-root` as a user runs them:
// --help, golden outputs (tests/golden/export/; PROCTAPE_UPDATE_GOLDEN=1
// rewrites them) on corpus entries and on a hand-made file of hostile names,
// refusals and their exit statuses, and the round trip export ->
// capture --proc-root -> export on every frame of the corpus and on a fresh
// capture of this host: the two directories are identical byte for byte and
// the re-captured records equal the recorded ones.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "replay/token_mask.h"
#include "corpus/manifest.h"
#include "corpus/sha256.h"
#include "format/reader.h"
#include "format/writer.h"
#include "proto/convert.h"
#include "tests/live/files.h"

#include <google/protobuf/util/json_util.h>

namespace proctape::live {
namespace {

using namespace std::string_literals;

const std::string kSource = PROCTAPE_SOURCE_DIR;


// Compares `actual` with tests/golden/export/NAME byte for byte;
// PROCTAPE_UPDATE_GOLDEN=1 rewrites the file instead.
void ExpectGolden(const std::string& name, const std::string& actual) {
  const std::string path = kSource + "/tests/golden/export/" + name;
  const char* update = std::getenv("PROCTAPE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::filesystem::create_directories(kSource + "/tests/golden/export");
    WriteFile(path, actual);
    return;
  }
  ASSERT_TRUE(Exists(path)) << path << " is missing (PROCTAPE_UPDATE_GOLDEN=1 writes it)";
  EXPECT_EQ(actual, FileBytes(path)) << "differs from " << path
                                     << " (PROCTAPE_UPDATE_GOLDEN=1 rewrites it)";
}

// Corpus entry name -> its file, from corpus/MANIFEST.
std::map<std::string, std::string> CorpusFiles() {
  Manifest manifest;
  ManifestError error;
  std::map<std::string, std::string> out;
  if (!ParseManifest(FileBytes(kSource + "/corpus/MANIFEST"), &manifest, &error)) return out;
  for (const ManifestEntry& e : manifest.entries) out[e.name] = kSource + "/corpus/" + e.file;
  return out;
}

std::string CorpusFile(const std::string& entry) {
  auto files = CorpusFiles();
  auto it = files.find(entry);
  return it == files.end() ? "" : it->second;
}

// Every entry under `dir`, sorted: (relative path, "d" or the file's bytes);
// a symbolic link or anything else is named as such.
std::vector<std::pair<std::string, std::string>> Tree(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
    std::string rel = std::filesystem::relative(e.path(), dir).string();
    if (e.is_symlink()) {
      out.emplace_back(rel, "symlink");
    } else if (e.is_directory()) {
      out.emplace_back(rel, "d");
    } else if (e.is_regular_file()) {
      out.emplace_back(rel, "f" + FileBytes(e.path().string()));
    } else {
      out.emplace_back(rel, "other");
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The golden form of a proc-dir: one line per file (mode, size, the first 16
// hex digits of its SHA-256, path), then every proctape-* side file in full.
std::string Listing(const std::string& dir) {
  std::string files, sides;
  for (const auto& [rel, content] : Tree(dir)) {
    if (content == "d") continue;
    struct stat st;
    ::lstat((dir + "/" + rel).c_str(), &st);
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", st.st_mode & 07777);
    const std::string bytes = content.substr(1);
    files += std::string(mode) + " " + std::to_string(bytes.size()) + " " +
             Sha256Hex(bytes).substr(0, 16) + " " + rel + "\n";
    if (rel.find("proctape-") != std::string::npos) sides += "== " + rel + "\n" + bytes;
  }
  return files + sides;
}

// A file no corpus entry has: every name a printer could get wrong, a read
// error, a truncated read, a duplicate and an invalid pid, a kept token.
// Written by the writer itself, with fixed times: the same file every run.
std::string WriteHostileFile(const TempDir& tmp) {
  const std::string path = tmp.File("hostile.ptape");
  auto stat = [](std::int64_t pid, const std::string& comm, char state, std::int64_t ppid,
                 std::uint64_t start) {
    const std::string p = std::to_string(ppid);
    return std::to_string(pid) + " (" + comm + ") " + state + " " + p + " " + p + " " + p +
           " 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 " + std::to_string(start) + " 1000 10\n";
  };
  auto record = [&stat](std::int64_t pid, const std::string& comm, std::int64_t ppid,
                        std::uint64_t start, char state = 'S') {
    v1::ProcessRecord r;
    r.set_pid(pid);
    auto set = [](v1::FileRead* f, const std::string& data, std::uint64_t bound) {
      f->set_data(data);
      f->set_bound(bound);
    };
    set(r.mutable_stat(), stat(pid, comm, state, ppid, start), 4096);
    set(r.mutable_cmdline(), comm + "\0--flag\0"s, 65536);
    set(r.mutable_environ(), "HOME=*****\0PROCTAPE_TOKEN=t0k3n\0"s, 65536);
    r.mutable_environ()->set_redacted(true);
    set(r.mutable_status(), "Name:\t" + comm + "\nState:\t" + state + "\n", 16384);
    set(r.mutable_cgroup(), "0::/ci\n", 4096);
    r.mutable_exe()->set_dev(2049);
    r.mutable_exe()->set_ino(static_cast<std::uint64_t>(5000 + pid));
    r.mutable_pid_ns()->set_dev(4);
    r.mutable_pid_ns()->set_ino(4026532000);
    return r;
  };
  std::string error;
  auto writer = SnapshotWriter::Create(path, SnapshotWriter::Options{}, &error);
  if (!writer) return "";
  v1::Header h;
  h.set_format_version(1);
  h.set_tool_version("test");
  h.set_capture_start_mono_ns(1'000'000'000);
  h.set_capture_start_realtime_ns(1'796'000'000'000'000'000);
  h.mutable_host()->set_hostname("ci\x1b]0;owned\x07");
  h.mutable_host()->set_kernel_release("6.1.0");
  h.mutable_host()->set_boot_id("0b0e-1d\n");
  h.mutable_host()->set_pid_max(4194304);
  h.mutable_host()->set_clock_ticks_per_second(100);
  h.mutable_host()->set_page_size(4096);
  h.mutable_redaction()->set_environ(v1::RedactionPolicy::ENVIRON_REDACTED);
  h.mutable_redaction()->add_kept_entries("PROCTAPE_TOKEN=t0k3n");
  writer->WriteHeader(h);
  writer->BeginFrame(0, 1'500'000'000);
  writer->AddProcess(record(1, "init", 0, 5));
  writer->AddProcess(record(40, "app-server", 1, 100));
  writer->AddProcess(record(41, "x) Z 1 1 1\nx", 40, 120));
  writer->AddProcess(record(42, "q\"uote\\back", 40, 121));
  writer->AddProcess(record(43, "\") \"", 40, 122));
  writer->AddProcess(record(44, "\x1b[31mred\xff", 40, 123, 'Z'));
  v1::ProcessRecord gone = record(45, "gone", 1, 130);
  gone.mutable_stat()->Clear();
  gone.mutable_stat()->set_err(ESRCH);
  gone.mutable_stat()->set_bound(4096);
  gone.mutable_exe()->Clear();
  gone.mutable_exe()->set_err(ENOENT);
  writer->AddProcess(std::move(gone));
  v1::ProcessRecord cut = record(46, "child", 47, 140);
  cut.mutable_status()->set_data(std::string(16384, 'g'));
  cut.mutable_status()->set_truncated(true);
  writer->AddProcess(std::move(cut));
  writer->AddProcess(record(47, "late-parent", 1, 150));
  writer->AddProcess(record(41, "duplicate", 1, 999));
  writer->AddProcess(record(0, "invalid", 1, 1));
  writer->EndFrame(1'600'000'000, "", 12345);
  v1::Resolution r;
  r.mutable_resolve()->set_root_pid(40);
  r.mutable_resolve()->set_root_start_ticks(100);
  r.mutable_resolve()->set_token("t0k3n");
  r.mutable_verdict()->set_status(v1::Verdict::RESOLVED);
  r.mutable_verdict()->set_pid(41);
  r.mutable_verdict()->set_start_ticks(120);
  writer->WriteResolution(r);
  v1::Footer footer;
  footer.set_capture_end_mono_ns(1'700'000'000);
  return writer->Finish(footer) ? path : "";
}

TEST(ExportCliTest, HelpTeachesEveryFormatAndTheWayBack) {
  CommandResult r = Proctape({"export", "--help"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  // The help is wrapped to the screen: words are compared across line breaks.
  std::string words;
  for (char c : r.out) {
    const bool space = c == ' ' || c == '\n';
    if (!space || (!words.empty() && words.back() != ' ')) words.push_back(space ? ' ' : c);
  }
  for (const char* word : {"json", "dot", "proc-dir", "base64", "proctape-identity",
                           "proctape-frame", "--proc-root", "--frame", "--force", "Examples:",
                           "the one output that holds a recording's token"}) {
    EXPECT_NE(words.find(word), std::string::npos) << word << "\n" << r.out;
  }
  r = Proctape({"capture", "--help"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("--proc-root"), std::string::npos) << r.out;
}

TEST(ExportCliTest, GoldenOutputsOfCorpusEntries) {
  TempDir tmp("export-golden");
  const std::vector<std::pair<std::string, int>> dots = {
      {"hostile-comm-unshare", 0}, {"misleading-name-bwrap", 0}, {"pid-reuse-unshare", 1},
      {"zombie-bwrap", 1}};
  for (const auto& [entry, frame] : dots) {
    const std::string file = CorpusFile(entry);
    ASSERT_FALSE(file.empty()) << entry;
    CommandResult r = Proctape({"export", file, "--format", "dot", "--frame",
                                std::to_string(frame)});
    ASSERT_EQ(r.exit_code, 0) << Describe(r);
    EXPECT_EQ(r.err, "");
    ExpectGolden(entry + ".frame" + std::to_string(frame) + ".dot", r.out);
  }
  const std::vector<std::pair<std::string, int>> dirs = {{"hostile-comm-bwrap", 0},
                                                         {"pid-reuse-bwrap", 1}};
  for (const auto& [entry, frame] : dirs) {
    const std::string out = tmp.File(entry);
    CommandResult r = Proctape({"export", CorpusFile(entry), "--format", "proc-dir", "--frame",
                                std::to_string(frame), "--out", out});
    ASSERT_EQ(r.exit_code, 0) << Describe(r);
    EXPECT_TRUE(StartsWith(r.out, "wrote " + out + ": frame " + std::to_string(frame))) << r.out;
    ExpectGolden(entry + ".frame" + std::to_string(frame) + ".proc-dir.txt", Listing(out));
  }
  CommandResult r = Proctape({"export", CorpusFile("hostile-comm-unshare"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  ExpectGolden("hostile-comm-unshare.json", r.out);
}

TEST(ExportCliTest, GoldenOutputsOfHostileNames) {
  TempDir tmp("export-hostile");
  const std::string file = WriteHostileFile(tmp);
  ASSERT_FALSE(file.empty());
  CommandResult r = Proctape({"export", file, "--format", "dot"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  ExpectGolden("hostile.dot", r.out);
  r = Proctape({"export", file, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  ExpectGolden("hostile.json", r.out);
  r = Proctape({"export", file, "--format", "proc-dir", "--out", tmp.File("dir")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  ExpectGolden("hostile.proc-dir.txt", Listing(tmp.File("dir")));
}

TEST(ExportCliTest, JsonIsTheWholeFileAndParsesBack) {
  for (const auto& [entry, file] : CorpusFiles()) {
    CommandResult r = Proctape({"export", file, "--format", "json"});
    ASSERT_EQ(r.exit_code, 0) << entry << ": " << Describe(r);
    ASSERT_TRUE(OneLine(r.out)) << entry;
    v1::SnapshotExport parsed;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &parsed).ok()) << entry;
    Snapshot snapshot;
    ASSERT_TRUE(ReadSnapshot(file, &snapshot).ok()) << entry;
    ASSERT_EQ(parsed.frames_size(), static_cast<int>(snapshot.frames.size())) << entry;
    for (std::size_t k = 0; k < snapshot.frames.size(); ++k) {
      EXPECT_EQ(parsed.frames(static_cast<int>(k)).SerializeAsString(),
                snapshot.frames[k].SerializeAsString())
          << entry << " frame " << k;
    }
    EXPECT_EQ(parsed.header().SerializeAsString(), snapshot.header.SerializeAsString()) << entry;
    EXPECT_EQ(parsed.observations_size(), static_cast<int>(snapshot.observations.size()));
    EXPECT_EQ(parsed.resolutions_size(), static_cast<int>(snapshot.resolutions.size()));
    EXPECT_EQ(parsed.footer().chunks(), snapshot.footer->chunks()) << entry;
  }
}

TEST(ExportCliTest, RefusalsAndExitStatuses) {
  TempDir tmp("export-refuse");
  const std::string file = CorpusFile("plain-unshare");
  ASSERT_FALSE(file.empty());
  // An existing output: refused unless --force; a link: refused always.
  WriteFile(tmp.File("tree.dot"), "mine");
  CommandResult r = Proctape({"export", file, "--format", "dot", "--out", tmp.File("tree.dot")});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_TRUE(OneLine(r.err) && StartsWith(r.err, "proctape: ")) << r.err;
  EXPECT_NE(r.err.find("exists: refused (use --force"), std::string::npos) << r.err;
  EXPECT_EQ(FileBytes(tmp.File("tree.dot")), "mine");
  r = Proctape({"export", file, "--format", "dot", "--out", tmp.File("tree.dot"), "--force"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(StartsWith(FileBytes(tmp.File("tree.dot")), "// proctape export --format dot"));
  ASSERT_EQ(::symlink(tmp.File("tree.dot").c_str(), tmp.File("link.json").c_str()), 0);
  r = Proctape({"export", file, "--format", "json", "--out", tmp.File("link.json"), "--force"});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_NE(r.err.find("is a symbolic link: refused"), std::string::npos) << r.err;
  ASSERT_EQ(::symlink(tmp.path().c_str(), tmp.File("link-dir").c_str()), 0);
  r = Proctape({"export", file, "--format", "proc-dir", "--out", tmp.File("link-dir"), "--force"});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_NE(r.err.find("is a symbolic link: refused"), std::string::npos) << r.err;
  // A directory that is not an export is never replaced, and says so up front.
  for (bool force : {false, true}) {
    std::vector<std::string> args = {"export", file, "--format", "proc-dir", "--out", tmp.path()};
    if (force) args.push_back("--force");
    r = Proctape(args);
    EXPECT_EQ(r.exit_code, 10) << Describe(r);
    EXPECT_NE(r.err.find("is a directory that is not an earlier export (it holds no "
                         "proctape-frame): refused, --force or not"),
              std::string::npos)
        << r.err;
  }
  EXPECT_EQ(FileBytes(tmp.File("tree.dot")).empty(), false);
  // An earlier export is, with --force.
  r = Proctape({"export", file, "--format", "proc-dir", "--out", tmp.File("d")});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  r = Proctape({"export", file, "--format", "proc-dir", "--out", tmp.File("d")});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  r = Proctape({"export", file, "--format", "proc-dir", "--frame", "1", "--out", tmp.File("d"),
                "--force"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  // Usage.
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"export", file, "--format", "dot", "--frame", "2"},
           {"export", file, "--format", "proc-dir", "--frame", "9", "--out", tmp.File("e")},
           {"export", file, "--format", "json", "--frame", "0"},
           {"export", file, "--format", "proc-dir"},
           {"export", file, "--format", "proc-dir", "--out", "-"},
           {"export", file, "--format", "svg"},
           {"export", file},
       }) {
    r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << Describe(r);
    EXPECT_TRUE(OneLine(r.err) && StartsWith(r.err, "proctape: ")) << r.err;
    EXPECT_EQ(r.out, "");
  }
  r = Proctape({"export", file, "--format", "dot", "--frame", "2"});
  EXPECT_EQ(r.err, "proctape: export: --frame 2: " + file +
                       " has 2 frames (0..1) (see 'proctape export --help')\n");
  EXPECT_FALSE(Exists(tmp.File("e")));
  // A damaged file: its own status, nothing written.
  const std::string whole = FileBytes(file);
  WriteFile(tmp.File("cut.ptape"), whole.substr(0, whole.size() / 2));
  r = Proctape({"export", tmp.File("cut.ptape"), "--format", "proc-dir", "--out", tmp.File("f")});
  EXPECT_EQ(r.exit_code, 13) << Describe(r);
  EXPECT_FALSE(Exists(tmp.File("f")));
  r = Proctape({"export", tmp.File("missing.ptape"), "--format", "json"});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
}

TEST(CaptureProcRootCliTest, RefusalsAndExitStatuses) {
  TempDir tmp("proc-root-refuse");
  const std::string file = CorpusFile("plain-unshare");
  CommandResult r = Proctape({"export", file, "--format", "proc-dir", "--out", tmp.File("d")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{
           {"--frames", "2"}, {"--proc", "/proc"}, {"--threads", "2"}, {"--interval", "5"},
           {"--env", "keep"}}) {
    std::vector<std::string> args = {"capture", "--proc-root", tmp.File("d"), "-o",
                                     tmp.File("x.ptape")};
    args.insert(args.end(), extra.begin(), extra.end());
    r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << extra[0] << ": " << Describe(r);
    EXPECT_FALSE(Exists(tmp.File("x.ptape")));
  }
  EXPECT_NE(r.err.find("holds redacted environ values: they cannot be kept"), std::string::npos)
      << r.err;
  // A side file that does not parse: exit 15, no file.
  WriteFile(tmp.File("d/1/proctape-identity"), "proctape-identity 1\npid_ns 4:5\nexe 1:2\n");
  r = Proctape({"capture", "--proc-root", tmp.File("d"), "-o", tmp.File("x.ptape")});
  EXPECT_EQ(r.exit_code, 15) << Describe(r);
  EXPECT_NE(r.err.find("/1/proctape-identity: line 3 (exe): repeated or out of order"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(Exists(tmp.File("x.ptape")));
  WriteFile(tmp.File("d/proctape-frame"), "proctape-frame 1\nboot_id \\xZZ\n");
  r = Proctape({"capture", "--proc-root", tmp.File("d"), "-o", tmp.File("y.ptape")});
  EXPECT_EQ(r.exit_code, 15) << Describe(r);
  EXPECT_FALSE(Exists(tmp.File("y.ptape")));
  // A DIR that cannot be opened is an input that cannot be read (10).
  r = Proctape({"capture", "--proc-root", tmp.File("none"), "-o", tmp.File("z.ptape")});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
}

// export --frame k -> capture --proc-root -> export: the same directory, and
// the records of the recorded frame.
void ExpectRoundTrip(const std::string& file, const std::string& what, const TempDir& tmp) {
  Snapshot original;
  ASSERT_TRUE(ReadSnapshot(file, &original).ok()) << what;
  for (std::size_t k = 0; k < original.frames.size(); ++k) {
    const std::string tag = what + " frame " + std::to_string(k);
    const std::string base = tmp.File(std::to_string(k));
    CommandResult r = Proctape({"export", file, "--format", "proc-dir", "--frame",
                                std::to_string(k), "--out", base + "-a", "--force"});
    ASSERT_EQ(r.exit_code, 0) << tag << ": " << Describe(r);
    r = Proctape({"capture", "--proc-root", base + "-a", "-o", base + ".ptape", "--force"});
    ASSERT_EQ(r.exit_code, 0) << tag << ": " << Describe(r);
    r = Proctape({"export", base + ".ptape", "--format", "proc-dir", "--out", base + "-b",
                  "--force"});
    ASSERT_EQ(r.exit_code, 0) << tag << ": " << Describe(r);
    EXPECT_TRUE(Tree(base + "-a") == Tree(base + "-b")) << tag;

    Snapshot again;
    ASSERT_TRUE(ReadSnapshot(base + ".ptape", &again).ok()) << tag;
    ASSERT_EQ(again.frames.size(), 1u) << tag;
    // The recorded frame, its token masked as every view masks it.
    v1::Frame was = original.frames[k];
    TokenMask::Of(original).Mask(&was);
    const v1::Frame& is = again.frames[0];
    ASSERT_EQ(is.processes_size(), was.processes_size()) << tag;
    for (int i = 0; i < was.processes_size(); ++i) {
      EXPECT_EQ(is.processes(i).SerializeAsString(), was.processes(i).SerializeAsString())
          << tag << " pid " << was.processes(i).pid();
    }
    EXPECT_EQ(is.scan_start_mono_ns(), was.scan_start_mono_ns()) << tag;
    EXPECT_EQ(is.scan_end_mono_ns(), was.scan_end_mono_ns()) << tag;
    EXPECT_EQ(again.header.host().SerializeAsString(), original.header.host().SerializeAsString())
        << tag;
    v1::RedactionPolicy redaction = original.header.redaction();
    TokenMask::Of(original).Mask(&redaction);
    EXPECT_EQ(again.header.redaction().SerializeAsString(), redaction.SerializeAsString()) << tag;
  }
}

TEST(ExportRoundTripTest, EveryFrameOfTheCorpus) {
  const auto files = CorpusFiles();
  ASSERT_GE(files.size(), 24u);
  bool hostile_seen = false;
  for (const auto& [entry, file] : files) {
    TempDir tmp("export-trip");
    ExpectRoundTrip(file, entry, tmp);
    if (entry.rfind("hostile-comm-", 0) == 0) {
      // The hostile comm is in the export as recorded, and back in the file.
      Snapshot again;
      ASSERT_TRUE(ReadSnapshot(tmp.File("0.ptape"), &again).ok());
      bool found = false;
      for (const auto& p : again.frames[0].processes()) {
        found |= p.stat().data().find("(x) Z 1 1 1\nx) ") != std::string::npos;
      }
      EXPECT_TRUE(found) << entry;
      hostile_seen = true;
    }
  }
  EXPECT_TRUE(hostile_seen);
}

TEST(ExportRoundTripTest, AFreshCaptureOfThisHost) {
  TempDir tmp("export-host");
  CommandResult r = Proctape({"capture", "-o", tmp.File("host.ptape")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  ExpectRoundTrip(tmp.File("host.ptape"), "host capture", tmp);
}

TEST(ExportRoundTripTest, TheHandMadeHostileFile) {
  TempDir tmp("export-hostile-trip");
  const std::string file = WriteHostileFile(tmp);
  ASSERT_FALSE(file.empty());
  // The duplicate and the invalid pid cannot be held by a directory: the
  // directory round-trips, the records but those two come back.
  CommandResult r = Proctape({"export", file, "--format", "proc-dir", "--out", tmp.File("a")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  r = Proctape({"capture", "--proc-root", tmp.File("a"), "-o", tmp.File("b.ptape")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Snapshot original, again;
  ASSERT_TRUE(ReadSnapshot(file, &original).ok());
  ASSERT_TRUE(ReadSnapshot(tmp.File("b.ptape"), &again).ok());
  v1::Frame was = original.frames[0];
  TokenMask::Of(original).Mask(&was);
  ASSERT_EQ(again.frames[0].processes_size(), was.processes_size() - 2);
  for (int i = 0; i < was.processes_size() - 2; ++i) {
    EXPECT_EQ(again.frames[0].processes(i).SerializeAsString(),
              was.processes(i).SerializeAsString())
        << "pid " << was.processes(i).pid();
  }
  r = Proctape({"export", tmp.File("b.ptape"), "--format", "proc-dir", "--out", tmp.File("c")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  auto a = Tree(tmp.File("a")), c = Tree(tmp.File("c"));
  // Only the proctape-frame differs: its dropped_pid lines.
  ASSERT_EQ(a.size(), c.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].first == "proctape-frame") {
      EXPECT_NE(a[i].second.find("dropped_pid 41\ndropped_pid 0\n"), std::string::npos);
      EXPECT_EQ(c[i].second.find("dropped_pid"), std::string::npos);
    } else {
      EXPECT_EQ(a[i], c[i]);
    }
  }
}

TEST(CaptureProcRootCliTest, AFixtureOfAnotherTool) {
  // /proc as another tool might lay it out: an exe link, no side files.
  TempDir tmp("proc-root-fixture");
  const std::string dir = tmp.File("proc");
  std::filesystem::create_directories(dir + "/7");
  const std::string stat = "7 (sh) S 1 7 7 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 4242 1 1\n";
  WriteFile(dir + "/7/stat", stat);
  WriteFile(dir + "/7/cmdline", "/bin/sh\0-c\0true\0"s);
  WriteFile(dir + "/7/status", "Name:\tsh\nNSpid:\t7\n");
  ASSERT_EQ(::symlink("/bin/sh", (dir + "/7/exe").c_str()), 0);
  CommandResult r = Proctape({"capture", "--proc-root", dir, "-o", tmp.File("f.ptape")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Snapshot s;
  ASSERT_TRUE(ReadSnapshot(tmp.File("f.ptape"), &s).ok());
  ASSERT_EQ(s.frames.size(), 1u);
  ASSERT_EQ(s.frames[0].processes_size(), 1);
  const v1::ProcessRecord& p = s.frames[0].processes(0);
  EXPECT_EQ(p.stat().data(), stat);
  EXPECT_EQ(p.cmdline().data(), "/bin/sh\0-c\0true\0"s);
  EXPECT_EQ(p.environ().err(), ENOENT);
  EXPECT_EQ(p.cgroup().err(), ENOENT);
  // The link is not followed (tests/live/import_cli_test.cc): no identity
  // (ELOOP), its text kept.
  EXPECT_EQ(p.exe().err(), ELOOP);
  EXPECT_EQ(p.exe().dev(), 0u);
  EXPECT_EQ(p.exe().link_text(), "/bin/sh");
  EXPECT_EQ(p.pid_ns().err(), ENOENT);
  // Its export gives the same bytes back, and the link's text in a side file.
  r = Proctape({"export", tmp.File("f.ptape"), "--format", "proc-dir", "--out", tmp.File("x")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(FileBytes(tmp.File("x/7/stat")), stat);
  EXPECT_EQ(FileBytes(tmp.File("x/7/proctape-identity")),
            "proctape-identity 1\nexe error 40\nexe_link /bin/sh\npid_ns error 2\n"
            "environ error 2\ncgroup error 2\n");
}

}  // namespace
}  // namespace proctape::live
