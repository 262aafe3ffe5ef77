// SPDX-License-Identifier: Apache-2.0
// `proctape capture --proc-root DIR` as a user runs it on a hostile fixture:
// the import reads nothing outside DIR (links to `/`, to `..`, to this host's
// /proc and executables, a bind mount inside DIR), takes an executable's or a
// pid namespace's identity only from a side file (the link's text is kept),
// and records host facts only from DIR's proctape-frame, never this
// machine's: `show` says "unknown" for each one the directory does not give.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <vector>

#include "format/reader.h"
#include "tests/live/files.h"
#include "tests/live/build_paths.h"

namespace proctape::live {
namespace {

using namespace std::string_literals;

void Link(const std::string& target, const std::string& path) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  ASSERT_EQ(::symlink(target.c_str(), path.c_str()), 0) << path;
}

void Put(const std::string& path, const std::string& data) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  WriteFile(path, data);
}

std::string StatLine(int pid, const std::string& comm) {
  return std::to_string(pid) + " (" + comm + ") S 1 " + std::to_string(pid) + " " +
         std::to_string(pid) + " 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 4242 1 1\n";
}

// Every byte of every chunk of `path`, decompressed.
std::string AllBytes(const std::string& path) {
  FormatError error;
  std::string out;
  for (const std::string& chunk : DecompressedChunks(path, &error)) out += chunk;
  return out;
}

// Facts of this machine that an import must never record.
struct ThisHost {
  std::string hostname, kernel, boot_id;
  FileId sleep, self_exe, pid_ns;
};
ThisHost ThisMachine() {
  ThisHost h;
  struct utsname uts;
  if (::uname(&uts) == 0) {
    h.hostname = uts.nodename;
    h.kernel = uts.release;
  }
  h.boot_id = FileBytes("/proc/sys/kernel/random/boot_id");
  h.sleep = StatOf("/bin/sleep");
  h.self_exe = StatOf("/proc/self/exe");
  h.pid_ns = StatOf("/proc/self/ns/pid");
  return h;
}

TEST(ImportCliTest, LinksOutOfTheDirectoryNeverBringThisHostIntoTheFile) {
  TempDir tmp("import-seal");
  const std::string dir = tmp.File("proc");
  Put(tmp.File("outside/stat"), StatLine(77, "OUTSIDE"));
  Put(tmp.File("outside/cmdline"), "OUTSIDE\0"s);
  Link("/proc/self", dir + "/5");  // a PID directory: this very capture
  Link("/", dir + "/6");
  Link("..", dir + "/7");
  Link("../outside", dir + "/8");
  Put(dir + "/9/stat", StatLine(9, "sleep"));
  Link("/bin/sleep", dir + "/9/exe");  // exe: absolute, to a real executable
  Link("/proc/self/ns/pid", dir + "/9/ns/pid");
  Link("/proc/self/stat", dir + "/10/stat");  // per-pid files
  Link("../../outside/cmdline", dir + "/10/cmdline");
  Link("/proc/self/environ", dir + "/10/environ");
  Link("/proc/self/exe", dir + "/10/exe");
  Link("..", dir + "/11/exe");
  Link("/", dir + "/12/exe");
  CommandResult r = Proctape({"capture", "--proc-root", dir, "-o", tmp.File("f.ptape")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Snapshot s;
  ASSERT_TRUE(ReadSnapshot(tmp.File("f.ptape"), &s).ok());
  ASSERT_EQ(s.frames.size(), 1u);
  ASSERT_EQ(s.frames[0].processes_size(), 8);
  const ThisHost host = ThisMachine();
  for (const v1::ProcessRecord& p : s.frames[0].processes()) {
    const std::string what = "pid " + std::to_string(p.pid()) + "\n" + p.DebugString();
    for (const v1::FileRead* read :
         {&p.stat(), &p.cmdline(), &p.environ(), &p.status(), &p.cgroup()}) {
      if (p.pid() == 9 && read == &p.stat()) continue;
      EXPECT_NE(read->err(), 0) << what;
      EXPECT_EQ(read->data(), "") << what;
    }
    EXPECT_NE(p.exe().err(), 0) << what;
    EXPECT_NE(p.pid_ns().err(), 0) << what;
    for (const FileId& id : {host.sleep, host.self_exe, host.pid_ns}) {
      EXPECT_FALSE(p.exe().dev() == id.dev && p.exe().ino() == id.ino) << what;
      EXPECT_FALSE(p.pid_ns().dev() == id.dev && p.pid_ns().ino() == id.ino) << what;
    }
  }
  const v1::ProcessRecord* sleep = FindRecord(s.frames[0], 9);
  ASSERT_NE(sleep, nullptr);
  EXPECT_EQ(sleep->stat().data(), StatLine(9, "sleep"));
  EXPECT_EQ(sleep->exe().err(), ELOOP);
  EXPECT_EQ(sleep->exe().link_text(), "/bin/sleep");
  EXPECT_EQ(sleep->pid_ns().link_text(), "/proc/self/ns/pid");
  EXPECT_EQ(FindRecord(s.frames[0], 10)->exe().link_text(), "/proc/self/exe");
  const std::string bytes = AllBytes(tmp.File("f.ptape"));
  EXPECT_EQ(bytes.find("OUTSIDE"), std::string::npos);
  EXPECT_EQ(bytes.find("(proctape)"), std::string::npos);  // the capture's own stat
  // The round trip keeps the texts: export, import again, the same records.
  r = Proctape({"export", tmp.File("f.ptape"), "--format", "proc-dir", "--out", tmp.File("x")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(FileBytes(tmp.File("x/9/proctape-identity")),
            "proctape-identity 1\nexe error 40\nexe_link /bin/sleep\npid_ns error 40\n"
            "pid_ns_link /proc/self/ns/pid\ncmdline error 2\nenviron error 2\nstatus error 2\n"
            "cgroup error 2\n");
  r = Proctape({"capture", "--proc-root", tmp.File("x"), "-o", tmp.File("g.ptape")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Snapshot again;
  ASSERT_TRUE(ReadSnapshot(tmp.File("g.ptape"), &again).ok());
  ASSERT_EQ(again.frames[0].processes_size(), s.frames[0].processes_size());
  for (int i = 0; i < s.frames[0].processes_size(); ++i) {
    EXPECT_EQ(again.frames[0].processes(i).SerializeAsString(),
              s.frames[0].processes(i).SerializeAsString());
  }
}

// A mount point inside DIR brings another filesystem in without a link: the
// import does not cross it either.
TEST(ImportCliTest, AMountInsideTheDirectoryIsNotCrossed) {
  if (::geteuid() != 0) GTEST_SKIP() << "a bind mount needs root";
  const std::string unshare = FindOnPath("unshare");
  if (unshare.empty()) GTEST_SKIP() << "no unshare";
  TempDir tmp("import-mount");
  const std::string dir = tmp.File("proc");
  Put(dir + "/3/stat", StatLine(3, "inside"));
  std::filesystem::create_directories(dir + "/1");
  // The bind mount lives in a private mount namespace that ends with the
  // capture (unshare execs it; nothing else is started).
  CommandResult r =
      RunCommand({unshare, "--mount", "--propagation", "private", "sh", "-c",
                  "mount --bind /proc/1 \"$1\" && exec \"$2\" capture --proc-root \"$3\" -o \"$4\"",
                  "sh", dir + "/1", ::proctape::live::TestedBinary(), dir, tmp.File("f.ptape")},
                 60'000);
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Snapshot s;
  ASSERT_TRUE(ReadSnapshot(tmp.File("f.ptape"), &s).ok());
  const v1::ProcessRecord* init = FindRecord(s.frames[0], 1);
  ASSERT_NE(init, nullptr);
  EXPECT_EQ(init->stat().err(), EXDEV) << init->DebugString();
  EXPECT_EQ(init->stat().data(), "");
  EXPECT_EQ(init->exe().err(), EXDEV) << init->DebugString();
  EXPECT_EQ(FindRecord(s.frames[0], 3)->stat().data(), StatLine(3, "inside"));
}

// Host facts of an import come from DIR's proctape-frame or are unknown:
// never this machine's hostname, kernel, boot id, pid_max, clock ticks, page
// size or pid namespace. `show` says "unknown" for each.
TEST(ImportCliTest, AFixtureRecordsNoHostFactOfThisMachine) {
  TempDir tmp("import-facts");
  const std::string dir = tmp.File("proc");
  Put(dir + "/7/stat", StatLine(7, "sh"));
  CommandResult r = Proctape({"capture", "--proc-root", dir, "-o", tmp.File("f.ptape")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Snapshot s;
  ASSERT_TRUE(ReadSnapshot(tmp.File("f.ptape"), &s).ok());
  EXPECT_EQ(s.header.host().SerializeAsString(), "") << s.header.host().DebugString();
  EXPECT_EQ(s.header.capturer_pid_ns_inode(), 0u);
  const ThisHost host = ThisMachine();
  const std::string bytes = AllBytes(tmp.File("f.ptape"));
  EXPECT_EQ(bytes.find(host.boot_id.substr(0, 36)), std::string::npos);
  EXPECT_EQ(bytes.find(host.kernel), std::string::npos);
  r = Proctape({"show", tmp.File("f.ptape")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("\nhost: unknown, kernel unknown, boot_id unknown\n"
                       "  pid_max unknown, clock ticks per second unknown, page size unknown\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(", pid namespace unknown ("), std::string::npos) << r.out;
  r = Proctape({"show", tmp.File("f.ptape"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("\"unknown\":[\"hostname\",\"kernel_release\",\"boot_id\",\"pid_max\","
                       "\"clock_ticks_per_second\",\"page_size\",\"capturer_pid_ns_inode\"]"),
            std::string::npos)
      << r.out;
  // The default name cannot be this machine's either.
  const std::string cwd = tmp.File("cwd");
  std::filesystem::create_directories(cwd);
  r = RunCommand({"/bin/sh", "-c", "cd \"$1\" && exec \"$2\" capture --proc-root \"$3\"", "sh", cwd,
                  ::proctape::live::TestedBinary(), dir});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  for (const auto& e : std::filesystem::directory_iterator(cwd)) {
    EXPECT_EQ(e.path().filename().string().rfind("host-", 0), 0u) << e.path();
  }
}

// A proctape-frame gives the facts it holds, and only those; the capturer's
// pid namespace (the namespace whose pids the frame holds) comes back from an
// export.
TEST(ImportCliTest, TheFrameSideFileGivesTheFactsItHoldsAndNoOthers) {
  TempDir tmp("import-frame");
  const std::string dir = tmp.File("proc");
  Put(dir + "/7/stat", StatLine(7, "sh"));
  Put(dir + "/proctape-frame", "proctape-frame 1\nhostname ci-1\nclock_ticks_per_second 100\n");
  CommandResult r = Proctape({"capture", "--proc-root", dir, "-o", tmp.File("f.ptape")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Snapshot s;
  ASSERT_TRUE(ReadSnapshot(tmp.File("f.ptape"), &s).ok());
  v1::HostFacts want;
  want.set_hostname("ci-1");
  want.set_clock_ticks_per_second(100);
  EXPECT_EQ(s.header.host().SerializeAsString(), want.SerializeAsString())
      << s.header.host().DebugString();
  EXPECT_EQ(s.header.capturer_pid_ns_inode(), 0u);

  // An export of a recording made in a sandbox's namespace.
  const std::string corpus = std::string(PROCTAPE_SOURCE_DIR) + "/corpus/b552a8b49f217079.ptape";
  Snapshot original;
  ASSERT_TRUE(ReadSnapshot(corpus, &original).ok());
  ASSERT_NE(original.header.capturer_pid_ns_inode(), 0u);
  r = Proctape({"export", corpus, "--format", "proc-dir", "--out", tmp.File("x")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(FileBytes(tmp.File("x/proctape-frame"))
                .find("\ncapturer_pid_ns_inode " +
                      std::to_string(original.header.capturer_pid_ns_inode()) + "\n"),
            std::string::npos);
  r = Proctape({"capture", "--proc-root", tmp.File("x"), "-o", tmp.File("g.ptape")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Snapshot again;
  ASSERT_TRUE(ReadSnapshot(tmp.File("g.ptape"), &again).ok());
  EXPECT_EQ(again.header.host().SerializeAsString(), original.header.host().SerializeAsString());
  EXPECT_EQ(again.header.capturer_pid_ns_inode(), original.header.capturer_pid_ns_inode());
}

// A FIFO or a device in DIR is a damaged entry (EINVAL), read by no one:
// opened O_NONBLOCK, its type checked before a read, so the capture never
// waits for a writer that will not come, and leaves no temporary.
TEST(ImportCliTest, FifoOrDeviceInTheDirectoryIsADamagedEntryNeverABlock) {
  TempDir tmp("import-fifo");
  const std::string dir = tmp.File("proc");
  std::filesystem::create_directories(dir + "/9");
  ASSERT_EQ(::mkfifo((dir + "/9/stat").c_str(), 0600), 0);  // PID/stat a FIFO
  Put(dir + "/10/stat", StatLine(10, "sleep"));
  ASSERT_EQ(::mkfifo((dir + "/10/cmdline").c_str(), 0600), 0);  // cmdline a FIFO
  ASSERT_EQ(::mknod((dir + "/10/environ").c_str(), S_IFCHR | 0600, ::makedev(1, 3)), 0);
  std::filesystem::create_directories(tmp.File("out"));
  CommandResult r =
      Proctape({"capture", "--proc-root", dir, "-o", tmp.File("out/f.ptape")}, 30'000);
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Snapshot s;
  ASSERT_TRUE(ReadSnapshot(tmp.File("out/f.ptape"), &s).ok());
  ASSERT_EQ(s.frames.size(), 1u);
  const v1::ProcessRecord* nine = FindRecord(s.frames[0], 9);
  const v1::ProcessRecord* ten = FindRecord(s.frames[0], 10);
  ASSERT_NE(nine, nullptr);
  ASSERT_NE(ten, nullptr);
  EXPECT_EQ(nine->stat().err(), EINVAL);
  EXPECT_EQ(ten->stat().data(), StatLine(10, "sleep"));
  EXPECT_EQ(ten->cmdline().err(), EINVAL);
  EXPECT_EQ(ten->environ().err(), EINVAL);
  for (const auto& entry : std::filesystem::directory_iterator(tmp.File("out"))) {
    EXPECT_EQ(entry.path().filename(), "f.ptape");  // no NAME.XXXXXX.partial
  }
}

// A side file that is a FIFO is refused as one that is not a regular file.
TEST(ImportCliTest, SideFileThatIsAFifoIsRefusedNeverABlock) {
  TempDir tmp("import-fifo-side");
  const std::string dir = tmp.File("proc");
  std::filesystem::create_directories(dir);
  ASSERT_EQ(::mkfifo((dir + "/proctape-frame").c_str(), 0600), 0);
  std::filesystem::create_directories(tmp.File("out"));
  CommandResult r =
      Proctape({"capture", "--proc-root", dir, "-o", tmp.File("out/f.ptape")}, 30'000);
  EXPECT_NE(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << Describe(r);
  EXPECT_TRUE(std::filesystem::is_empty(tmp.File("out")));
}

// Kept environment values are the owner's only: capture --env keep creates
// its file 0600, and what is exported from it is 0600 too, said on stderr;
// a redacted capture stays 0644 (less the umask).
TEST(ImportCliTest, FilesKeepingEnvironmentValuesAreCreated0600) {
  TempDir tmp("import-mode");
  const std::string dir = tmp.File("proc");
  Put(dir + "/9/stat", StatLine(9, "sleep"));
  Put(dir + "/9/environ", "SECRET=1\0"s);
  const mode_t old = ::umask(022);
  CommandResult r = Proctape(
      {"capture", "--proc-root", dir, "--env", "keep", "-o", tmp.File("kept.ptape")}, 30'000);
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  r = Proctape({"capture", "--proc-root", dir, "-o", tmp.File("redacted.ptape")}, 30'000);
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  CommandResult json =
      Proctape({"export", tmp.File("kept.ptape"), "--format", "json", "-o", tmp.File("kept.json")});
  CommandResult plain = Proctape(
      {"export", tmp.File("redacted.ptape"), "--format", "json", "-o", tmp.File("plain.json")});
  ::umask(old);
  ASSERT_EQ(json.exit_code, 0) << Describe(json);
  ASSERT_EQ(plain.exit_code, 0) << Describe(plain);
  auto mode = [](const std::string& path) {
    struct stat st;
    EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
  };
  EXPECT_EQ(mode(tmp.File("kept.ptape")), 0600u);
  EXPECT_EQ(mode(tmp.File("kept.json")), 0600u);
  EXPECT_NE(json.err.find("mode 0600"), std::string::npos) << Describe(json);
  EXPECT_EQ(mode(tmp.File("redacted.ptape")), 0644u);
  EXPECT_EQ(mode(tmp.File("plain.json")), 0644u);
  EXPECT_EQ(plain.err.find("0600"), std::string::npos) << Describe(plain);
}

}  // namespace
}  // namespace proctape::live
