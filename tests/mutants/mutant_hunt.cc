// SPDX-License-Identifier: Apache-2.0
// mutant_hunt: `explore` over a corpus with the real resolver and with each
// resolver mutant (`docs/explore.md`, "In the corpus and in CI";
// tests/mutants/mutants.h), as proof
// that the search finds what it is for.
//
// Usage: mutant_hunt CORPUS_DIR [--depth K] [--budget N] [--out DIR]
//
// Prints the table of BENCHMARKS.md ("Explore: the mutants"): per resolver,
// the violations found, the checks with one, the histories run up to the
// first (corpus files in name order, checks in file order) and in all. Each
// mutant's first counterexample is written (to DIR, else a temporary
// directory) by the mutant, then replayed by the real resolver, which must
// not reproduce it and must end fail-closed; the real resolver re-run on the
// same history must be right. Each file is explored under the defaults of
// explore's whole-run bound (docs/explore.md, "Bounds of a whole run"), as
// `proctape explore FILE` explores it.
//
// Exit status: 0 when the real resolver has no violation, every mutant at
// least one, and every counterexample replays as above; 1 otherwise; 2 for
// bad usage or a corpus that cannot be read.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "explore/counterexample.h"
#include "explore/search.h"
#include "format/reader.h"
#include "replay/replay.h"
#include "tests/mutants/mutants.h"

namespace proctape {
namespace {

namespace fs = std::filesystem;

struct Options {
  std::string corpus;
  std::uint32_t depth = 1;
  std::uint64_t budget = 100000;
  std::string out;
};

struct Tally {
  std::uint64_t violations = 0;
  std::uint64_t checks_with = 0;
  std::uint64_t histories = 0;
  std::uint64_t to_first = 0;  // 0: none found
  std::string counterexample;  // the first one's file
  std::string how;             // how the real resolver replayed it
  bool replay_ok = true;
};

int Usage(const std::string& why) {
  std::cerr << "mutant_hunt: " << why
            << "\nusage: mutant_hunt CORPUS_DIR [--depth K] [--budget N] [--out DIR]\n";
  return 2;
}

bool Number(const char* text, std::uint64_t* out) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-') return false;
  *out = v;
  return true;
}

// The counterexample of `v`, written by the mutant, replayed by the real
// resolver: "" when that replay does not reproduce the mutant's verdict and
// ends in none or a fail-closed one (DIVERGED: the real resolver asked for
// evidence the mutant never read, a re-read or a retry), and the real
// resolver run on the same history (every call answered by the model) ends
// fail-closed; else what went wrong. *how: both outcomes, for the table.
std::string CheckCounterexample(const std::string& path, const Snapshot& source,
                                const std::string& source_name, const explore::CheckSetup& setup,
                                const explore::Violation& v, const mutant::Mutant& m,
                                std::string* how) {
  std::string failed =
      explore::WriteCounterexample(path, source, source_name, setup, v.history, m.checker);
  if (!failed.empty()) return "cannot write " + path + ": " + failed;
  Snapshot written;
  FormatError read = ReadSnapshot(path, &written);
  if (!read.ok()) return path + ": " + read.message;
  v1::ReplayResult r = ReplayResolution(written, 0, {});
  const bool diverged = r.outcome() == v1::ReplayResult::DIVERGED;
  std::string replayed = setup.liveness
                             ? v1::LivenessVerdict::Status_Name(r.replayed_liveness().status())
                             : v1::Verdict::Status_Name(r.replayed().status());
  const bool replay_closed =
      diverged || (setup.liveness ? replayed != "ALIVE" : replayed != "RESOLVED");
  explore::HistoryRun real = explore::RunHistory(setup, v.history, explore::Checker{});
  const std::string on_history = explore::OutcomeName(setup, real.outcome);
  const bool real_closed = setup.liveness ? real.outcome.liveness.status != LivenessStatus::kAlive
                                          : !real.outcome.verdict.resolved();
  *how = "replay " + (diverged ? "DIVERGED (" + r.made_call() + ")" : replayed) +
         "; on the history " + on_history;
  if (r.outcome() == v1::ReplayResult::REPRODUCED) return "the real resolver reproduced it";
  if (!replay_closed) return "the real resolver's replay is not fail-closed: " + *how;
  if (!real_closed) return "the real resolver on the history is not fail-closed: " + *how;
  if (real.judgement.violation)
    return "the real resolver is wrong there too: " + real.judgement.why;
  return "";
}

int Hunt(const Options& o) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(o.corpus, ec)) {
    if (e.path().extension() == ".ptape") files.push_back(e.path());
  }
  if (ec) return Usage(o.corpus + ": " + ec.message());
  if (files.empty()) return Usage(o.corpus + ": no .ptape file");
  std::sort(files.begin(), files.end());
  std::string out = o.out;
  if (out.empty()) {
    std::string tmpl = (fs::temp_directory_path() / "mutant-hunt-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) return Usage("cannot make a temporary directory");
    out = tmpl;
  }

  std::vector<Snapshot> snapshots(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    FormatError read = ReadSnapshot(files[i].string(), &snapshots[i]);
    if (!read.ok()) return Usage(files[i].string() + ": " + read.message);
  }

  bool ok = true;
  std::vector<Tally> tallies;
  for (const mutant::Mutant& m : mutant::Resolvers()) {
    Tally t;
    for (std::size_t f = 0; f < files.size(); ++f) {
      // Each file explored as `proctape explore FILE` explores it: under the
      // defaults of its whole-run bound (runs and steps; not the time limit,
      // which depends on the machine), so that every mutant caught is caught
      // with the defaults. A file the bound cuts is said on standard error.
      explore::RunLimits defaults;
      defaults.time_s = 0;
      explore::RunBound bound(defaults);
      for (std::size_t c = 0; c < snapshots[f].resolutions.size(); ++c) {
        Failure error;
        auto setup = explore::SetUp(snapshots[f], c, &error);
        if (!setup) continue;  // no frame: explore refuses it too
        explore::SearchOptions so;
        so.depth = o.depth;
        so.budget = o.budget;
        so.checker = m.checker;
        so.keep_violations = 1;
        so.bound = &bound;
        explore::SearchReport r = explore::Search(*setup, so);
        if (r.stopped != explore::Stop::kNone) {
          std::cerr << m.name << ": " << files[f].filename().string() << " check " << c
                    << ": stopped early: " << explore::StopText(r.stopped, defaults)
                    << " (proctape explore's default) was reached\n";
        }
        if (r.violation_count > 0) {
          ++t.checks_with;
          if (t.to_first == 0) {
            t.to_first = t.histories + r.first_violation_after;
            if (m.rule != mutant::kNone) {
              t.counterexample = (fs::path(out) / (m.name + "-" + files[f].stem().string() +
                                                   "-check" + std::to_string(c) + ".ptape"))
                                     .string();
              std::string wrong =
                  CheckCounterexample(t.counterexample, snapshots[f], files[f].filename().string(),
                                      *setup, r.violations.front(), m, &t.how);
              if (!wrong.empty()) {
                t.replay_ok = false;
                std::cerr << m.name << ": " << t.counterexample << ": " << wrong << "\n";
              }
            }
          }
          if (m.rule == mutant::kNone) {
            std::cerr << "real resolver: " << files[f].filename().string() << " check " << c << ": "
                      << r.violations.front().why << "\n";
          }
        }
        t.violations += r.violation_count;
        t.histories += r.run + 1;
      }
    }
    std::cerr << m.name << ": " << t.violations << " violations in " << t.histories
              << " histories\n";
    if (m.rule == mutant::kNone ? t.violations != 0 : t.violations == 0 || !t.replay_ok) ok = false;
    tallies.push_back(t);
  }

  std::cout << "| resolver | rule dropped | violations | checks with one | "
               "histories to the first | histories run | the first counterexample, with the real "
               "resolver |\n|---|---|---:|---:|---:|---:|---|\n";
  for (std::size_t i = 0; i < tallies.size(); ++i) {
    const mutant::Mutant& m = mutant::Resolvers()[i];
    const Tally& t = tallies[i];
    std::cout << "| " << m.name << " | " << m.dropped << " | " << t.violations << " | "
              << t.checks_with << " | " << (t.to_first == 0 ? "-" : std::to_string(t.to_first))
              << " | " << t.histories << " | "
              << (m.rule == mutant::kNone    ? "-"
                  : t.counterexample.empty() ? "none found"
                                             : fs::path(t.counterexample).filename().string() +
                                                   ": " + t.how + (t.replay_ok ? "" : " (WRONG)"))
              << " |\n";
  }
  std::cout << (ok ? "every mutant caught, the real resolver clean\n"
                   : "FAILED: a mutant not caught, the real resolver wrong, or a counterexample "
                     "that does not replay fail-closed\n");
  if (o.out.empty()) fs::remove_all(out, ec);
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace proctape

int main(int argc, char** argv) {
  proctape::Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    std::uint64_t n = 0;
    if ((a == "--depth" || a == "--budget" || a == "--out") && i + 1 >= argc) {
      return proctape::Usage(a + " needs a value");
    }
    if (a == "--depth") {
      if (!proctape::Number(argv[++i], &n) || n < 1 || n > 2) {
        return proctape::Usage("--depth must be 1 or 2");
      }
      o.depth = static_cast<std::uint32_t>(n);
    } else if (a == "--budget") {
      if (!proctape::Number(argv[++i], &n) || n == 0)
        return proctape::Usage("--budget must be > 0");
      o.budget = n;
    } else if (a == "--out") {
      o.out = argv[++i];
    } else if (o.corpus.empty() && !a.starts_with("-")) {
      o.corpus = a;
    } else {
      return proctape::Usage("unexpected argument " + a);
    }
  }
  if (o.corpus.empty()) return proctape::Usage("no corpus directory");
  return proctape::Hunt(o);
}
