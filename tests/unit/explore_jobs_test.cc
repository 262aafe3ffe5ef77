// SPDX-License-Identifier: Apache-2.0
// explore/in_order.h through ExploreRecordings: the checks of several corpus
// files explored on 2, 3, 4 or 8 threads give what one thread gives, byte
// for byte (text, JSON, the files --out would write), with violations and
// examples among them, and when the whole run's bound is reached mid-run;
// several files are their runs alone, one after the other.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/resolver.h"
#include "explore/events.h"
#include "explore/explore_recording.h"
#include "explore/explore_report.h"
#include "replay/recording_read.h"
#include "tests/unit/source_dir.h"

namespace proctape::explore {
namespace {

// A resolver that trusts what it should not: a PID_REUSED (or any failure
// naming a process with its start tick) said as RESOLVED: violations in the
// histories that reuse a pid, none in the others.
Verdict TrustsTheSubject(Evidence& ev, const Request& r) {
  Verdict v = Resolve(ev, r);
  if (v.resolved() || v.subject_pid <= 0 || !v.subject_start_ticks) return v;
  v.status = Status::kResolved;
  v.pid = v.subject_pid;
  v.start_ticks = *v.subject_start_ticks;
  return v;
}

struct Corpus {
  std::vector<std::string> names;
  std::vector<Snapshot> snapshots;
  explicit Corpus(std::vector<std::string> files) : names(std::move(files)) {
    snapshots.resize(names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::string path = (test::SourceDir() / "corpus" / names[i]).string();
      MaybeFileFailure bad = ReadRecordingFile("explore", path, std::nullopt, &snapshots[i]);
      EXPECT_FALSE(bad) << path << ": " << (bad ? bad->failure.message : "");
    }
  }
  std::vector<RecordingToExplore> Recordings() const {
    std::vector<RecordingToExplore> r;
    for (std::size_t i = 0; i < names.size(); ++i) r.push_back({names[i], &snapshots[i]});
    return r;
  }
};

// pid-reuse-unshare, exited-bwrap, zombie-bwrap, plain-unshare,
// root-restarted-unshare: eight checks of both kinds.
Corpus Several() {
  return Corpus({"021e7cdf322033a4.ptape", "051df0283b135a91.ptape", "58e5207c353899f0.ptape",
                 "f46add6575430d19.ptape", "27fc51b0801a470f.ptape"});
}

ExploreRequest Request(unsigned jobs) {
  ExploreRequest request;
  request.depth = 2;
  request.budget = 300;
  request.out = "found";
  request.examples = 2;
  request.checker.resolve = TrustsTheSubject;
  request.jobs = jobs;
  return request;
}

// Everything a run says and would write, as bytes.
struct Said {
  std::vector<std::string> text, json, files;
  bool operator==(const Said&) const = default;
};
Said Explore(const Corpus& corpus, const ExploreRequest& request,
             std::vector<std::string>* lines = nullptr) {
  Failure failure;
  const std::thread::id caller = std::this_thread::get_id();
  std::optional<std::vector<ExploreRun>> runs = ExploreRecordings(
      corpus.Recordings(), request,
      [&](const std::string& line) {
        EXPECT_EQ(std::this_thread::get_id(), caller);  // only the caller says anything
        if (lines != nullptr) lines->push_back(line);
      },
      &failure);
  EXPECT_TRUE(runs) << failure.message;
  Said said;
  if (!runs) return said;
  for (const ExploreRun& run : *runs) {
    said.text.push_back(ExploreText(run));
    said.json.push_back(ExploreJson(run));
    for (const FoundFile& f : FoundFiles(run)) {
      std::string file = f.path + " check " + std::to_string(f.setup->index) + ":";
      for (const Scheduled& s : *f.history) file += " " + Describe(s);
      said.files.push_back(file);
    }
  }
  return said;
}

std::string All(const std::vector<std::string>& texts) {
  std::string all;
  for (const std::string& t : texts) all += t;
  return all;
}

TEST(ExploreJobs, AnyNumberOfThreadsSaysWhatOneSays) {
  const Corpus corpus = Several();
  const Said one = Explore(corpus, Request(1));
  ASSERT_EQ(one.text.size(), 5u);
  const std::string text = All(one.text);
  EXPECT_NE(text.find("VIOLATION 1: "), std::string::npos) << text;  // the mutant is caught
  EXPECT_NE(text.find("  example "), std::string::npos) << text;
  EXPECT_GT(one.files.size(), 10u);
  for (unsigned jobs : {2u, 3u, 8u}) {
    std::vector<std::string> lines;
    const Said many = Explore(corpus, Request(jobs), &lines);
    EXPECT_EQ(many.text, one.text) << "jobs " << jobs;
    EXPECT_EQ(many.json, one.json) << "jobs " << jobs;
    EXPECT_EQ(many.files, one.files) << "jobs " << jobs;
    for (const std::string& line : lines) {
      // "3 of 10 checks explored, 2 at once", or the runs of a check re-run
      // here: FILE: check 0 (1 of 3): 40 of 300 runs
      EXPECT_TRUE(line.find(" checks explored, ") != std::string::npos ||
                  line.find(" runs") != std::string::npos)
          << line;
    }
  }
}

// The runs and steps a run counted, every file's together.
std::pair<std::uint64_t, std::uint64_t> Counted(const Corpus& corpus, ExploreRequest request) {
  Failure failure;
  std::optional<std::vector<ExploreRun>> runs =
      ExploreRecordings(corpus.Recordings(), request, {}, &failure);
  EXPECT_TRUE(runs) << failure.message;
  std::pair<std::uint64_t, std::uint64_t> n{0, 0};
  if (!runs) return n;
  for (const ExploreRun& run : *runs) {
    EXPECT_EQ(run.end.stop, Stop::kNone);
    n.first += run.end.runs;
    n.second += run.end.steps;
  }
  return n;
}

TEST(ExploreJobs, ABoundReachedMidRunEndsItWhereOneThreadEndsIt) {
  const Corpus corpus = Several();
  const auto [runs, steps] = Counted(corpus, Request(1));
  ASSERT_GT(runs, 100u);
  // The total budget, then the work budget, then both, reached part way:
  // in a check's search (its histories left), the checks after not begun.
  for (int which = 0; which < 3; ++which) {
    ExploreRequest request = Request(1);
    if (which != 1) request.limits.runs = runs * 2 / 5;
    if (which != 0) request.limits.steps = steps / 3;
    const Said one = Explore(corpus, request);
    const std::string text = All(one.text);
    EXPECT_NE(text.find(" was reached)"), std::string::npos) << text;
    EXPECT_NE(text.find("\nunexplored: "), std::string::npos) << text;
    for (unsigned jobs : {2u, 4u}) {
      request.jobs = jobs;
      std::vector<std::string> lines;
      const Said many = Explore(corpus, request, &lines);
      // The check the bound ends is never taken from its worker: it is run
      // again on the whole run's bound, its runs said on the caller's line.
      bool rerun = false;
      for (const std::string& line : lines) rerun = rerun || line.ends_with(" of 300 runs");
      EXPECT_TRUE(rerun) << "bound " << which << ", jobs " << jobs;
      EXPECT_EQ(many.text, one.text) << "bound " << which << ", jobs " << jobs;
      EXPECT_EQ(many.json, one.json) << "bound " << which << ", jobs " << jobs;
      EXPECT_EQ(many.files, one.files) << "bound " << which << ", jobs " << jobs;
    }
  }
}

TEST(ExploreJobs, SeveralFilesAreEachFileAloneInOrder) {
  const Corpus corpus = Several();
  ExploreRequest request = Request(2);
  const Said together = Explore(corpus, request);
  ASSERT_EQ(together.text.size(), corpus.names.size());
  for (std::size_t i = 0; i < corpus.names.size(); ++i) {
    request.file = corpus.names[i];
    Failure failure;
    std::optional<ExploreRun> alone = ExploreRecording(corpus.snapshots[i], request, {}, &failure);
    ASSERT_TRUE(alone) << failure.message;
    EXPECT_EQ(ExploreText(*alone), together.text[i]) << corpus.names[i];
    EXPECT_EQ(ExploreJson(*alone), together.json[i]) << corpus.names[i];
  }
}

TEST(ExploreJobs, ABoundReachedInOneFileLeavesTheNextUnbegun) {
  const Corpus corpus = Several();
  ExploreRequest request = Request(3);
  request.budget = 1000;
  request.limits.runs = 50;  // within the first file's first check
  Failure failure;
  std::optional<std::vector<ExploreRun>> runs =
      ExploreRecordings(corpus.Recordings(), request, {}, &failure);
  ASSERT_TRUE(runs) << failure.message;
  EXPECT_EQ(runs->front().checks.size(), 1u);
  EXPECT_EQ(runs->front().end.stop, Stop::kRuns);
  EXPECT_EQ(runs->front().end.runs, 50u);
  for (std::size_t i = 1; i < runs->size(); ++i) {
    const ExploreRun& run = (*runs)[i];
    EXPECT_TRUE(run.checks.empty());
    EXPECT_EQ(run.end.runs, 0u);  // each file says its own
    EXPECT_EQ(run.end.unexplored, corpus.snapshots[i].resolutions.size());
    EXPECT_NE(ExploreText(run).find("\nunexplored: "), std::string::npos);
  }
}

}  // namespace
}  // namespace proctape::explore
