// SPDX-License-Identifier: Apache-2.0
// `proctape corpus list` and `proctape corpus rm`: the MANIFEST's entries shown
// or taken out (cli/corpus_command.cc).
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
#include "corpus/pipelines.h"
#include "proto/convert.h"

namespace proctape {
namespace {

struct ListOptions {
  CorpusDirOption corpus;
  bool json = false;
};

int RunList(const ListOptions& o) {
  int exit_code = kExitOk;
  const std::string dir = o.corpus.Get(&exit_code);
  if (dir.empty()) return exit_code;
  if (int entered = EnterCommand({"corpus list", {{"the corpus", dir, false, true}}});
      entered != kExitOk) {
    return entered;
  }
  CorpusListing listing = ListCorpus(dir);
  if (listing.failure) {
    return o.corpus.FailAboutCorpus(dir, *listing.failure);
  }
  if (o.json) {
    std::printf("%s\n", ToJson(listing.list).c_str());
  } else {
    std::fputs(listing.text.c_str(), stdout);
  }
  return kExitOk;
}

struct RmOptions {
  std::vector<std::string> names;
  CorpusDirOption corpus;
  bool json = false;
};

int RunRm(const RmOptions& o) {
  int exit_code = kExitOk;
  const std::string corpus_dir = o.corpus.Get(&exit_code);
  if (corpus_dir.empty()) return exit_code;
  CommandIo io{"corpus rm", {{"the corpus", corpus_dir, false, true}}};
  io.creates_in = {corpus_dir};
  if (int entered = EnterCommand(io); entered != kExitOk) return entered;
  CorpusRemoval removal = RemoveCorpusEntries(corpus_dir, o.names);
  if (o.json && removal.removed.entries_size() > 0) {
    // The entries removed, as 'corpus list --json' shows entries.
    std::printf("%s\n", ToJson(removal.removed).c_str());
  } else {
    std::fputs(removal.text.c_str(), stdout);
  }
  std::fflush(stdout);
  for (const std::string& w : removal.warnings) Warn(w);
  if (!removal.failure) return kExitOk;
  // A name that is no entry is about the names; anything else about the corpus.
  if (removal.failure->kind == FailureKind::kUsage) return Fail(*removal.failure);
  return o.corpus.FailAboutCorpus(corpus_dir, *removal.failure);
}

}  // namespace

void RegisterCorpusList(CLI::App* corpus, int* exit_code) {
  auto list = std::make_shared<ListOptions>();
  CLI::App* l = corpus->add_subcommand(
      "list",
      "List the entries. One line per entry of the corpus in DIR: name, expected\n"
      "verdicts, kernel, capture time, what it shows.");
  list->corpus.Register(l, true);
  l->add_flag("--json", list->json, "print the entries as one JSON object (CorpusList)");
  l->footer(std::string("Example:\n  proctape corpus list corpus\n\n") +
            ExitStatusFooter("0, 2 usage error, 23 bad MANIFEST"));
  l->callback([list, exit_code] { *exit_code = RunList(*list); });
}

void RegisterCorpusRm(CLI::App* corpus, int* exit_code) {
  auto rm = std::make_shared<RmOptions>();
  CLI::App* r = corpus->add_subcommand(
      "rm",
      "Take entries out of the corpus. Each NAME leaves the MANIFEST and its recording is\n"
      "deleted from the directory (the MANIFEST is rewritten first, under the directory's\n"
      "lock, as 'add' writes it). All the names or none: a NAME that is not an entry removes\n"
      "nothing (exit 2). The repository's corpus is in git: 'git checkout corpus/' undoes it.");
  r->add_option("NAME", rm->names, "an entry's name, as 'proctape corpus list' shows it")
      ->check(NonEmpty("an empty name names no entry"))
      ->required();
  rm->corpus.Register(r, false);
  r->add_flag("--json", rm->json,
              "print the removed entries as one JSON object (CorpusList, as 'list --json')");
  r->footer(std::string("Examples:\n"
                        "  proctape corpus rm plain-bwrap\n"
                        "  proctape corpus rm ci-flake-1 ci-flake-2 --corpus my-corpus\n\n") +
            ExitStatusFooter(
                "0 removed, 2 usage error, or no such entry (nothing removed), 10 a file cannot be "
                "written or deleted, 23 no MANIFEST or a bad one"));
  r->callback([rm, exit_code] { *exit_code = RunRm(*rm); });
}

}  // namespace proctape
