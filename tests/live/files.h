// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the live tests: the built binary run (as it is, under an
// address-space limit, under a shell redirection), files (a temporary
// directory removed with everything in it, whole-file reads and writes,
// identities), the decompressed chunks or records of a snapshot, and a
// command line or a command result in one message.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "format/reader.h"
#include "format/writer.h"
#include "proctape.pb.h"
#include "tests/live/build_paths.h"
#include "tests/live/sandbox.h"

namespace proctape::live {

// An address-space limit of 512 MiB (prlimit): how a test shows a command
// stays within fixed resources on a hostile file. AddressLimitUnavailable
// says why it cannot run here ("" when it can): the sanitizer build
// reserves terabytes of shadow memory, and prlimit must exist.
inline constexpr const char* kAddressSpaceLimit = "--as=536870912";  // 512 MiB
inline std::string AddressLimitUnavailable() {
  if (::proctape::live::TestedBinarySanitized()) {
    return "the sanitizer build reserves terabytes of shadow memory: an address-space limit "
           "cannot hold";
  }
  return std::filesystem::exists("/usr/bin/prlimit") ? "" : "no /usr/bin/prlimit";
}

// The command line as typed, for assertion messages: "proctape ARGS", then
// `redirect` when there is one.
inline std::string Shown(const std::vector<std::string>& args, const std::string& redirect = "") {
  std::string out = "proctape";
  for (const std::string& a : args) out += " " + a;
  return redirect.empty() ? out : out + " " + redirect;
}

#ifdef PROCTAPE_BINARY
// The built proctape CLI (PROCTAPE_BINARY) run with `args`; the default
// timeout allows a whole-host capture on a busy host.
inline CommandResult Proctape(std::vector<std::string> args, int timeout_ms = 180'000) {
  args.insert(args.begin(), ::proctape::live::TestedBinary());
  return RunCommand(args, timeout_ms);
}
// The binary under an address-space limit: `limit`, a prlimit option
// (kAddressSpaceLimit by default).
inline CommandResult ProctapeWithinAddressLimit(std::vector<std::string> args, int timeout_ms,
                                                const char* limit = kAddressSpaceLimit) {
  args.insert(args.begin(), {"/usr/bin/prlimit", limit, "--", ::proctape::live::TestedBinary()});
  return RunCommand(args, timeout_ms);
}
// Each of `commands` run by ProctapeWithinAddressLimit(args, timeout_ms,
// limit) must end by itself (neither the hang guard nor a signal ends it)
// with exit `status`; `check`, when given, holds what else each must say.
// A command that cannot start is a fatal failure: call it in
// ASSERT_NO_FATAL_FAILURE so that it ends the test.
inline void ExpectEachEndsWithinAddressLimit(
    const std::vector<std::vector<std::string>>& commands, int status, int timeout_ms,
    const char* limit = kAddressSpaceLimit,
    const std::function<void(const std::string& shown, const CommandResult& r)>& check = {}) {
  for (const std::vector<std::string>& args : commands) {
    const std::string shown = Shown(args);
    const CommandResult r = ProctapeWithinAddressLimit(args, timeout_ms, limit);
    ASSERT_TRUE(r.started) << r.error;
    EXPECT_FALSE(r.timed_out) << shown;
    EXPECT_EQ(r.term_signal, 0) << shown << "\n" << r.err;
    EXPECT_EQ(r.exit_code, status) << shown << "\n" << r.err;
    if (check) check(shown, r);
  }
}
// The binary run by a shell that gives it `redirect` ("</x", ">/dev/full",
// "1<>'x.ptape'": shell text, quoted by the caller).
inline CommandResult ProctapeRedirected(const std::string& redirect,
                                        const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/bin/sh", "-c", "exec \"$0\" \"$@\" " + redirect,
                                   ::proctape::live::TestedBinary()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, 120'000);
}
#endif

// A fresh directory /tmp/proctape-NAME-XXXXXX, removed with everything in it.
class TempDir {
 public:
  explicit TempDir(const std::string& name = "test") {
    std::string tmpl = "/tmp/proctape-" + name + "-XXXXXX";
    const char* made = ::mkdtemp(tmpl.data());
    path_ = made == nullptr ? "" : made;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Every chunk of `path`, decompressed and serialized again: the bytes the
// file holds, as the reader sees them. Stops at the first damage.
inline std::vector<std::string> DecompressedChunks(const std::string& path, FormatError* error) {
  std::vector<std::string> out;
  auto reader = ChunkReader::Open(path, error);
  if (!reader) return out;
  v1::Chunk chunk;
  for (;;) {
    ChunkReader::Result r = reader->Next(&chunk);
    if (r == ChunkReader::Result::kEnd) break;
    if (r == ChunkReader::Result::kError) {
      *error = reader->error();
      break;
    }
    out.push_back(chunk.SerializeAsString());
  }
  return out;
}

inline const v1::ProcessRecord* FindRecord(const v1::Frame& frame, std::int64_t pid) {
  for (const auto& r : frame.processes()) {
    if (r.pid() == pid) return &r;
  }
  return nullptr;
}

inline bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// `part` is somewhere in `text`.
inline bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Exactly one line: non-empty, one newline, at the end.
inline bool OneLine(const std::string& s) { return !s.empty() && s.find('\n') == s.size() - 1; }

// Anything at `path`, a dangling link included.
inline bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

// The names in `dir`, sorted ("." and ".." left out).
inline std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The temporaries of the output `base` in `dir`: NAME.XXXXXX.partial, six
// letters or digits (docs/cli/outputs.md), as names in `dir`.
inline std::vector<std::string> TemporariesOf(const std::string& dir, const std::string& base) {
  std::vector<std::string> out;
  const std::string suffix = ".partial";
  for (const std::string& name : Entries(dir)) {
    if (name.size() == base.size() + 7 + suffix.size() && name.compare(0, base.size(), base) == 0 &&
        name[base.size()] == '.' &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      bool tag = true;
      for (char c : name.substr(base.size() + 1, 6))
        tag &= std::isalnum(static_cast<unsigned char>(c)) != 0;
      if (tag) out.push_back(name);
    }
  }
  return out;
}

inline std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// This host's /proc/sys/kernel/pid_max (0 when it cannot be read).
inline std::int64_t PidMax() {
  std::string text = FileBytes("/proc/sys/kernel/pid_max");
  return text.empty() ? 0 : std::stoll(text);
}

// A pid this host can have (below pid_max) that no process has now, as
// text: the highest free one, so that no process is likely to take it
// while a test runs.
inline std::string AbsentPid() {
  for (std::int64_t pid = PidMax() - 1; pid > 300; --pid) {
    if (!Exists("/proc/" + std::to_string(pid))) return std::to_string(pid);
  }
  return "";
}

inline void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary) << data;
}

struct FileId {
  std::uint64_t dev = 0, ino = 0;
};
// Device and inode of `path`, links followed; zeros when it cannot be stat'ed.
inline FileId StatOf(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return {};
  return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

// Writes `snapshot` to `path` with the real writer (hand-made files for the
// CLI tests); false, with *error, when the writer refuses it.
inline bool WriteSnapshotFile(const std::string& path, const Snapshot& snapshot,
                              std::string* error) {
  Failure refused;
  auto writer = SnapshotWriter::Create(path, {}, &refused);
  if (writer == nullptr) {
    *error = refused.message;
    return false;
  }
  bool ok = writer->WriteHeader(snapshot.header);
  for (const v1::Frame& f : snapshot.frames) {
    if (!ok) break;
    writer->BeginFrame(f.index(), f.scan_start_mono_ns());
    for (v1::ProcessRecord r : f.processes()) ok = ok && writer->AddProcess(std::move(r));
    ok = ok && writer->EndFrame(f.scan_end_mono_ns(), f.cut_reason(), f.bytes_read());
  }
  for (const v1::Resolution& r : snapshot.resolutions) ok = ok && writer->WriteResolution(r);
  v1::Footer footer;
  footer.set_capture_end_mono_ns(snapshot.footer ? snapshot.footer->capture_end_mono_ns() : 0);
  ok = ok && writer->Finish(footer);
  if (!ok) *error = writer->error();
  return ok;
}

// A command's outcome and output, for assertion messages.
inline std::string Describe(const CommandResult& r) {
  std::string out =
      "exit " + std::to_string(r.exit_code) + " signal " + std::to_string(r.term_signal);
  if (r.timed_out) out.append(" (timed out)");
  if (!r.error.empty()) out.append(" error: ").append(r.error);
  out.append("\nstdout: ").append(r.out);
  out.append("\nstderr: ").append(r.err);
  return out;
}

}  // namespace proctape::live
