// SPDX-License-Identifier: Apache-2.0
// An import is sealed inside its directory: ProcDirEvidence (what
// `proctape capture --proc-root DIR` reads through) never follows a link out
// of DIR, and never follows an `exe` or `ns/pid` link at all: their identity
// comes only from the side file, the link's text is recorded. Every path
// under DIR is checked: a PID directory, a per-pid file, the two links, the
// side files. The links point to `/`, to `..`, to this host's /proc and
// executables, and to a directory beside DIR that holds a complete, valid
// process: nothing of any of them may reach a record.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "procdir/evidence.h"
#include "capture/frame_scanner.h"

namespace proctape {
namespace {

using namespace std::string_literals;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = "/tmp/proctape-seal-unit-XXXXXX";
    path_ = ::mkdtemp(tmpl.data()) != nullptr ? tmpl : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void Write(const std::string& path, const std::string& data) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << data;
}

void Link(const std::string& target, const std::string& path) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  ASSERT_EQ(::symlink(target.c_str(), path.c_str()), 0) << path;
}

// A complete process of another tool's fixture, every file marked OUTSIDE, and
// a side file that would give it an identity: what a link out of DIR reaches.
void WriteOutsideProcess(const std::string& dir) {
  Write(dir + "/stat", "77 (OUTSIDE) S 1 77 77 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 4242 1 1\n");
  Write(dir + "/cmdline", "OUTSIDE\0"s);
  Write(dir + "/environ", "OUTSIDE=1\0"s);
  Write(dir + "/status", "Name:\tOUTSIDE\n");
  Write(dir + "/cgroup", "0::/OUTSIDE\n");
  Write(dir + "/proctape-identity", "proctape-identity 1\nexe 7:7\npid_ns 7:7\n");
}

struct Scan {
  std::vector<v1::ProcessRecord> records;
  std::string error;
};

// Every record the capture's own scanner makes of `dir`, link texts added as
// `capture --proc-root` adds them.
Scan ScanDir(const std::string& dir) {
  Scan out;
  Failure failure;
  auto ev = ProcDirEvidence::Open(dir, &failure);
  if (!ev) {
    out.error = failure.message;
    return out;
  }
  FrameCallbacks callbacks;
  callbacks.begin = [](std::int64_t) {};
  callbacks.record = [&](v1::ProcessRecord&& r) {
    ev->AddLinkTexts(&r);
    out.records.push_back(std::move(r));
    return true;
  };
  ScanFrame(
      *ev, ScanOptions{}, [&ev](std::int64_t pid) { return ev->PidNamespace(pid); }, callbacks);
  out.error = ev->error();
  return out;
}

const v1::ProcessRecord* Find(const Scan& scan, std::int64_t pid) {
  for (const v1::ProcessRecord& r : scan.records) {
    if (r.pid() == pid) return &r;
  }
  return nullptr;
}

// No byte the record holds came from outside: no file read succeeded.
void ExpectNothingRead(const v1::ProcessRecord& r, int err) {
  for (const v1::FileRead* read :
       {&r.stat(), &r.cmdline(), &r.environ(), &r.status(), &r.cgroup()}) {
    EXPECT_EQ(read->err(), err) << "pid " << r.pid() << "\n" << r.DebugString();
    EXPECT_EQ(read->data(), "") << "pid " << r.pid();
  }
  EXPECT_EQ(r.SerializeAsString().find("OUTSIDE"), std::string::npos) << r.DebugString();
}

TEST(ProcDirSealTest, APidDirectoryThatLinksOutOfTheDirectoryIsNeverFollowed) {
  TempDir tmp;
  const std::string dir = tmp.File("proc");
  WriteOutsideProcess(tmp.File("outside"));
  std::filesystem::create_directories(dir);
  Link("/", dir + "/5");                  // the host's root
  Link("..", dir + "/6");                 // DIR's parent
  Link("/proc/self", dir + "/7");         // this very process
  Link("../outside", dir + "/8");         // a whole process beside DIR
  Link(tmp.File("outside"), dir + "/9");  // the same, absolute
  Link("8/..", dir + "/10");              // a link, then up
  Scan scan = ScanDir(dir);
  EXPECT_EQ(scan.error, "");
  ASSERT_EQ(scan.records.size(), 6u);
  for (const v1::ProcessRecord& r : scan.records) {
    // EXDEV: the kernel refused to resolve a path leaving DIR.
    ExpectNothingRead(r, EXDEV);
    EXPECT_EQ(r.exe().err(), EXDEV) << r.DebugString();
    EXPECT_EQ(r.pid_ns().err(), EXDEV) << r.DebugString();
    EXPECT_EQ(r.exe().dev(), 0u);
    EXPECT_EQ(r.exe().link_text(), "");
  }
}

TEST(ProcDirSealTest, APerPidFileThatIsALinkIsNeverFollowed) {
  TempDir tmp;
  const std::string dir = tmp.File("proc");
  WriteOutsideProcess(tmp.File("outside"));
  Link("/proc/self/stat", dir + "/11/stat");
  Link("../../outside/cmdline", dir + "/11/cmdline");
  Link(tmp.File("outside/environ"), dir + "/11/environ");
  Link("/", dir + "/11/status");
  Link("..", dir + "/11/cgroup");
  Link("../../outside/proctape-identity", dir + "/12/proctape-identity");
  Scan scan = ScanDir(dir);
  const v1::ProcessRecord* r = Find(scan, 11);
  ASSERT_NE(r, nullptr);
  // ELOOP: the last component is a link, and a read never follows one.
  ExpectNothingRead(*r, ELOOP);
  // A side file that is a link is not read through: the capture stops.
  EXPECT_NE(scan.error.find("/12/proctape-identity: "), std::string::npos) << scan.error;
  const v1::ProcessRecord* twelve = Find(scan, 12);
  if (twelve != nullptr) {
    EXPECT_NE(twelve->exe().ino(), 7u);
  }
}

TEST(ProcDirSealTest, ExeAndPidNamespaceLinksAreRecordedAsTextNeverFollowed) {
  TempDir tmp;
  const std::string dir = tmp.File("proc");
  WriteOutsideProcess(tmp.File("outside"));
  Link("/bin/sleep", dir + "/20/exe");
  Link("/proc/self/ns/pid", dir + "/20/ns/pid");
  Link("/proc/self/exe", dir + "/21/exe");
  Link("pid:[4026531836]", dir + "/21/ns/pid");
  Link("/", dir + "/22/exe");
  Link("..", dir + "/23/exe");
  Link("stat", dir + "/24/exe");  // inside DIR: still a link, not followed
  Write(dir + "/24/stat", "24 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 9 1 1\n");
  Write(dir + "/25/exe", "not a link");
  Link("/proc/self/ns", dir + "/26/ns");  // a directory on the way out
  Link("../../outside", dir + "/27/ns");
  Scan scan = ScanDir(dir);
  EXPECT_EQ(scan.error, "");
  struct Want {
    std::int64_t pid;
    int exe_err;
    std::string exe_text;
    int ns_err;
    std::string ns_text;
  };
  for (const Want& w : std::vector<Want>{{20, ELOOP, "/bin/sleep", ELOOP, "/proc/self/ns/pid"},
                                         {21, ELOOP, "/proc/self/exe", ELOOP, "pid:[4026531836]"},
                                         {22, ELOOP, "/", ENOENT, ""},
                                         {23, ELOOP, "..", ENOENT, ""},
                                         {24, ELOOP, "stat", ENOENT, ""},
                                         {25, EINVAL, "", ENOENT, ""},
                                         {26, ENOENT, "", EXDEV, ""},
                                         {27, ENOENT, "", EXDEV, ""}}) {
    const v1::ProcessRecord* r = Find(scan, w.pid);
    ASSERT_NE(r, nullptr) << w.pid;
    EXPECT_EQ(r->exe().err(), w.exe_err) << r->DebugString();
    EXPECT_EQ(r->exe().dev(), 0u) << r->DebugString();
    EXPECT_EQ(r->exe().ino(), 0u) << r->DebugString();
    EXPECT_EQ(r->exe().link_text(), w.exe_text) << r->DebugString();
    EXPECT_EQ(r->pid_ns().err(), w.ns_err) << r->DebugString();
    EXPECT_EQ(r->pid_ns().ino(), 0u) << r->DebugString();
    EXPECT_EQ(r->pid_ns().link_text(), w.ns_text) << r->DebugString();
  }
}

TEST(ProcDirSealTest, TheSideFileAloneGivesAnIdentityAndItsLinkText) {
  TempDir tmp;
  const std::string dir = tmp.File("proc");
  Link("/bin/sleep", dir + "/30/exe");
  Write(dir + "/30/proctape-identity",
        "proctape-identity 1\nexe 8:9\nexe_link /usr/bin/sleep\npid_ns error 13\n");
  Link("/proc/self/ns/pid", dir + "/30/ns/pid");
  Scan scan = ScanDir(dir);
  EXPECT_EQ(scan.error, "");
  ASSERT_EQ(scan.records.size(), 1u);
  const v1::ProcessRecord& r = scan.records[0];
  EXPECT_EQ(r.exe().err(), 0);
  EXPECT_EQ(r.exe().dev(), 8u);
  EXPECT_EQ(r.exe().ino(), 9u);
  EXPECT_EQ(r.exe().link_text(), "/usr/bin/sleep");  // the side file's, not the link's
  EXPECT_EQ(r.pid_ns().err(), EACCES);
  EXPECT_EQ(r.pid_ns().link_text(), "/proc/self/ns/pid");  // no pid_ns_link line: the link's
}

TEST(ProcDirSealTest, AFrameSideFileThatIsALinkIsRefused) {
  TempDir tmp;
  const std::string dir = tmp.File("proc");
  Write(tmp.File("outside/proctape-frame"), "proctape-frame 1\nhostname OUTSIDE\n");
  Link("../outside/proctape-frame", dir + "/proctape-frame");
  Failure failure;
  EXPECT_EQ(ProcDirEvidence::Open(dir, &failure), nullptr);
  EXPECT_EQ(failure.kind, FailureKind::kCorrupt);
  EXPECT_NE(failure.message.find("/proctape-frame: "), std::string::npos) << failure.message;
}

TEST(ProcDirSealTest, NothingOutsideTheDirectoryIsIdentified) {
  TempDir tmp;
  std::filesystem::create_directories(tmp.File("proc"));
  Failure failure;
  auto ev = ProcDirEvidence::Open(tmp.File("proc"), &failure);
  ASSERT_NE(ev, nullptr) << failure.message;
  EXPECT_EQ(ev->PathIdentity("/bin/sleep").err, EXDEV);
  EXPECT_EQ(ev->PathIdentity(tmp.File("proc")).err, EXDEV);
}

}  // namespace
}  // namespace proctape
