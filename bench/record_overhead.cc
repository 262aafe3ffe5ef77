// record_overhead: what recording costs a live resolution (issue 3, section 3:
// "Recording must not change what the resolver does ... and its overhead is
// measured in a benchmark").
//
//   record_overhead [--rounds R] [--warmup W] [--dir DIR] [--no-frames]
//
// The bench is its own root: it starts one child, /bin/sleep 120 with
// PROCTAPE_TOKEN=<random> in a CI-like environment (PR_SET_PDEATHSIG=SIGKILL,
// ended by its pid and reaped at exit), fingerprints itself, and resolves that
// child on the live host, R rounds after W discarded warm-up rounds. Each round
// runs every mode once, in alternation (the first mode rotates every round):
//
//   plain   Resolve(ProcfsEvidence)                        what `resolve` does
//   tape    the real recording path of the tape: SnapshotWriter::Create of a
//           file in DIR, WriteHeader, Resolve through a RecordingEvidence
//           whose sink is SnapshotWriter::AddObservation, WriteResolution,
//           Finish (footer, fsync, rename). Timed whole, and the Resolve call
//           alone ("tape resolve").
//   record  RecordLive: all of `resolve --record FILE`, i.e. the tape plus a
//           whole-host frame before and after (skipped with --no-frames).
//   lib     the library's call (include/proctape/live.h): api::Resolve with
//           Record::kNever, all of it (opening /proc, the boot id check).
//   lib-onfail  api::Resolve with Record::kOnFailure to a file in DIR: the
//           tape streamed to a temporary that is removed on RESOLVED (the
//           file must not exist afterwards). Compared with lib and plain.
//
// Every run must be RESOLVED to the child's pid; any other verdict aborts the
// bench. Afterwards one tape file is read back (ReadSnapshot) and checked:
// intact, one Resolution, observation_count == observations.
//
// Output (stdout): a human summary, then one line
//   RESULT key=value ...
// for bench/record_bench.sh. Times are CLOCK_MONOTONIC wall time, medians
// over the R rounds; ratios are median/median and the median of per-round
// ratios. The idle processes that make the host busy are not started here:
// bench/record_bench.sh starts them (bench/spawn_idle) before running this.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "capture/live_record.h"
#include "capture/procfs_evidence.h"
#include "capture/recorder.h"
#include "core/resolver.h"
#include "format/reader.h"
#include "format/writer.h"
#include "proctape/live.h"
#include "proto/convert.h"

namespace proctape {
namespace {

std::int64_t MonoNs() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The sleep child, ended by Die too (it is our unreaped child: its pid
// cannot have been reused).
pid_t g_child = -1;

void EndChild() {
  if (g_child <= 0) return;
  ::kill(g_child, SIGKILL);
  while (::waitpid(g_child, nullptr, 0) < 0 && errno == EINTR) {
  }
  g_child = -1;
}

// CPU time of this thread (the resolver's) and of the whole process (the
// frame scans of RecordLive use worker threads).
std::int64_t CpuNs(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
std::int64_t ThreadCpuNs() { return CpuNs(CLOCK_THREAD_CPUTIME_ID); }
std::int64_t ProcessCpuNs() { return CpuNs(CLOCK_PROCESS_CPUTIME_ID); }

[[noreturn]] void Die(const std::string& why) {
  std::fprintf(stderr, "record_overhead: %s\n", why.c_str());
  EndChild();
  std::exit(1);
}

std::string RandomHex(std::size_t bytes) {
  std::random_device rd;
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < bytes; ++i) {
    unsigned v = rd() & 0xff;
    out.push_back(kHex[v >> 4]);
    out.push_back(kHex[v & 0xf]);
  }
  return out;
}

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The one child: /bin/sleep 120 with the token, ended by its pid (it is our
// unreaped child, so the pid cannot have been reused) and reaped.
class SleepChild {
 public:
  explicit SleepChild(const std::string& token) {
    std::vector<std::string> env = {
        "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME=/home/runner", "CI=true", "GITHUB_ACTIONS=true",
        "GITHUB_WORKSPACE=/home/runner/work/proctape/proctape",
        "RUNNER_TEMP=/home/runner/work/_temp", "LANG=C.UTF-8",
        "ACTIONS_RUNTIME_TOKEN=" + RandomHex(256), "PROCTAPE_TOKEN=" + token};
    std::vector<char*> cenv;
    for (std::string& e : env) cenv.push_back(e.data());
    cenv.push_back(nullptr);
    char arg0[] = "/bin/sleep";
    char arg1[] = "120";
    char* argv[] = {arg0, arg1, nullptr};
    pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid < 0) Die(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);
      int devnull = ::open("/dev/null", O_RDWR);
      if (devnull >= 0) {
        ::dup2(devnull, 0);
        ::dup2(devnull, 1);
      }
      ::execve(argv[0], argv, cenv.data());
      ::_exit(127);
    }
    g_child = pid_ = pid;
    // Ready once the exec is done: /proc/PID/cmdline is the sleep's.
    const std::string cmdline("/bin/sleep\0" "120\0", 15);
    const std::string path = "/proc/" + std::to_string(pid_) + "/cmdline";
    for (std::int64_t until = MonoNs() + 5'000'000'000; ReadWhole(path) != cmdline;) {
      if (MonoNs() > until) Die("the sleep child did not exec within 5 s");
      ::usleep(1000);
    }
  }
  ~SleepChild() { EndChild(); }
  SleepChild(const SleepChild&) = delete;
  SleepChild& operator=(const SleepChild&) = delete;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

struct Run {
  std::int64_t wall_ns = 0;      // the whole mode
  std::int64_t resolve_ns = 0;   // the Resolve call alone
  std::int64_t cpu_ns = 0;       // process CPU time of the whole mode
  std::int64_t resolve_cpu_ns = 0;  // thread CPU time of the Resolve call
  std::uint64_t observations = 0;
  std::uint64_t bytes = 0;       // file bytes written
  std::uint64_t bytes_read = 0;  // /proc bytes the resolver read
  std::uint64_t listed = 0;      // /proc entries its ListPids returned (tape only)
};

void CheckVerdict(const Verdict& v, pid_t want, const char* mode) {
  if (!v.resolved() || v.pid != want) {
    Die(std::string(mode) + ": expected RESOLVED " + std::to_string(want) + ", got " +
        std::string(StatusName(v.status)) + " pid " + std::to_string(v.pid) + ": " + v.detail);
  }
}

Run RunPlain(ProcfsEvidence& live, const Request& request, pid_t want) {
  Run out;
  std::int64_t c0 = ProcessCpuNs(), tc0 = ThreadCpuNs();
  std::int64_t t0 = MonoNs();
  Verdict v = Resolve(live, request);
  out.wall_ns = out.resolve_ns = MonoNs() - t0;
  out.resolve_cpu_ns = ThreadCpuNs() - tc0;
  out.cpu_ns = ProcessCpuNs() - c0;
  CheckVerdict(v, want, "plain");
  out.bytes_read = v.bytes_read;
  return out;
}

Run RunTape(ProcfsEvidence& live, const Request& request, const std::string& token_entry,
            const std::string& path, pid_t want) {
  Run out;
  std::int64_t c0 = ProcessCpuNs();
  std::int64_t t0 = MonoNs();
  SnapshotWriter::Options wopts;
  wopts.force = true;
  std::string error;
  auto writer = SnapshotWriter::Create(path, wopts, &error);
  if (!writer) Die("tape: " + error);
  ScanOptions scan;
  scan.kept_entries = {token_entry};
  v1::Header header;
  FillHeader(scan, "/proc", {"record_overhead"}, &header);
  if (!writer->WriteHeader(header)) Die("tape: " + writer->error());
  RecorderOptions ropts;
  ropts.kept_entries = {token_entry};
  RecordingEvidence recorder(
      live,
      [&writer, &out](v1::Observation&& o) {
        if (o.has_list_pids()) out.listed = static_cast<std::uint64_t>(o.list_pids().names_size());
        writer->AddObservation(std::move(o));
      },
      ropts);
  v1::Resolution resolution;
  *resolution.mutable_resolve() = ToProto(request);
  resolution.set_first_observation(0);
  resolution.set_start_mono_ns(live.NowNs());
  std::int64_t r0 = MonoNs(), rc0 = ThreadCpuNs();
  Verdict v = Resolve(recorder, request);
  out.resolve_ns = MonoNs() - r0;
  out.resolve_cpu_ns = ThreadCpuNs() - rc0;
  resolution.set_end_mono_ns(live.NowNs());
  *resolution.mutable_verdict() = ToProto(v);
  resolution.set_observation_count(recorder.observations());
  if (!writer->error().empty()) Die("tape: " + writer->error());
  if (!writer->WriteResolution(resolution)) Die("tape: " + writer->error());
  v1::Footer footer;
  footer.set_capture_end_mono_ns(live.NowNs());
  if (!writer->Finish(footer)) Die("tape: " + writer->error());
  out.wall_ns = MonoNs() - t0;
  out.cpu_ns = ProcessCpuNs() - c0;
  CheckVerdict(v, want, "tape");
  out.observations = recorder.observations();
  out.bytes = writer->bytes_written();
  out.bytes_read = v.bytes_read;
  return out;
}

Run RunRecordLive(ProcfsEvidence& live, const Request& request, const std::string& token_entry,
                  const std::string& path, pid_t want) {
  Run out;
  LiveRecordOptions options;
  options.path = path;
  options.force = true;
  options.command_line = {"record_overhead"};
  options.kept_entries = {token_entry};
  Verdict v;
  std::string error;
  std::int64_t c0 = ProcessCpuNs();
  std::int64_t t0 = MonoNs();
  bool ok = RecordLive(
      live, options,
      [&](Evidence& ev, v1::Resolution* r) {
        *r->mutable_resolve() = ToProto(request);
        std::int64_t r0 = MonoNs(), rc0 = ThreadCpuNs();
        v = Resolve(ev, request);
        out.resolve_ns = MonoNs() - r0;
        out.resolve_cpu_ns = ThreadCpuNs() - rc0;
        *r->mutable_verdict() = ToProto(v);
      },
      &error);
  out.wall_ns = MonoNs() - t0;
  out.cpu_ns = ProcessCpuNs() - c0;
  if (!ok) Die("record: " + error);
  CheckVerdict(v, want, "record");
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) out.bytes = static_cast<std::uint64_t>(st.st_size);
  out.bytes_read = v.bytes_read;
  return out;
}

Run RunLibrary(const api::Fingerprint& fingerprint, const std::string& token,
               const api::RecordPolicy& policy, pid_t want) {
  Run out;
  api::Request request;
  request.token = token;
  std::int64_t c0 = ProcessCpuNs(), tc0 = ThreadCpuNs();
  std::int64_t t0 = MonoNs();
  api::ResolveResult r = api::Resolve(request, fingerprint, policy);
  out.wall_ns = out.resolve_ns = MonoNs() - t0;
  out.resolve_cpu_ns = ThreadCpuNs() - tc0;
  out.cpu_ns = ProcessCpuNs() - c0;
  if (!r.ok()) Die("lib: " + r.error.message);
  if (!r.verdict.resolved() || r.verdict.pid != want) {
    Die("lib: expected RESOLVED " + std::to_string(want) + ", got " +
        std::string(api::StatusName(r.verdict.status)) + ": " + r.verdict.detail);
  }
  if (!r.recording.empty() || std::filesystem::exists(policy.path)) {
    Die("lib-onfail: a RESOLVED verdict left a recording");
  }
  out.bytes_read = r.verdict.bytes_read;
  return out;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

template <typename F>
std::vector<double> Column(const std::vector<Run>& runs, F f) {
  std::vector<double> out;
  for (const Run& r : runs) out.push_back(f(r));
  return out;
}

std::vector<double> Ratios(const std::vector<Run>& a, const std::vector<Run>& b,
                           std::int64_t Run::*field) {
  std::vector<double> out;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    out.push_back(static_cast<double>(a[i].*field) / static_cast<double>(b[i].*field));
  }
  return out;
}

std::size_t CountProcesses() {
  std::size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos) ++n;
  }
  return n;
}

int Main(int argc, char** argv) {
  int rounds = 11;
  int warmup = 1;
  bool frames = true;
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die("missing value for " + a);
      return argv[++i];
    };
    if (a == "--rounds") {
      rounds = std::atoi(value().c_str());
    } else if (a == "--warmup") {
      warmup = std::atoi(value().c_str());
    } else if (a == "--dir") {
      dir = value();
    } else if (a == "--no-frames") {
      frames = false;
    } else {
      std::fprintf(stderr,
                   "usage: record_overhead [--rounds R] [--warmup W] [--dir DIR] [--no-frames]\n");
      return 2;
    }
  }
  if (rounds < 1 || warmup < 0) Die("--rounds must be >= 1 and --warmup >= 0");
  std::string made_dir;
  if (dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                       "/proctape-record-bench-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) Die(std::string("mkdtemp: ") + std::strerror(errno));
    dir = made_dir = tmpl;
  }
  const std::string tape_path = dir + "/tape.ptape";
  const std::string record_path = dir + "/record.ptape";

  std::string error;
  auto live = ProcfsEvidence::Open("/proc", &error);
  if (!live) Die(error);
  const std::string token = RandomHex(16);
  const std::string token_entry = "PROCTAPE_TOKEN=" + token;
  SleepChild child(token);

  Request request;
  request.root_pid = ::getpid();
  Verdict fingerprint = FingerprintRoot(*live, request.root_pid);
  if (!fingerprint.resolved()) Die("cannot fingerprint ourselves: " + fingerprint.detail);
  request.root_start_ticks = fingerprint.start_ticks;
  request.token = token;
  request.exe = live->PathIdentity("/bin/sleep");
  if (!request.exe.ok()) Die("cannot stat /bin/sleep");

  api::FingerprintResult lib_fingerprint = api::TakeFingerprint(::getpid(), "/bin/sleep");
  if (!lib_fingerprint.ok()) Die("lib: " + lib_fingerprint.error.message);
  const api::RecordPolicy no_record;
  const api::RecordPolicy on_failure{api::Record::kOnFailure, dir + "/lib-onfail.ptape", false};

  enum Mode { kPlain, kTape, kRecord, kLib, kLibOnFailure };
  std::vector<Mode> modes = {kPlain, kTape, kLib, kLibOnFailure};
  if (frames) modes.push_back(kRecord);
  std::vector<Run> plain, tape, record, lib, lib_onfail;
  const std::size_t processes = CountProcesses();
  for (int r = 0; r < warmup + rounds; ++r) {
    for (std::size_t k = 0; k < modes.size(); ++k) {
      Mode m = modes[(static_cast<std::size_t>(r) + k) % modes.size()];
      Run run;
      switch (m) {
        case kPlain: run = RunPlain(*live, request, child.pid()); break;
        case kTape: run = RunTape(*live, request, token_entry, tape_path, child.pid()); break;
        case kRecord:
          run = RunRecordLive(*live, request, token_entry, record_path, child.pid());
          break;
        case kLib: run = RunLibrary(lib_fingerprint.fingerprint, token, no_record, child.pid()); break;
        case kLibOnFailure:
          run = RunLibrary(lib_fingerprint.fingerprint, token, on_failure, child.pid());
          break;
      }
      if (r < warmup) continue;
      (m == kPlain ? plain : m == kTape ? tape : m == kRecord ? record : m == kLib ? lib : lib_onfail)
          .push_back(run);
    }
  }

  // The last tape file reads back whole, with every observation.
  Snapshot snap;
  FormatError read = ReadSnapshot(tape_path, &snap);
  if (!read.ok()) Die("the tape file does not read back: " + read.message);
  if (snap.resolutions.size() != 1 ||
      snap.resolutions[0].observation_count() != snap.observations.size() ||
      snap.observations.size() != tape.back().observations) {
    Die("the tape file does not hold the recorded observations");
  }

  auto ms = [](double ns) { return ns / 1e6; };
  const double plain_ms = ms(Median(Column(plain, [](const Run& x) { return double(x.wall_ns); })));
  const double tape_ms = ms(Median(Column(tape, [](const Run& x) { return double(x.wall_ns); })));
  const double tape_resolve_ms =
      ms(Median(Column(tape, [](const Run& x) { return double(x.resolve_ns); })));
  const double tape_round = Median(Ratios(tape, plain, &Run::wall_ns));
  const double tape_resolve_round = Median(Ratios(tape, plain, &Run::resolve_ns));
  const double obs = Median(Column(tape, [](const Run& x) { return double(x.observations); }));
  const double tape_bytes = Median(Column(tape, [](const Run& x) { return double(x.bytes); }));
  const double bytes_read = Median(Column(plain, [](const Run& x) { return double(x.bytes_read); }));
  auto med = [&ms](const std::vector<Run>& runs, std::int64_t Run::*field) {
    return ms(Median(Column(runs, [field](const Run& x) { return double(x.*field); })));
  };
  const double plain_cpu_ms = med(plain, &Run::cpu_ns);
  const double tape_cpu_ms = med(tape, &Run::cpu_ns);
  const double tape_resolve_cpu_ms = med(tape, &Run::resolve_cpu_ns);
  const double record_cpu_ms = frames ? med(record, &Run::cpu_ns) : 0.0;
  const double listed = Median(Column(tape, [](const Run& x) { return double(x.listed); }));
  const std::size_t processes_after = CountProcesses();
  double record_ms = 0, record_resolve_ms = 0, record_round = 0, record_bytes = 0;
  if (frames) {
    record_ms = ms(Median(Column(record, [](const Run& x) { return double(x.wall_ns); })));
    record_resolve_ms = ms(Median(Column(record, [](const Run& x) { return double(x.resolve_ns); })));
    record_round = Median(Ratios(record, plain, &Run::wall_ns));
    record_bytes = Median(Column(record, [](const Run& x) { return double(x.bytes); }));
  }

  const double lib_ms = med(lib, &Run::wall_ns);
  const double lib_onfail_ms = med(lib_onfail, &Run::wall_ns);
  const double lib_onfail_round = Median(Ratios(lib_onfail, lib, &Run::wall_ns));
  const double lib_plain_round = Median(Ratios(lib, plain, &Run::wall_ns));
  const double lib_cpu_ms = med(lib, &Run::cpu_ns);
  const double lib_onfail_cpu_ms = med(lib_onfail, &Run::cpu_ns);

  std::printf("record_overhead: %zu processes on the host at the start, %zu at the end, %.0f "
              "listed by the resolver (median); %d rounds (+%d warm-up), files in %s\n",
              processes, processes_after, listed, rounds, warmup, dir.c_str());
  std::printf("  plain resolve           median %9.2f ms   (%.0f /proc bytes read; CPU %.2f ms)\n",
              plain_ms, bytes_read, plain_cpu_ms);
  std::printf("  tape (create..finish)   median %9.2f ms   x%.2f of plain (per round x%.2f)\n",
              tape_ms, tape_ms / plain_ms, tape_round);
  std::printf("    of which Resolve      median %9.2f ms   x%.2f of plain (per round x%.2f)\n",
              tape_resolve_ms, tape_resolve_ms / plain_ms, tape_resolve_round);
  std::printf("  CPU: tape %.2f ms (x%.2f of plain), its Resolve %.2f ms (x%.2f)\n", tape_cpu_ms,
              tape_cpu_ms / plain_cpu_ms, tape_resolve_cpu_ms, tape_resolve_cpu_ms / plain_cpu_ms);
  std::printf("    %.0f observations per resolution, %.0f bytes written (%.1f B/observation)\n",
              obs, tape_bytes, obs > 0 ? tape_bytes / obs : 0.0);
  std::printf("  library Resolve (never)  median %9.2f ms   x%.2f of plain (per round x%.2f); "
              "CPU %.2f ms\n",
              lib_ms, lib_ms / plain_ms, lib_plain_round, lib_cpu_ms);
  std::printf("  library Resolve (on failure, RESOLVED: nothing written) median %9.2f ms   x%.2f "
              "of never (per round x%.2f); CPU %.2f ms\n",
              lib_onfail_ms, lib_onfail_ms / lib_ms, lib_onfail_round, lib_onfail_cpu_ms);
  if (frames) {
    std::printf("  resolve --record (2 frames + tape) median %9.2f ms   x%.2f of plain "
                "(per round x%.2f); Resolve inside it %.2f ms; %.0f bytes written\n",
                record_ms, record_ms / plain_ms, record_round, record_resolve_ms, record_bytes);
  }
  std::printf(
      "RESULT processes=%zu processes_after=%zu listed=%.0f rounds=%d plain_ms=%.3f tape_ms=%.3f tape_ratio=%.3f "
      "tape_round_ratio=%.3f tape_resolve_ms=%.3f tape_resolve_ratio=%.3f "
      "tape_resolve_round_ratio=%.3f observations=%.0f tape_bytes=%.0f bytes_read=%.0f "
      "record_ms=%.3f record_ratio=%.3f record_round_ratio=%.3f record_resolve_ms=%.3f "
      "record_bytes=%.0f plain_cpu_ms=%.3f tape_cpu_ms=%.3f tape_resolve_cpu_ms=%.3f "
      "record_cpu_ms=%.3f lib_ms=%.3f lib_plain_round_ratio=%.3f lib_onfail_ms=%.3f "
      "lib_onfail_ratio=%.3f lib_onfail_round_ratio=%.3f lib_cpu_ms=%.3f lib_onfail_cpu_ms=%.3f\n",
      processes, processes_after, listed, rounds, plain_ms, tape_ms, tape_ms / plain_ms, tape_round, tape_resolve_ms,
      tape_resolve_ms / plain_ms, tape_resolve_round, obs, tape_bytes, bytes_read, record_ms,
      frames ? record_ms / plain_ms : 0.0, record_round, record_resolve_ms, record_bytes,
      plain_cpu_ms, tape_cpu_ms, tape_resolve_cpu_ms, record_cpu_ms, lib_ms, lib_plain_round,
      lib_onfail_ms, lib_onfail_ms / lib_ms, lib_onfail_round, lib_cpu_ms, lib_onfail_cpu_ms);

  if (!made_dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(made_dir, ec);
  }
  return 0;
}

}  // namespace
}  // namespace proctape

int main(int argc, char** argv) { return proctape::Main(argc, argv); }
