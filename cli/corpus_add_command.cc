// SPDX-License-Identifier: Apache-2.0
// `proctape corpus add`: recordings into the corpus once they replay to their
// verdict (cli/corpus_command.cc).
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
#include "cli/inputs.h"
#include "corpus/pipelines.h"
#include "lab/lab.h"
#include "proto/convert.h"

namespace proctape {
namespace {

struct AddOptions {
  AddFilesRequest request;  // for every file: its note, and one file's name and expects
  CorpusDirOption corpus;
  bool json = false;
};

// One file, added or refused: its line (JSON: into *documents), its status.
int SayAdded(bool json, AddedFile& added, std::vector<std::string>* documents) {
  if (added.failure) {
    const int code = ExitCodeFor(added.failure->kind);
    if (added.listed) {
      added.result.set_exit_status(code);
      if (json) documents->push_back(ToJson(added.result));
      std::fflush(stdout);
    }
    return Fail(code, added.failure->message);
  }
  for (const std::string& w : added.warnings) {
    std::fflush(stdout);
    Warn(w);
  }
  if (json) {
    documents->push_back(ToJson(added.result));
  } else {
    std::printf("%s\n", added.line.c_str());
  }
  return kExitOk;
}

// Each file in the order given; a refusal does not stop the next. The exit
// status is the largest of theirs.
int RunAdd(AddOptions o) {
  // The corpus directory, once for every file (checked by AddToCorpus before
  // each replay).
  int exit_code = kExitOk;
  o.request.request.dir = o.corpus.Get(&exit_code);
  if (o.request.request.dir.empty()) return exit_code;
  std::vector<InputPath> inputs = InputsNamed("FILE", o.request.files);
  inputs.push_back({"the corpus", o.request.request.dir, false, true});
  if (int entered = EnterCommand({"corpus add", inputs}); entered != kExitOk) return entered;
  int worst = kExitOk;
  std::vector<std::string> documents;
  if (MaybeFailure usage = AddFilesToCorpus(o.request, [&](AddedFile& added) {
        worst = Worst(worst, SayAdded(o.json, added, &documents));
      })) {
    return Fail(*usage);
  }
  // One FILE refused: its failure is the JSON object on standard error, and
  // standard output holds no document (as every command's failure). Several:
  // every FILE has its entry, refused ones included.
  const bool one_refused = o.request.files.size() == 1 && worst != kExitOk;
  if (o.json && !documents.empty() && !one_refused) {
    std::printf("%s\n", JsonList(documents).c_str());
  }
  return worst;
}

}  // namespace

constexpr const char* kExamples =
    "Examples:\n"
    "  proctape corpus add failure.ptape --note 'pid reused under load'\n"
    "  proctape corpus add lab.ptape --corpus corpus --name plain-bwrap\n"
    "  proctape corpus add bug.ptape --expect NO_MATCH  # what a fix gives\n"
    "  proctape lab plain --record p.ptape && proctape corpus add - < p.ptape\n\n";

void RegisterCorpusAdd(CLI::App* corpus, int* exit_code) {
  auto add = std::make_shared<AddOptions>();
  CLI::App* a = corpus->add_subcommand(
      "add",
      "Add recordings to the corpus. FILE must be intact and hold at least one recorded\n"
      "resolution; each is replayed against its tape. A replay that DIVERGED is refused\n"
      "(exit 21); a VERDICT CHANGED is refused (exit 20) unless --expect states the\n"
      "verdict wanted (one --expect per recorded resolution, in order), for a bug not yet\n"
      "fixed: the entry is then added with a warning and drifts in 'check' until the\n"
      "resolver gives it. FILE is copied (never moved) to DIR/<sha256 prefix>.ptape and\n"
      "its entry written to DIR/MANIFEST (both created when missing, entries sorted by\n"
      "name). Content already in the corpus is not added twice: its name is printed,\n"
      "exit 0.");
  a->add_option("FILE", add->request.files,
                "a recording ('proctape resolve|liveness|lab ... --record FILE'), or - for "
                "standard input; several are added in order, a refusal does not stop the next")
      ->check(NonEmptyPath())
      ->required();
  add->corpus.Register(a, false);
  a->add_option("--name", add->request.request.name,
                "the entry's name (default: SCENARIO-SANDBOX for a lab recording, else FILE's "
                "base name); [A-Za-z0-9._-], at most 64")
      ->check(NonEmpty("an empty name names no entry"))
      ->type_name("NAME");
  CLI::Option* note =
      a->add_option(
           "--note", add->request.request.note,
           "what the recording shows, in a sentence (default for a 'proctape lab' recording: what "
           "its scenario shows, docs/lab.md)")
          ->check(NonEmpty("an empty note says nothing (leave --note out for the default)"))
          ->type_name("SENTENCE");
  OneValueEach(
      a->add_option("--expect", add->request.request.expects,
                    "the verdict resolution K must give, K = 0, 1, ...: a status (NO_MATCH, DEAD, "
                    "ERROR PID_REUSED; RESOLVED or ERROR alone take the identity or reason from "
                    "the replay) or RESOLVED pid=N start=T")
          ->check(NonEmpty("an empty verdict states nothing"))
          ->type_name("VERDICT"));
  a->add_flag("--json", add->json, "print the entry as one JSON object (CorpusAddResult)");
  a->footer(std::string(kExamples) +
            ExitStatusFooter("0 added, 2 usage error, 10 the corpus cannot be written (checked "
                             "first), 11-16 a damaged file, 20/21 the file does not replay to its "
                             "verdict, 23 bad MANIFEST (several files: the largest of their "
                             "statuses)"));
  a->callback([add, note, exit_code] {
    // Without --note, a lab recording says what its scenario shows.
    add->request.request.scenario_note = nullptr;
    if (note->count() == 0) {
      add->request.request.scenario_note = [](const std::string& scenario) {
        const lab::ScenarioInfo* s = lab::FindScenario(scenario);
        return s != nullptr ? std::string(s->shows) : std::string();
      };
    }
    *exit_code = RunAdd(*add);
  });
}

}  // namespace proctape
