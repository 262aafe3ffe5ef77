// SPDX-License-Identifier: Apache-2.0
// `proctape corpus check`: every entry replayed, each that drifted reported
// (cli/corpus_command.cc).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/command_io.h"
#include "cli/corpus_cli.h"
#include "cli/errors.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "cli/exit_codes.h"
#include "cli/progress.h"
#include "corpus/pipelines.h"
#include "proto/convert.h"

namespace proctape {
namespace {

struct CheckCliOptions {
  CorpusDirOption corpus;
  unsigned jobs = 0;  // 0: one per core
  std::string junit;
  bool has_junit = false;
  bool force = false;
  bool json = false;
  std::vector<std::string> only;
  Shard shard;
};

int RunCheck(const CheckCliOptions& o) {
  int exit_code = kExitOk;
  const std::string dir = o.corpus.Get(&exit_code);
  if (dir.empty()) return exit_code;
  // The JUnit file before any entry is replayed: checked, its temporary made.
  std::unique_ptr<OutputFile> junit;
  if (int entered = EnterWithJUnit({"corpus check", {{"the corpus", dir, false, true}}}, o.junit,
                                   o.has_junit, o.force, &junit);
      entered != kExitOk) {
    return entered;
  }
  CorpusCheckRequest request{dir, o.only, o.jobs, nullptr, o.shard};
  Progress progress;
  if (progress.active()) {
    request.progress = [&progress](std::size_t done, std::size_t total, const std::string& name) {
      progress.Show("[" + std::to_string(done) + "/" + std::to_string(total) + "] " + name);
    };
  }
  CorpusCheckOutcome checked = CheckCorpusDir(request);
  progress.Done();
  if (checked.failure) {
    if (checked.failure->kind == FailureKind::kUsage) {
      return FailAbout("--entry", checked.unknown_entry, *checked.failure);
    }
    return o.corpus.FailAboutCorpus(dir, *checked.failure);
  }
  if (int printed = PrintCorpusReport(o.json, o.junit, checked.report, junit.get());
      printed != kExitOk) {
    return printed;
  }
  if (MaybeFailure found = CheckFinding(checked.report)) {
    return Finding(ExitCodeFor(found->kind), found->message);
  }
  return kExitOk;
}

}  // namespace

void RegisterCorpusCheck(CLI::App* corpus, int* exit_code) {
  auto check = std::make_shared<CheckCliOptions>();
  CLI::App* c = corpus->add_subcommand(
      "check",
      "Replay every entry and report each that drifted. Each entry of the corpus in DIR is\n"
      "replayed and its verdicts compared with the MANIFEST's expect lines. Prints one line\n"
      "per entry that drifted (DRIFT NAME: expected X; got Y; a replay that DIVERGED drifts\n"
      "too) or cannot be checked (UNREADABLE NAME: why: missing, changed since added,\n"
      "damaged, too large for the memory it may use), then a summary line. Entries are\n"
      "replayed in parallel; the output is in manifest order. Progress is shown on\n"
      "standard error when it is a terminal. Exit 0 when every entry reproduced, 22\n"
      "otherwise, 23 when the MANIFEST does not parse or names a missing file.");
  check->corpus.Register(c, true);
  AddJobsOption(c, check->jobs, "entries replayed");
  AddSideOutputOption(c, "--junit", check->junit,
                      "also write JUnit XML to this file: a testcase per entry, <failure> for a "
                      "drift, <error> for an unreadable entry")
      ->each([check](const std::string&) { check->has_junit = true; });
  AddForceOption(c, check->force, "with --junit FILE: replace an existing FILE");
  OneValueEach(c->add_option("--entry", check->only, "check only this entry; repeat for more")
                   ->check(NonEmpty("an empty name names no entry"))
                   ->type_name("NAME"));
  AddShardOption(c, check->shard, "entries (by name)");
  c->add_flag("--json", check->json, "print the report as one JSON object (CorpusReport)");
  c->footer(std::string("Examples:\n"
                        "  proctape corpus check                     # ./corpus\n"
                        "  proctape corpus check corpus --junit corpus.xml --jobs 4\n"
                        "  proctape corpus check corpus --entry plain-unshare\n"
                        "  proctape corpus check --shard 2/4 --json > shard-2.json  # then:\n"
                        "  proctape corpus report shard-*.json --junit corpus.xml\n\n") +
            ExitStatusFooter(
                "0 every entry reproduced, 2 usage error, 10 --junit refused or cannot be written, "
                "22 an entry drifted or is unreadable, 23 bad MANIFEST"));
  c->callback([check, exit_code] { *exit_code = RunCheck(*check); });
}

}  // namespace proctape
