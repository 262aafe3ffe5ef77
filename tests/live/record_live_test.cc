// SPDX-License-Identifier: Apache-2.0
// `proctape resolve --record FILE` and `proctape liveness --record FILE` on a
// real PID-namespace sandbox (`docs/format.md` sections 5, 6 and 11): the file
// reads back whole with its header, the frames taken before and after, the tape
// of every call the resolver made, and the request and verdict; the tape has
// the resolver's shape; the token entry is kept verbatim while every other
// environ value is starred. The secret, the liveness recording and where a
// recording goes are record_secret_, record_liveness_ and
// record_outputs_live_test.cc; the sandbox is record_live_fixture.h's. Every
// process a test starts is ended by its pid (sandbox.h).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "format/file_format.h"
#include "format/reader.h"
#include "tests/live/files.h"
#include "tests/live/record_live_fixture.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::Describe;
using live::Exists;
using live::FileBytes;
using live::FileId;
using live::FindRecord;
using live::kSecretVar;
using live::RecordLiveTest;
using live::SandboxKind;
using live::StartsWith;
using live::StatOf;

using live::Proctape;

std::vector<std::string> SplitNul(const std::string& s) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t end = s.find('\0', pos);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

// Every environ entry is either `kept` verbatim or KEY= followed by '*' only.
// Returns the first entry that is neither, or nullopt.
std::optional<std::string> UnredactedEntry(const std::string& environ, const std::string& kept) {
  for (const std::string& entry : SplitNul(environ)) {
    if (entry == kept) continue;
    std::size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;  // no value to hide
    if (entry.find_first_not_of('*', eq + 1) != std::string::npos) return entry;
  }
  return std::nullopt;
}

// The pids from `pid` up its parent chain to `root` (both included), as the
// kernel shows them now; empty if the chain does not reach the root.
std::vector<std::int64_t> ChainToRoot(pid_t pid, pid_t root) {
  std::vector<std::int64_t> out;
  for (pid_t p = pid; out.size() < 64;) {
    out.push_back(p);
    if (p == root) return out;
    std::optional<live::ProcStat> st = live::ReadStat(p);
    if (!st || st->ppid <= 0) break;
    p = st->ppid;
  }
  return {};
}

TEST_P(RecordLiveTest, ResolveRecordReadsBackWithHeaderFramesTapeAndVerdict) {
  const std::string file = dir_.File("resolve.ptape");
  const std::vector<std::string> args = {"resolve",         "--root",   Root(), "--token",
                                         sandbox_->token(), "--record", file};
  CommandResult r = Proctape(args);
  ASSERT_TRUE(r.started) << r.error;
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(StartsWith(r.out, "RESOLVED host pid " + Pid() + ", start tick " + Start()))
      << Describe(r);
  EXPECT_FALSE(Exists(file + ".partial"));

  Snapshot snap;
  FormatError err = ReadSnapshot(file, &snap);
  ASSERT_TRUE(err.ok()) << err.message;
  ASSERT_TRUE(snap.footer.has_value());

  // ---- Header: host facts, capturer, bounds, redaction, command line.
  const v1::Header& h = snap.header;
  EXPECT_EQ(h.format_version(), kFormatVersion);
  EXPECT_FALSE(h.tool_version().empty());
  EXPECT_EQ(h.host().boot_id(), FileBytes("/proc/sys/kernel/random/boot_id"));
  EXPECT_EQ(h.host().clock_ticks_per_second(), ::sysconf(_SC_CLK_TCK));
  EXPECT_EQ(h.host().page_size(), ::sysconf(_SC_PAGESIZE));
  struct utsname uts;
  ASSERT_EQ(::uname(&uts), 0);
  EXPECT_EQ(h.host().hostname(), std::string(uts.nodename));
  EXPECT_EQ(h.host().kernel_release(), std::string(uts.release));
  EXPECT_GT(h.host().pid_max(), 0);
  EXPECT_GT(h.capturer_pid(), 0);
  EXPECT_NE(h.capturer_pid(), ::getpid());
  EXPECT_EQ(h.capturer_uid(), ::getuid());
  EXPECT_EQ(h.capturer_pid_ns_inode(), StatOf("/proc/self/ns/pid").ino);
  EXPECT_GT(h.capture_start_realtime_ns(), 1'600'000'000LL * 1'000'000'000LL);
  EXPECT_EQ(h.bounds().stat_bytes(), 4096u);
  EXPECT_EQ(h.bounds().cmdline_bytes(), 65536u);
  EXPECT_EQ(h.bounds().environ_bytes(), 65536u);
  EXPECT_EQ(h.bounds().status_bytes(), 16384u);
  EXPECT_EQ(h.bounds().max_nodes(), 65536u);
  EXPECT_EQ(h.bounds().max_proc_entries(), 65536u);
  EXPECT_EQ(h.bounds().byte_budget(), 1u << 30);
  EXPECT_EQ(h.redaction().environ(), v1::RedactionPolicy::ENVIRON_REDACTED);
  ASSERT_EQ(h.redaction().kept_entries_size(), 1);
  EXPECT_EQ(h.redaction().kept_entries(0), TokenEntry());
  ASSERT_EQ(h.command_line_size(), static_cast<int>(args.size()) + 1);
  EXPECT_EQ(h.command_line(0), ::proctape::live::TestedBinary());
  for (std::size_t i = 0; i < args.size(); ++i) {
    EXPECT_EQ(h.command_line(static_cast<int>(i) + 1), args[i]) << i;
  }

  // ---- One resolution: the request as asked, RESOLVED to the true host pid.
  ASSERT_EQ(snap.resolutions.size(), 1u);
  const v1::Resolution& res = snap.resolutions[0];
  ASSERT_TRUE(res.has_resolve());
  const v1::ResolutionRequest& req = res.resolve();
  EXPECT_EQ(req.root_pid(), sandbox_->app_server());
  std::optional<live::ProcStat> root_stat = live::ReadStat(sandbox_->app_server());
  ASSERT_TRUE(root_stat.has_value());
  EXPECT_EQ(req.root_start_ticks(), root_stat->start_ticks);
  EXPECT_EQ(req.token(), sandbox_->token());
  EXPECT_EQ(req.token_var(), "PROCTAPE_TOKEN");
  ASSERT_EQ(req.argv_size(), 2);
  EXPECT_EQ(req.argv(0), "/bin/sleep");
  EXPECT_EQ(req.argv(1), "120");
  EXPECT_EQ(req.exe_path(), "/bin/sleep");
  FileId sleep_exe = StatOf("/bin/sleep");
  EXPECT_EQ(req.exe_identity().err(), 0);
  EXPECT_EQ(req.exe_identity().dev(), sleep_exe.dev);
  EXPECT_EQ(req.exe_identity().ino(), sleep_exe.ino);
  EXPECT_EQ(req.bounds().deadline_ns(), 5'000'000'000);
  ASSERT_TRUE(res.has_verdict());
  const v1::Verdict& verdict = res.verdict();
  EXPECT_EQ(verdict.status(), v1::Verdict::RESOLVED) << verdict.detail();
  EXPECT_EQ(verdict.pid(), sandbox_->sleep_pid());
  EXPECT_NE(verdict.pid(), sandbox_->marker()) << "the marker is a namespace pid";
  EXPECT_EQ(verdict.start_ticks(), sandbox_->sleep_start());
  EXPECT_EQ(verdict.attempts(), 1u);
  EXPECT_LE(res.start_mono_ns(), res.end_mono_ns());

  // ---- Two frames, one before and one after the resolution, both with the sleep.
  ASSERT_EQ(snap.frames.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const v1::Frame& f = snap.frames[i];
    EXPECT_EQ(f.index(), i);
    EXPECT_TRUE(f.complete()) << i;
    EXPECT_EQ(f.cut_reason(), "") << i;
    EXPECT_LE(f.scan_start_mono_ns(), f.scan_end_mono_ns()) << i;
    EXPECT_GE(f.scan_start_mono_ns(), h.capture_start_mono_ns()) << i;
    const v1::ProcessRecord* sleep = FindRecord(f, sandbox_->sleep_pid());
    ASSERT_NE(sleep, nullptr) << "frame " << i << " lacks the sleep " << Pid();
    EXPECT_EQ(sleep->cmdline().data(), std::string("/bin/sleep\0"
                                                   "120\0",
                                                   15))
        << i;
    EXPECT_TRUE(sleep->environ().redacted()) << i;
    EXPECT_NE(sleep->environ().data().find(TokenEntry()), std::string::npos) << i;
    EXPECT_EQ(UnredactedEntry(sleep->environ().data(), TokenEntry()), std::nullopt) << i;
    // The capturer's own record, with its exact command line.
    const v1::ProcessRecord* self = FindRecord(f, h.capturer_pid());
    ASSERT_NE(self, nullptr) << "frame " << i << " lacks the capturer";
    std::string expected_cmdline = std::string(::proctape::live::TestedBinary()) + '\0';
    for (const std::string& a : args) expected_cmdline.append(a).push_back('\0');
    EXPECT_EQ(self->cmdline().data(), expected_cmdline) << i;
  }
  EXPECT_LE(snap.frames[0].scan_end_mono_ns(), res.start_mono_ns());
  EXPECT_GE(snap.frames[1].scan_start_mono_ns(), res.end_mono_ns());

  // ---- The tape: every call, indexed 0..n-1, in time order, within the resolution.
  const auto& all = snap.observations;
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(res.first_observation(), 0u);
  EXPECT_EQ(res.observation_count(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].index(), i);
    if (i > 0) {
      EXPECT_GE(all[i].mono_ns(), all[i - 1].mono_ns()) << "observation " << i;
    }
    EXPECT_GE(all[i].mono_ns(), res.start_mono_ns()) << i;
    EXPECT_LE(all[i].mono_ns(), res.end_mono_ns()) << i;
  }
  EXPECT_EQ(snap.footer->frames(), 2u);
  EXPECT_EQ(snap.footer->observations(), all.size());
  EXPECT_EQ(snap.footer->resolutions(), 1u);
  EXPECT_EQ(snap.footer->chunks(), snap.chunks - 1);

  // No --root-start was given, so the tape begins with the root's fingerprint:
  // one stat read of the root, whose start time the request then holds.
  ASSERT_TRUE(res.resolve().fingerprint_on_tape());
  ASSERT_FALSE(snap.observations.empty());
  const v1::Observation& fingerprint = snap.observations[0];
  ASSERT_TRUE(fingerprint.has_read_file());
  EXPECT_EQ(fingerprint.read_file().pid(), sandbox_->app_server());
  EXPECT_EQ(fingerprint.read_file().file(), v1::PROC_FILE_STAT);
  const std::vector<v1::Observation> tape(snap.observations.begin() + 1, snap.observations.end());

  // Then the resolver's shape: Now (the deadline's start), ListPids, stat reads;
  // the sleep's cmdline and environ; its exe identity; then stat re-reads of
  // the sleep and each ancestor up to the root, the last ReadFile of all.
  ASSERT_TRUE(tape[0].has_now());
  EXPECT_EQ(tape[0].now().result_ns(), tape[0].mono_ns());
  ASSERT_GE(tape.size(), 2u);
  ASSERT_TRUE(tape[1].has_list_pids());
  const auto& list = tape[1].list_pids();
  EXPECT_EQ(list.err(), 0);
  EXPECT_FALSE(list.truncated());
  EXPECT_EQ(list.bound(), 65536u);
  bool listed_sleep = false, listed_root = false;
  for (const std::string& name : list.names()) {
    listed_sleep |= name == Pid();
    listed_root |= name == Root();
  }
  EXPECT_TRUE(listed_sleep);
  EXPECT_TRUE(listed_root);

  std::uint64_t bytes_read = 0;
  std::size_t list_calls = 0, stat_reads = 0;
  std::optional<std::size_t> first_read, last_read, exe_call, sleep_cmdline, sleep_environ;
  for (std::size_t i = 0; i < tape.size(); ++i) {
    const v1::Observation& o = tape[i];
    ASSERT_NE(o.call_case(), v1::Observation::CALL_NOT_SET) << i;
    EXPECT_FALSE(o.has_sleep_until()) << "a retry in a first-attempt resolution, at " << i;
    if (o.has_list_pids()) {
      ++list_calls;
      // What the listing read, recorded beside its names: every directory
      // entry with its record (docs/resolver.md), more than the names.
      std::uint64_t names = 0;
      for (const std::string& name : o.list_pids().names()) names += name.size();
      EXPECT_GT(o.list_pids().bytes(), names) << i;
      EXPECT_FALSE(o.list_pids().stopped_at_bytes() || o.list_pids().stopped_at_deadline()) << i;
      bytes_read += o.list_pids().bytes();
    }
    if (o.has_exe_identity()) {
      EXPECT_FALSE(exe_call.has_value()) << "a second exe identity at " << i;
      exe_call = i;
      EXPECT_EQ(o.exe_identity().pid(), sandbox_->sleep_pid());
      EXPECT_EQ(o.exe_identity().result().err(), 0);
      EXPECT_EQ(o.exe_identity().result().dev(), sleep_exe.dev);
      EXPECT_EQ(o.exe_identity().result().ino(), sleep_exe.ino);
    }
    if (!o.has_read_file()) continue;
    const auto& rf = o.read_file();
    if (!first_read) first_read = i;
    last_read = i;
    bytes_read += rf.result().data().size() + (rf.result().truncated() ? 1 : 0);
    if (rf.file() == v1::PROC_FILE_STAT) {
      ++stat_reads;
      EXPECT_EQ(rf.result().bound(), 4096u) << i;
      if (rf.result().err() == 0) {
        EXPECT_TRUE(StartsWith(rf.result().data(), std::to_string(rf.pid()) + " ("))
            << i << ": " << rf.result().data();
      }
    }
    if (rf.pid() == sandbox_->sleep_pid() && rf.file() == v1::PROC_FILE_CMDLINE) {
      sleep_cmdline = i;
      EXPECT_EQ(rf.result().data(), std::string("/bin/sleep\0"
                                                "120\0",
                                                15));
    }
    if (rf.file() == v1::PROC_FILE_ENVIRON) {
      EXPECT_TRUE(rf.result().redacted()) << i;
      EXPECT_EQ(UnredactedEntry(rf.result().data(), TokenEntry()), std::nullopt) << i;
      if (rf.pid() == sandbox_->sleep_pid()) {
        sleep_environ = i;
        std::optional<std::string> live_env = live::ReadProc(sandbox_->sleep_pid(), "environ");
        ASSERT_TRUE(live_env.has_value());
        EXPECT_EQ(rf.result().data().size(), live_env->size());
        // The token entry verbatim, the secret starred with its length kept.
        EXPECT_NE(rf.result().data().find(TokenEntry()), std::string::npos);
        EXPECT_NE(rf.result().data().find(std::string(kSecretVar) + "=" +
                                          std::string(secret_.size(), '*')),
                  std::string::npos);
      }
    }
  }
  EXPECT_EQ(list_calls, verdict.attempts());
  // Redaction keeps lengths, so the tape holds exactly the bytes the resolver
  // counted: what each listing read and the bytes of every read (and the
  // byte past the bound that tells a truncated one).
  EXPECT_EQ(bytes_read, verdict.bytes_read());
  ASSERT_TRUE(first_read.has_value());
  EXPECT_GT(*first_read, 1u);
  EXPECT_EQ(tape[*first_read].read_file().file(), v1::PROC_FILE_STAT);
  ASSERT_TRUE(sleep_cmdline && sleep_environ && exe_call) << "the sleep was not inspected";
  EXPECT_LT(*sleep_cmdline, *sleep_environ);
  EXPECT_LT(*sleep_environ, *exe_call);
  // After the exe identity: exactly the chain sleep -> ... -> root, by stat.
  std::vector<std::int64_t> chain = ChainToRoot(sandbox_->sleep_pid(), sandbox_->app_server());
  ASSERT_GE(chain.size(), 2u);
  std::vector<std::int64_t> reread;
  for (std::size_t i = *exe_call + 1; i < tape.size(); ++i) {
    if (!tape[i].has_read_file()) continue;
    EXPECT_EQ(tape[i].read_file().file(), v1::PROC_FILE_STAT) << i;
    reread.push_back(tape[i].read_file().pid());
  }
  EXPECT_EQ(reread, chain);
  ASSERT_TRUE(last_read.has_value());
  EXPECT_EQ(tape[*last_read].read_file().file(), v1::PROC_FILE_STAT);
  EXPECT_EQ(tape[*last_read].read_file().pid(), sandbox_->app_server());
  // The scan's stat pass read every listed pid but init (the resolver skips 1),
  // then the re-reads.
  std::size_t listed = 0;
  for (const std::string& name : list.names()) listed += name != "1";
  EXPECT_EQ(stat_reads, listed + chain.size());

  // `proctape verify` agrees.
  CommandResult v = Proctape({"verify", file});
  EXPECT_EQ(v.exit_code, 0) << Describe(v);
  EXPECT_NE(v.out.find(": intact: "), std::string::npos) << Describe(v);
}

std::string ParamName(const ::testing::TestParamInfo<SandboxKind>& param) {
  return live::SandboxName(param.param);
}

// Every RecordLiveTest, those of record_secret_, record_liveness_ and
// record_outputs_live_test.cc too, in both sandboxes.
INSTANTIATE_TEST_SUITE_P(RecordLive, RecordLiveTest,
                         ::testing::Values(SandboxKind::kUnshare, SandboxKind::kBwrap), ParamName);

}  // namespace
}  // namespace proctape
