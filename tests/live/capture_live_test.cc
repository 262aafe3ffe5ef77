// SPDX-License-Identifier: Apache-2.0
// `proctape capture` on the real host (`docs/format.md` sections 3 and 6;
// `docs/cli/outputs.md`): what a
// capture holds. The file reads back whole with our own processes exactly as
// the kernel shows them; --json summarises in one object; no byte of a
// default capture holds an environ secret; the parallel scan and the
// sequential one see the same processes in the same order; a process's PID
// namespace is the inode of /proc/PID/ns/pid. Every process a test starts is
// ended by its pid (or its pidfd).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "capture/procfs_evidence.h"
#include "format/file_format.h"
#include "format/reader.h"
#include "tests/live/capture_live_fixture.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::DecompressedChunks;
using live::Exists;
using live::FileBytes;
using live::FileId;
using live::FindRecord;
using live::OneLine;
using live::StatOf;
using live::TempDir;
// capture_live_fixture.h
using live::Explain;
using live::StartAndWait;
using live::UniqueSeconds;

using live::Proctape;

TEST(CaptureLive, WritesAFileThatReadsBackWholeWithOurProcessAsTheKernelShowsIt) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string seconds = UniqueSeconds();
  const std::string cmdline = "/bin/sleep" + std::string(1, '\0') + seconds + std::string(1, '\0');
  auto child = StartAndWait({"/bin/sleep", seconds}, cmdline);
  ASSERT_NE(child, nullptr);
  const std::string file = dir.File("host.ptape");

  CommandResult r = Proctape({"capture", "-o", file});
  ASSERT_EQ(r.exit_code, 0) << Explain(r);
  EXPECT_EQ(r.out.rfind("wrote " + file + ": 1 frame, ", 0), 0u) << Explain(r);
  EXPECT_NE(r.out.find(" bytes read, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" bytes written, "), std::string::npos) << r.out;
  EXPECT_FALSE(Exists(file + ".partial"));

  Snapshot snap;
  FormatError err = ReadSnapshot(file, &snap);
  ASSERT_TRUE(err.ok()) << err.message;
  ASSERT_TRUE(snap.footer.has_value());
  ASSERT_EQ(snap.frames.size(), 1u);
  EXPECT_EQ(snap.footer->frames(), 1u);
  const v1::Frame& frame = snap.frames[0];
  EXPECT_TRUE(frame.complete());
  EXPECT_EQ(frame.cut_reason(), "");
  EXPECT_GE(frame.scan_end_mono_ns(), frame.scan_start_mono_ns());
  EXPECT_GE(frame.scan_start_mono_ns(), snap.header.capture_start_mono_ns());
  EXPECT_EQ(snap.footer->processes(), static_cast<std::uint64_t>(frame.processes_size()));

  // Header: format, host facts, capturer, bounds, policy, command line.
  const v1::Header& h = snap.header;
  EXPECT_EQ(h.format_version(), kFormatVersion);
  EXPECT_FALSE(h.tool_version().empty());
  EXPECT_EQ(h.host().boot_id(), FileBytes("/proc/sys/kernel/random/boot_id"));
  EXPECT_EQ(h.host().clock_ticks_per_second(), ::sysconf(_SC_CLK_TCK));
  EXPECT_EQ(h.host().page_size(), ::sysconf(_SC_PAGESIZE));
  EXPECT_GT(h.host().pid_max(), 0);
  EXPECT_FALSE(h.host().hostname().empty());
  EXPECT_FALSE(h.host().kernel_release().empty());
  EXPECT_GT(h.capturer_pid(), 0);
  EXPECT_EQ(h.capturer_uid(), ::getuid());
  EXPECT_EQ(h.capturer_pid_ns_inode(), StatOf("/proc/self/ns/pid").ino);
  EXPECT_GT(h.capture_start_realtime_ns(), 1'600'000'000LL * 1'000'000'000LL);
  EXPECT_EQ(h.redaction().environ(), v1::RedactionPolicy::ENVIRON_REDACTED);
  EXPECT_EQ(h.bounds().stat_bytes(), 4096u);
  EXPECT_EQ(h.bounds().cmdline_bytes(), 65536u);
  EXPECT_EQ(h.bounds().environ_bytes(), 65536u);
  EXPECT_EQ(h.bounds().status_bytes(), 16384u);
  EXPECT_EQ(h.bounds().max_nodes(), 65536u);
  EXPECT_EQ(h.bounds().byte_budget(), 1u << 30);
  ASSERT_EQ(h.command_line_size(), 4);
  EXPECT_EQ(h.command_line(1), "capture");
  EXPECT_EQ(h.command_line(3), file);

  // Our sleep: exact cmdline bytes, stat naming it, exe = stat of /bin/sleep.
  const v1::ProcessRecord* sleep = FindRecord(frame, child->pid());
  ASSERT_NE(sleep, nullptr) << "pid " << child->pid() << " not captured";
  EXPECT_EQ(sleep->cmdline().err(), 0);
  EXPECT_EQ(sleep->cmdline().data(), cmdline);
  EXPECT_EQ(sleep->cmdline().bound(), 65536u);
  const std::string stat_prefix =
      std::to_string(child->pid()) + " (sleep) S " + std::to_string(::getpid()) + " ";
  EXPECT_EQ(sleep->stat().data().rfind(stat_prefix, 0), 0u) << sleep->stat().data();
  EXPECT_EQ(sleep->stat().data().back(), '\n');
  FileId exe = StatOf("/bin/sleep");
  EXPECT_EQ(sleep->exe().err(), 0);
  EXPECT_EQ(sleep->exe().dev(), exe.dev);
  EXPECT_EQ(sleep->exe().ino(), exe.ino);
  EXPECT_EQ(sleep->pid_ns().err(), 0);
  EXPECT_EQ(sleep->pid_ns().ino(), StatOf("/proc/self/ns/pid").ino);
  EXPECT_EQ(sleep->status().err(), 0);
  EXPECT_EQ(sleep->status().data().rfind("Name:\tsleep\n", 0), 0u);
  EXPECT_EQ(sleep->cgroup().err(), 0);
  EXPECT_EQ(sleep->cgroup().data(), live::ReadProc(child->pid(), "cgroup").value_or("?"));
  EXPECT_TRUE(sleep->environ().redacted());
  EXPECT_EQ(sleep->environ().err(), 0);
  std::optional<std::string> env = live::ReadProc(child->pid(), "environ");
  ASSERT_TRUE(env.has_value());
  EXPECT_EQ(sleep->environ().data().size(), env->size());

  // The test process itself, and the capturer (its own record).
  EXPECT_NE(FindRecord(frame, ::getpid()), nullptr);
  EXPECT_NE(FindRecord(frame, h.capturer_pid()), nullptr);
}

TEST(CaptureLive, JsonSummaryIsOneObject) {
  TempDir dir;
  const std::string file = dir.File("j.ptape");
  CommandResult r =
      Proctape({"capture", "-o", file, "--json", "--root", std::to_string(::getpid())});
  ASSERT_EQ(r.exit_code, 0) << Explain(r);
  ASSERT_TRUE(OneLine(r.out)) << r.out;
  EXPECT_EQ(r.out.front(), '{');
  for (const char* key : {"\"file\":", "\"frames\":1,", "\"processes\":", "\"bytes_read\":",
                          "\"bytes_written\":", "\"elapsed_ns\":", "\"environ\":\"redacted\""}) {
    EXPECT_NE(r.out.find(key), std::string::npos) << key << " in " << r.out;
  }
  struct stat st;
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_NE(r.out.find("\"bytes_written\":" + std::to_string(st.st_size) + ","), std::string::npos)
      << r.out << " size " << st.st_size;
}

// Redaction (`docs/format.md` section 6): a test starts a real process with a
// unique secret in its environment, captures the host with and without --env
// keep, and proves the secret appears in no byte of the decompressed default
// capture.
TEST(CaptureLive, NoByteOfTheDefaultCaptureHoldsAnEnvironSecret) {
  TempDir dir;
  const std::string secret = live::RandomHex(32);  // 64 hex digits
  const std::string var = "PROCTAPE_CAPTURE_TEST_SECRET";
  // env(1) adds the secret and execs sleep: once the exec is done, no
  // cmdline on the host holds the secret; only the sleep's environ does.
  const std::string seconds = UniqueSeconds();
  const std::string cmdline = "/bin/sleep" + std::string(1, '\0') + seconds + std::string(1, '\0');
  auto child = StartAndWait({"/usr/bin/env", var + "=" + secret, "/bin/sleep", seconds}, cmdline);
  ASSERT_NE(child, nullptr);
  std::optional<std::string> live_env = live::ReadProc(child->pid(), "environ");
  ASSERT_TRUE(live_env.has_value());
  ASSERT_NE(live_env->find(var + "=" + secret), std::string::npos);

  const std::string redacted_file = dir.File("redacted.ptape");
  const std::string kept_file = dir.File("kept.ptape");
  CommandResult red = Proctape({"capture", "-o", redacted_file});
  ASSERT_EQ(red.exit_code, 0) << Explain(red);
  CommandResult kept = Proctape({"capture", "-o", kept_file, "--env", "keep"});
  ASSERT_EQ(kept.exit_code, 0) << Explain(kept);
  EXPECT_NE(kept.err.find("--env keep"), std::string::npos) << "no warning: " << kept.err;

  // Default: the secret is in no decompressed chunk, nor in the file, nor in
  // what the command printed; the variable is there with its value starred.
  FormatError err;
  std::vector<std::string> chunks = DecompressedChunks(redacted_file, &err);
  ASSERT_TRUE(err.ok()) << err.message;
  ASSERT_GE(chunks.size(), 3u);  // header, frame, footer
  bool starred = false;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_EQ(chunks[i].find(secret), std::string::npos) << "secret in chunk " << i;
    if (chunks[i].find(var + "=" + std::string(secret.size(), '*')) != std::string::npos) {
      starred = true;
    }
  }
  EXPECT_TRUE(starred) << "the secret-holding process's redacted environ was not captured";
  EXPECT_EQ(FileBytes(redacted_file).find(secret), std::string::npos);
  EXPECT_EQ(red.out.find(secret), std::string::npos);
  EXPECT_EQ(red.err.find(secret), std::string::npos);
  Snapshot red_snap;
  ASSERT_TRUE(ReadSnapshot(redacted_file, &red_snap).ok());
  EXPECT_EQ(red_snap.header.redaction().environ(), v1::RedactionPolicy::ENVIRON_REDACTED);
  ASSERT_EQ(red_snap.frames.size(), 1u);
  const v1::ProcessRecord* red_rec = FindRecord(red_snap.frames[0], child->pid());
  ASSERT_NE(red_rec, nullptr);
  EXPECT_TRUE(red_rec->environ().redacted());
  EXPECT_EQ(red_rec->environ().data().size(), live_env->size());

  // --env keep: the secret is there, and the header says so.
  chunks = DecompressedChunks(kept_file, &err);
  ASSERT_TRUE(err.ok()) << err.message;
  bool found = false;
  for (const std::string& c : chunks) found = found || c.find(secret) != std::string::npos;
  EXPECT_TRUE(found) << "--env keep lost the secret: the proof above would prove nothing";
  Snapshot kept_snap;
  ASSERT_TRUE(ReadSnapshot(kept_file, &kept_snap).ok());
  EXPECT_EQ(kept_snap.header.redaction().environ(), v1::RedactionPolicy::ENVIRON_KEPT);
  ASSERT_EQ(kept_snap.frames.size(), 1u);
  const v1::ProcessRecord* kept_rec = FindRecord(kept_snap.frames[0], child->pid());
  ASSERT_NE(kept_rec, nullptr);
  EXPECT_FALSE(kept_rec->environ().redacted());
  EXPECT_EQ(kept_rec->environ().data(), *live_env);
}

// The parallel scan (--threads 2) and the sequential one (--threads 1) see
// the same processes the same way, in the same order: content and order of a
// capture do not depend on the threads reading /proc.
TEST(CaptureLive, TwoThreadsAndOneCaptureTheSameProcessesInTheSameOrder) {
  // 150 sleeps (more than two batches of 64), each with its own argv and a
  // zombie, so the records of both captures span several batches.
  std::vector<std::unique_ptr<live::Child>> children;
  std::vector<std::string> cmdlines;
  for (int i = 0; i < 150; ++i) {
    const std::string seconds = UniqueSeconds();
    cmdlines.push_back("/bin/sleep" + std::string(1, '\0') + seconds + std::string(1, '\0'));
    std::string error;
    children.push_back(live::Child::Start({"/bin/sleep", seconds}, &error));
    ASSERT_NE(children.back(), nullptr) << error;
  }
  for (std::size_t i = 0; i < children.size(); ++i) {
    ASSERT_TRUE(children[i]->WaitForCmdline(cmdlines[i], 5000)) << children[i]->pid();
  }
  std::string error;
  auto zombie = live::Child::StartZombie(&error);
  ASSERT_NE(zombie, nullptr) << error;

  TempDir dir;
  Snapshot snaps[2];
  for (int t = 0; t < 2; ++t) {
    const std::string file = dir.File("threads" + std::to_string(t + 1) + ".ptape");
    CommandResult r = Proctape({"capture", "-o", file, "--threads", std::to_string(t + 1)});
    ASSERT_EQ(r.exit_code, 0) << Explain(r);
    FormatError err = ReadSnapshot(file, &snaps[t]);
    ASSERT_TRUE(err.ok()) << err.message;
    ASSERT_EQ(snaps[t].frames.size(), 1u);
    EXPECT_EQ(snaps[t].frames[0].cut_reason(), "");
    ASSERT_EQ(snaps[t].header.command_line_size(), 6);
    EXPECT_EQ(snaps[t].header.command_line(4), "--threads");
  }
  const v1::Frame& one = snaps[0].frames[0];
  const v1::Frame& two = snaps[1].frames[0];

  // Our processes: in both, with the same record but for what time moves
  // (stat and status counters); the zombie as a zombie.
  for (std::size_t i = 0; i < children.size(); ++i) {
    const pid_t pid = children[i]->pid();
    const v1::ProcessRecord* a = FindRecord(one, pid);
    const v1::ProcessRecord* b = FindRecord(two, pid);
    ASSERT_NE(a, nullptr) << pid << " not in the --threads 1 capture";
    ASSERT_NE(b, nullptr) << pid << " not in the --threads 2 capture";
    EXPECT_EQ(a->cmdline().data(), cmdlines[i]) << pid;
    EXPECT_EQ(b->cmdline().data(), cmdlines[i]) << pid;
    EXPECT_EQ(a->environ().SerializeAsString(), b->environ().SerializeAsString()) << pid;
    EXPECT_EQ(a->cgroup().SerializeAsString(), b->cgroup().SerializeAsString()) << pid;
    EXPECT_EQ(a->exe().SerializeAsString(), b->exe().SerializeAsString()) << pid;
    EXPECT_EQ(a->pid_ns().SerializeAsString(), b->pid_ns().SerializeAsString()) << pid;
    const std::string prefix =
        std::to_string(pid) + " (sleep) S " + std::to_string(::getpid()) + " ";
    EXPECT_EQ(a->stat().data().rfind(prefix, 0), 0u) << a->stat().data();
    EXPECT_EQ(b->stat().data().rfind(prefix, 0), 0u) << b->stat().data();
  }
  const v1::ProcessRecord* za = FindRecord(one, zombie->pid());
  const v1::ProcessRecord* zb = FindRecord(two, zombie->pid());
  ASSERT_NE(za, nullptr);
  ASSERT_NE(zb, nullptr);
  // A zombie's record is the same in both captures but for status's SigQ
  // line: the pending-signal count of its user, which other processes move.
  auto without_sigq = [](v1::ProcessRecord r) {
    std::string status = r.status().data();
    std::size_t at = status.find("\nSigQ:");
    if (at != std::string::npos) status.erase(at, status.find('\n', at + 1) - at);
    r.mutable_status()->set_data(status);
    return r.SerializeAsString();
  };
  EXPECT_EQ(without_sigq(*za), without_sigq(*zb));

  // Listing order: the pids both captures hold come in the same order in
  // each (ascending, as /proc lists them), each pid once.
  std::set<std::int64_t> in_one, in_two;
  for (const auto& r : one.processes()) EXPECT_TRUE(in_one.insert(r.pid()).second) << r.pid();
  for (const auto& r : two.processes()) EXPECT_TRUE(in_two.insert(r.pid()).second) << r.pid();
  std::vector<std::int64_t> order_one, order_two;
  for (const auto& r : one.processes()) {
    if (in_two.count(r.pid())) order_one.push_back(r.pid());
  }
  for (const auto& r : two.processes()) {
    if (in_one.count(r.pid())) order_two.push_back(r.pid());
  }
  EXPECT_EQ(order_one, order_two);
  EXPECT_TRUE(std::is_sorted(order_two.begin(), order_two.end()));
  EXPECT_GE(order_two.size(), children.size() + 2);  // ours, the zombie, this test
}

TEST(CaptureLive, PidNamespaceIsTheInodeOfProcPidNsPid) {
  Failure failure;
  auto proc = ProcfsEvidence::Open("/proc", &failure);
  ASSERT_NE(proc, nullptr) << failure.message;
  Identity self = proc->PidNamespace(::getpid());
  ASSERT_TRUE(self.ok()) << self.err;
  FileId want = StatOf("/proc/self/ns/pid");
  EXPECT_EQ(self.ino, want.ino);
  EXPECT_EQ(self.dev, want.dev);
  EXPECT_EQ(proc->PidNamespace(2147483647).err, ENOENT);
}

}  // namespace
}  // namespace proctape
