// SPDX-License-Identifier: Apache-2.0
// `proctape corpus report SHARD.json...`: the reports of the N shards of one
// `corpus check --shard K/N --json` run merged into the report one unsharded
// check gives (cli/corpus_command.cc; docs/corpus.md, "Shards").
#include <memory>
#include <string>
#include <vector>

#include "cli/command_io.h"
#include "cli/corpus_cli.h"
#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "corpus/pipelines.h"

namespace proctape {
namespace {

struct ReportCliOptions {
  std::vector<std::string> files;
  std::string junit;
  bool has_junit = false;
  bool force = false;
  bool json = false;
};

int RunReport(const ReportCliOptions& o) {
  std::unique_ptr<OutputFile> junit;
  if (int entered = EnterWithJUnit({"corpus report", InputsNamed("FILE", o.files)}, o.junit,
                                   o.has_junit, o.force, &junit);
      entered != kExitOk) {
    return entered;
  }
  CorpusMerge merged = MergeCorpusReports(o.files);
  if (merged.failure) return Fail(*merged.failure);
  if (int printed = PrintCorpusReport(o.json, o.junit, merged.report, junit.get());
      printed != kExitOk) {
    return printed;
  }
  if (MaybeFailure found = CheckFinding(merged.report)) {
    return Finding(ExitCodeFor(found->kind), found->message);
  }
  return kExitOk;
}

constexpr const char* kReportHelp =
    "Merge the reports of the shards of one 'corpus check --shard K/N --json' run into\n"
    "the report one 'corpus check' of the whole corpus gives: its text, its JSON, its\n"
    "JUnit XML (the entries in manifest order, the counts summed). Give every shard's\n"
    "report, 1/N to N/N, in any order. Refused on one line (exit 27), nothing printed:\n"
    "a shard missing (named) or given twice, reports of another corpus (its MANIFEST's\n"
    "SHA-256), of other --entry or of another N, counts that do not add up. Then exit\n"
    "as 'corpus check' would: 0 every entry reproduced, 22 one drifted or is unreadable,\n"
    "23 the manifest names a missing file. See docs/corpus.md, \"Shards\".";

}  // namespace

void RegisterCorpusReport(CLI::App* corpus, int* exit_code) {
  auto o = std::make_shared<ReportCliOptions>();
  CLI::App* c = corpus->add_subcommand("report", kReportHelp);
  c->add_option("FILE", o->files,
                "a shard's report: 'corpus check --shard K/N --json' (- for standard input)")
      ->check(NonEmptyPath())
      ->required();
  AddSideOutputOption(c, "--junit", o->junit,
                      "also write the merged report as JUnit XML to this file, as 'corpus check "
                      "--junit' writes it")
      ->each([o](const std::string&) { o->has_junit = true; });
  AddForceOption(c, o->force, "with --junit FILE: replace an existing FILE");
  c->add_flag("--json", o->json, "print the merged report as one JSON object (CorpusReport)");
  c->footer(std::string("Examples:\n"
                        "  proctape corpus check --shard 1/2 --json > shard-1.json\n"
                        "  proctape corpus check --shard 2/2 --json > shard-2.json\n"
                        "  proctape corpus report shard-*.json --junit corpus.xml\n\n") +
            ExitStatusFooter(
                "0 every entry reproduced, 2 usage error, 10 a FILE unreadable or --junit "
                "refused, 22 an entry drifted or is unreadable, 23 the manifest names a missing "
                "file, 27 the reports make no whole run"));
  c->callback([o, exit_code] { *exit_code = RunReport(*o); });
}

}  // namespace proctape
