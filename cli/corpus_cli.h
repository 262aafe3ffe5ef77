// SPDX-License-Identifier: Apache-2.0
// The pieces of `proctape corpus` (cli/corpus_command.cc): the corpus
// directory option every subcommand takes, and one Register per subcommand
// (cli/corpus_add_command.cc, corpus_check_command.cc, corpus_list_command.cc,
// corpus_report_command.cc).
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "cli/command_io.h"
#include "core/failure.h"
#include "fs/output_file.h"
#include "proctape.pb.h"

namespace proctape {

inline constexpr char kDefaultCorpusDir[] = "corpus";

// The corpus directory: --corpus DIR in every corpus command; check and list
// also take it as their one positional DIR, a shorthand. Both given is a
// usage error, even when they agree.
struct CorpusDirOption {
  std::string option = kDefaultCorpusDir;
  std::string positional;
  bool has_option = false;
  bool has_positional = false;

  void Register(CLI::App* sub, bool positional_too);
  // The directory, or "" after a usage error (*exit_code set).
  std::string Get(int* exit_code) const;
  // An error about the corpus in the one form (cli/errors.h AboutPath):
  // "--corpus 'DIR': MANIFEST: ..." (the option, given or by default), or
  // "DIR/MANIFEST: ..." as the library says it (the positional DIR).
  std::string About(const std::string& dir, const std::string& what) const;
  // A library's failure about the corpus (corpus/pipelines.h), said in that
  // form with its kind's status (cli/exit_codes.h ExitCodeFor).
  int FailAboutCorpus(const std::string& dir, const Failure& failure) const;
};

// The --junit file of `corpus check` and `corpus report`: --force without it
// refused (usage, said), else `io` entered (cli/command_io.h) with it as
// the output, checked and its temporary made before any work. kExitOk with
// *junit (null without --junit), or the status of what was said.
int EnterWithJUnit(CommandIo io, const std::string& junit_path, bool has_junit, bool force,
                   std::unique_ptr<OutputFile>* junit);

// The report of `corpus check` and `corpus report`: on standard output (JSON
// with `json`, else its text), then into `junit` (null: none; named
// `junit_path` in a failure). The exit status of the writing: 0, or 10.
int PrintCorpusReport(bool json, const std::string& junit_path, const v1::CorpusReport& report,
                      OutputFile* junit);

// `corpus add`, `corpus check`, `corpus list`, `corpus report` and `corpus rm`
// under `corpus`.
void RegisterCorpusAdd(CLI::App* corpus, int* exit_code);
void RegisterCorpusCheck(CLI::App* corpus, int* exit_code);
void RegisterCorpusList(CLI::App* corpus, int* exit_code);
void RegisterCorpusReport(CLI::App* corpus, int* exit_code);
void RegisterCorpusRm(CLI::App* corpus, int* exit_code);

}  // namespace proctape
