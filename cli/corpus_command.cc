// SPDX-License-Identifier: Apache-2.0
// `proctape corpus add|check|list|report|rm`: the regression corpus (docs/corpus.md).
// A corpus directory holds a MANIFEST and the recordings it names; `add` puts
// a recording in once its replay gives its recorded verdict (or the one
// --expect states), `check` replays every entry and reports each that
// drifted (or a shard of them), `report` merges the shards' reports, `list`
// shows the entries, `rm` takes entries out. The work is
// done by corpus/corpus.h; this file reads options, prints, and picks the
// exit status.
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cli/corpus_cli.h"
#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "corpus/pipelines.h"
#include "proto/convert.h"

namespace proctape {

void CorpusDirOption::Register(CLI::App* sub, bool positional_too) {
  sub->add_option("--corpus", option, "the corpus directory")
      ->check(NonEmptyPath("directory"))
      ->type_name("DIR")
      ->capture_default_str()
      ->each([this](const std::string&) { has_option = true; });
  if (positional_too) {
    sub->add_option("DIR", positional, "the corpus directory: the same as --corpus DIR")
        ->check(NonEmptyPath("directory"))
        ->each([this](const std::string&) { has_positional = true; });
  }
}

std::string CorpusDirOption::Get(int* exit_code) const {
  if (has_option && has_positional) {
    *exit_code = Fail(kExitUsage, "the corpus is given twice (DIR and --corpus): give it once");
    return "";
  }
  return has_positional ? positional : option;
}

std::string CorpusDirOption::About(const std::string& dir, const std::string& what) const {
  return AboutPath(has_positional ? "" : "--corpus", dir, what);
}

int CorpusDirOption::FailAboutCorpus(const std::string& dir, const Failure& failure) const {
  return Fail(ExitCodeFor(failure.kind), About(dir, failure.message));
}

int EnterWithJUnit(CommandIo io, const std::string& junit_path, bool has_junit, bool force,
                   std::unique_ptr<OutputFile>* junit) {
  if (std::string why = ForceWithoutOutput(force, "--junit", has_junit, junit_path); !why.empty()) {
    return Fail(kExitUsage, why);
  }
  if (has_junit) {
    io.output.emplace();
    io.output->path = junit_path;
    io.output->force = force;
    io.output_option = "--junit";
  }
  return EnterCommand(io, junit);
}

int PrintCorpusReport(bool json, const std::string& junit_path, const v1::CorpusReport& report,
                      OutputFile* junit) {
  if (json) {
    std::printf("%s\n", ToJson(report).c_str());
  } else {
    std::fputs(CheckReportText(report).c_str(), stdout);
  }
  std::fflush(stdout);
  if (junit != nullptr) {
    if (MaybeFailure failed = junit->WriteAndCommit(JUnitXml(report))) {
      return FailAbout("--junit", junit_path, *failed);
    }
  }
  return kExitOk;
}

void RegisterCorpus(CLI::App& app, int* exit_code) {
  CLI::App* corpus = app.add_subcommand(
      "corpus",
      "The regression corpus: a directory holding recordings (.ptape files named by their\n"
      "content's SHA-256) and a MANIFEST that says, for each, the verdict every recorded\n"
      "resolution must replay to, what it shows and how it was captured. 'add' puts a\n"
      "recording in, 'check' replays them all and reports drift (or a --shard K/N of\n"
      "them), 'report' merges the shards' reports, 'list' shows them, 'rm' takes them\n"
      "out.\n"
      "Each entry of the repository's corpus/ is also a ctest test (corpus/NAME).");
  corpus->require_subcommand(1);
  corpus->footer(
      std::string("Examples:\n"
                  "  proctape corpus add failure.ptape --note 'sleep resolved under bwrap'\n"
                  "  proctape corpus check\n"
                  "  proctape corpus list\n"
                  "  proctape corpus rm ci-flake\n"
                  "Run 'proctape corpus COMMAND --help' for one command; docs/corpus.md has the\n"
                  "MANIFEST format.\n\n") +
      ExitStatusFooter(
          "each command's own (its --help); 2 usage error: no command, or an unknown one"));

  RegisterCorpusAdd(corpus, exit_code);
  RegisterCorpusCheck(corpus, exit_code);
  RegisterCorpusList(corpus, exit_code);
  RegisterCorpusReport(corpus, exit_code);
  RegisterCorpusRm(corpus, exit_code);
}

}  // namespace proctape
