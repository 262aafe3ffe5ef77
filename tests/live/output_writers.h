// Every command that writes a file, with the option that names it
// (docs/cli/outputs.md): the table outputs_cli_test.cc runs each rule of the
// one output rule against, and that the contract test (cli_contract_test.cc)
// holds against every output option the binary's help lists.
#pragma once

#include <unistd.h>

#include <functional>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/sandbox.h"

namespace proctape::live {

inline const std::string& SourceCorpus() {
  static const std::string dir = std::string(PROCTAPE_SOURCE_DIR) + "/corpus";
  return dir;
}
// A recording of the repository's corpus (entry hostile-comm-bwrap).
inline std::string CorpusRecording() { return SourceCorpus() + "/b552a8b49f217079.ptape"; }

// This test process: a live pid and its start tick, for commands that need one.
inline std::string SelfPid() { return std::to_string(::getpid()); }
inline std::string SelfStart() {
  std::optional<ProcStat> st = ReadStat(::getpid());
  return st ? std::to_string(st->start_ticks) : "0";
}

// One command that writes a file: its arguments for an output at OUT.
struct Writer {
  std::string name;
  std::vector<std::string> command;  // {"corpus", "check"}
  std::string option;                // the option that names the output
  bool directory = false;            // export --format proc-dir
  bool lab = false;                  // needs unshare; starts processes
  std::function<std::vector<std::string>(const std::string& out)> args;
  // The statuses of a run that wrote its output (a resolve finds no sandbox
  // here: NO_MATCH or DEADLINE, recorded all the same).
  std::set<int> wrote = {0};
};

// Named in test output by its name, not its bytes.
inline void PrintTo(const Writer& w, std::ostream* os) { *os << w.name; }

inline std::vector<Writer> Writers() {
  using Argv = std::vector<std::string>;
  return {
      {"capture", {"capture"}, "--output", false, false,
       [](const std::string& out) { return Argv{"capture", "--root", SelfPid(), "-o", out}; }},
      {"fingerprint", {"fingerprint"}, "--output", false, false,
       [](const std::string& out) {
         return Argv{"fingerprint", "--root", SelfPid(), "-o", out};
       }},
      {"export_json", {"export"}, "--output", false, false,
       [](const std::string& out) {
         return Argv{"export", CorpusRecording(), "--format", "json", "--out", out};
       }},
      {"export_proc_dir", {"export"}, "--output", true, false,
       [](const std::string& out) {
         return Argv{"export", CorpusRecording(), "--format", "proc-dir", "--out", out};
       }},
      {"resolve_record", {"resolve"}, "--record", false, false,
       [](const std::string& out) {
         return Argv{"resolve", "--root", SelfPid(), "--token", "t0k3n", "--deadline-ms", "0",
                     "--record", out};
       },
       {5, 8}},
      {"liveness_record", {"liveness"}, "--record", false, false,
       [](const std::string& out) {
         return Argv{"liveness", "--pid", SelfPid(), "--start", SelfStart(), "--record", out};
       }},
      {"lab_record", {"lab"}, "--record", false, true,
       [](const std::string& out) { return Argv{"lab", "plain", "--record", out}; }},
      {"corpus_check_junit", {"corpus", "check"}, "--junit", false, false,
       [](const std::string& out) {
         return Argv{"corpus", "check", SourceCorpus(), "--entry", "plain-unshare", "--junit", out};
       }},
  };
}

}  // namespace proctape::live
