// SPDX-License-Identifier: Apache-2.0
// record_overhead: what recording costs a live resolution (BENCHMARKS.md,
// "Recording overhead": recording must not change what the resolver does,
// and its overhead is measured in a benchmark).
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
//
// The child and the clocks: bench/record_overhead_child.h; the timed modes:
// bench/record_overhead_modes.h; here, the rounds and the report.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/record_overhead_child.h"
#include "bench/record_overhead_modes.h"
#include "capture/procfs_evidence.h"
#include "core/resolver.h"
#include "format/reader.h"
#include "proctape/live.h"

namespace proctape {
namespace {

using namespace bench;  // the child, the clocks, Die, the timed modes

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

  Failure failure;
  auto live = ProcfsEvidence::Open("/proc", &failure);
  if (!live) Die(failure.message);
  std::string error;
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
        case kLib:
          run = RunLibrary(lib_fingerprint.fingerprint, token, no_record, child.pid());
          break;
        case kLibOnFailure:
          run = RunLibrary(lib_fingerprint.fingerprint, token, on_failure, child.pid());
          break;
      }
      if (r < warmup) continue;
      (m == kPlain    ? plain
       : m == kTape   ? tape
       : m == kRecord ? record
       : m == kLib    ? lib
                      : lib_onfail)
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
  const double bytes_read =
      Median(Column(plain, [](const Run& x) { return double(x.bytes_read); }));
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
    record_resolve_ms =
        ms(Median(Column(record, [](const Run& x) { return double(x.resolve_ns); })));
    record_round = Median(Ratios(record, plain, &Run::wall_ns));
    record_bytes = Median(Column(record, [](const Run& x) { return double(x.bytes); }));
  }

  const double lib_ms = med(lib, &Run::wall_ns);
  const double lib_onfail_ms = med(lib_onfail, &Run::wall_ns);
  const double lib_onfail_round = Median(Ratios(lib_onfail, lib, &Run::wall_ns));
  const double lib_plain_round = Median(Ratios(lib, plain, &Run::wall_ns));
  const double lib_cpu_ms = med(lib, &Run::cpu_ns);
  const double lib_onfail_cpu_ms = med(lib_onfail, &Run::cpu_ns);

  std::printf(
      "record_overhead: %zu processes on the host at the start, %zu at the end, %.0f "
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
  std::printf(
      "  library Resolve (never)  median %9.2f ms   x%.2f of plain (per round x%.2f); "
      "CPU %.2f ms\n",
      lib_ms, lib_ms / plain_ms, lib_plain_round, lib_cpu_ms);
  std::printf(
      "  library Resolve (on failure, RESOLVED: nothing written) median %9.2f ms   x%.2f "
      "of never (per round x%.2f); CPU %.2f ms\n",
      lib_onfail_ms, lib_onfail_ms / lib_ms, lib_onfail_round, lib_onfail_cpu_ms);
  if (frames) {
    std::printf(
        "  resolve --record (2 frames + tape) median %9.2f ms   x%.2f of plain "
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
      processes, processes_after, listed, rounds, plain_ms, tape_ms, tape_ms / plain_ms, tape_round,
      tape_resolve_ms, tape_resolve_ms / plain_ms, tape_resolve_round, obs, tape_bytes, bytes_read,
      record_ms, frames ? record_ms / plain_ms : 0.0, record_round, record_resolve_ms, record_bytes,
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
