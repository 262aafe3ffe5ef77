// SPDX-License-Identifier: Apache-2.0
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
#include "tests/live/files.h"
#include "tests/live/sandbox.h"

namespace proctape::live {

inline const std::string& SourceCorpus() {
  static const std::string dir = std::string(PROCTAPE_SOURCE_DIR) + "/corpus";
  return dir;
}
// A recording of the repository's corpus (entry hostile-comm-bwrap).
inline std::string CorpusRecording() { return SourceCorpus() + "/b552a8b49f217079.ptape"; }

// The --json report of `corpus check --shard 1/1` of the corpus's entry
// plain-unshare, written once into a temporary directory: what `corpus
// report` merges (docs/corpus.md, "Shards"). Its directory is removed when
// the test program ends.
inline std::string ShardReport() {
  static const TempDir dir("shard-report");
  static const std::string path = [] {
    const std::string file = dir.File("shard-1.json");
    WriteFile(file, Proctape({"corpus", "check", SourceCorpus(), "--entry", "plain-unshare",
                              "--shard", "1/1", "--json"})
                        .out);
    return file;
  }();
  return path;
}

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
  bool directory = false;            // export --format proc-dir, csv
  bool lab = false;                  // needs unshare; starts processes
  std::function<std::vector<std::string>(const std::string& out)> args;
  // The statuses of a run that wrote its output (a resolve finds no sandbox
  // here: NO_MATCH or DEADLINE, recorded all the same).
  std::set<int> wrote = {0};
  bool dash = true;  // '-' is standard output (false: refused, exit 2)
  // A directory output: the file that makes an existing one an earlier
  // export, and another an earlier export holds (replaced by --force).
  std::string marker = "proctape-frame";
  std::string earlier = "99999/stat";
};

// Named in test output by its name, not its bytes.
inline void PrintTo(const Writer& w, std::ostream* os) { *os << w.name; }

// Those that read a recording read `rec` (default: the corpus's).
inline std::vector<Writer> Writers(const std::string& rec = CorpusRecording()) {
  using Argv = std::vector<std::string>;
  auto exported = [rec](const std::string& format) {
    return [rec, format](const std::string& out) {
      return Argv{"export", rec, "--format", format, "--out", out};
    };
  };
  return {
      {"capture",
       {"capture"},
       "--output",
       false,
       false,
       [](const std::string& out) {
         return Argv{"capture", "--root", SelfPid(), "-o", out};
       }},
      {"fingerprint",
       {"fingerprint"},
       "--output",
       false,
       false,
       [](const std::string& out) {
         return Argv{"fingerprint", "--root", SelfPid(), "-o", out};
       }},
      {"export_json", {"export"}, "--output", false, false, exported("json")},
      {"export_dot", {"export"}, "--output", false, false, exported("dot")},
      {"export_sqlite", {"export"}, "--output", false, false, exported("sqlite")},
      {"export_proc_dir", {"export"}, "--output", true, false, exported("proc-dir"), {0}, false},
      {"export_csv",
       {"export"},
       "--output",
       true,
       false,
       exported("csv"),
       {0},
       false,
       "files.csv",
       "processes.csv"},
      {"minimize",
       {"minimize"},
       "--output",
       false,
       false,
       [rec](const std::string& out) {
         return Argv{"minimize", rec, "-o", out};
       },
       {0},
       false},
      {"sql_db",
       {"sql"},
       "--db",
       false,
       false,
       [rec](const std::string& out) {
         return Argv{"sql", rec, "--db", out};
       },
       {0},
       false},
      {"resolve_record",
       {"resolve"},
       "--record",
       false,
       false,
       [](const std::string& out) {
         return Argv{"resolve",       "--root", SelfPid(),  "--token", "t0k3n",
                     "--deadline-ms", "0",      "--record", out};
       },
       {5, 8}},
      {"liveness_record",
       {"liveness"},
       "--record",
       false,
       false,
       [](const std::string& out) {
         return Argv{"liveness", "--pid", SelfPid(), "--start", SelfStart(), "--record", out};
       }},
      {"lab_record",
       {"lab"},
       "--record",
       false,
       true,
       [](const std::string& out) {
         return Argv{"lab", "plain", "--record", out};
       },
       {0},
       false},
      {"corpus_report_junit",
       {"corpus", "report"},
       "--junit",
       false,
       false,
       [](const std::string& out) {
         return Argv{"corpus", "report", ShardReport(), "--junit", out};
       },
       {0},
       false},
      {"corpus_check_junit",
       {"corpus", "check"},
       "--junit",
       false,
       false,
       [](const std::string& out) {
         return Argv{"corpus", "check", SourceCorpus(), "--entry", "plain-unshare", "--junit", out};
       },
       {0},
       false},
  };
}

// A command that writes files into a directory it is given, each named by
// the command: explore --out DIR (docs/cli/outputs.md, "A directory written
// into"; corpus add --corpus DIR is outputs_corpus_cli_test.cc's).
struct IntoWriter {
  std::string name;
  std::vector<std::string> command;
  std::string option;
  std::function<std::vector<std::string>(const std::string& dir)> args;
  std::string written;               // the name of a file a run writes into DIR
  std::vector<std::string> without;  // a command line without the option
};

inline void PrintTo(const IntoWriter& w, std::ostream* os) { *os << w.name; }

inline std::vector<IntoWriter> IntoWriters(const std::string& rec = CorpusRecording()) {
  using Argv = std::vector<std::string>;
  return {
      {"explore_out",
       {"explore"},
       "--out",
       [rec](const std::string& dir) {
         return Argv{"explore", rec, "--depth", "1", "--examples", "1", "--out", dir};
       },
       "b552a8b49f217079-check0-MULTIPLE_MATCHES.ptape",
       Argv{"explore", rec, "--depth", "1"}},
  };
}

}  // namespace proctape::live
