// The readers that stream (issue 14, section 1): verify, show, tree and
// export read a file chunk by chunk and keep at most one frame, so a file
// whose whole Snapshot is larger than the memory they may use is read all
// the same. The file is written here through the real writer (never checked
// in): 24 frames of 3,000 process records with kilobyte environs, about
// 150 MB as a Snapshot; each command runs under RLIMIT_AS 160 MiB (prlimit;
// a small file needs under 64 MiB). Before, every command read the whole
// file into memory first and died of it. The speed and peak RSS are
// measured in bench/stream_rss.sh, not here.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "format/writer.h"
#include "proctape.pb.h"
#include "tests/live/files.h"

using namespace std::string_literals;

namespace proctape::live {
namespace {

constexpr int kFrames = 24;
constexpr int kProcesses = 3'000;
constexpr const char* kLimit = "--as=167772160";  // 160 MiB
constexpr int kHangGuardMs = 120'000;

// A record of a quiet host: distinct bytes per process (pid and frame in
// each file), so no two strings are shared.
v1::ProcessRecord Record(int frame, int i) {
  v1::ProcessRecord p;
  const std::string pid = std::to_string(1000 + i);
  p.set_pid(1000 + i);
  p.mutable_stat()->set_data(pid + " (worker) S 1 " + pid + " " + pid +
                             " 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 " +
                             std::to_string(5000 + i) + " 2265088 130 " + std::to_string(frame) +
                             "\n");
  p.mutable_cmdline()->set_data("/usr/lib/worker\0--id\0"s + pid + '\0');
  std::string env;
  for (int k = 0; k < 16; ++k) {
    env += "VAR_" + std::to_string(k) + "=value-" + pid + "-" + std::to_string(frame * 16 + k) +
           "-" + std::string(40, static_cast<char>('a' + k)) + '\0';
  }
  p.mutable_environ()->set_data(env);
  p.mutable_status()->set_data("Name:\tworker\nPid:\t" + pid + "\nNSpid:\t" + pid + "\n");
  return p;
}

bool WriteFile(const std::string& path, std::string* error) {
  SnapshotWriter::Options options;
  std::unique_ptr<SnapshotWriter> w = SnapshotWriter::Create(path, options, error);
  if (!w) return false;
  v1::Header h;
  h.set_tool_version("stream test");
  h.mutable_host()->set_clock_ticks_per_second(100);
  bool ok = w->WriteHeader(h);
  for (int f = 0; ok && f < kFrames; ++f) {
    ok = w->BeginFrame(static_cast<std::uint64_t>(f), f * 1000);
    for (int i = 0; ok && i < kProcesses; ++i) ok = w->AddProcess(Record(f, i));
    ok = ok && w->EndFrame(f * 1000 + 500, "", 1);
  }
  ok = ok && w->Finish(v1::Footer{});
  if (!ok) *error = w->error();
  return ok;
}

CommandResult Limited(std::vector<std::string> args) {
  args.insert(args.begin(), {"/usr/bin/prlimit", kLimit, "--", PROCTAPE_BINARY});
  return RunCommand(args, kHangGuardMs);
}

TEST(StreamingReaders, CommandsReadAFileLargerThanTheirMemoryLimit) {
  if (const std::string why = AddressLimitUnavailable(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir("stream");
  const std::string file = dir.path() + "/big.ptape";
  std::string error;
  ASSERT_TRUE(WriteFile(file, &error)) << error;
  const std::string out = dir.path() + "/out";
  const std::vector<std::vector<std::string>> commands = {
      {"verify", file},
      {"show", file},
      {"tree", file, "--frame", "23", "--json"},
      {"export", "--format", "json", file, "-o", out + ".json"},
      {"export", "--format", "dot", "--frame", "5", file, "-o", out + ".dot"},
  };
  for (const auto& args : commands) {
    std::string what;
    for (const std::string& a : args) what += a + " ";
    CommandResult r = Limited(args);
    ASSERT_TRUE(r.started) << r.error;
    EXPECT_FALSE(r.timed_out) << what;
    EXPECT_EQ(r.term_signal, 0) << what << r.err;
    EXPECT_EQ(r.exit_code, 0) << what << r.err;
  }
  // What they read is the whole file: every frame and record counted.
  CommandResult verify = Limited({"verify", file});
  EXPECT_NE(verify.out.find("24 frames, 72000 process records"), std::string::npos) << verify.out;
}

}  // namespace
}  // namespace proctape::live
