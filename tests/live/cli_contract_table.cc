// SPDX-License-Identifier: Apache-2.0
#include "tests/live/cli_contract_table.h"

#include <sys/stat.h>

#include "tests/live/files.h"
#include "tests/live/output_writers.h"

namespace proctape::live {
namespace {

// Recordings of the repository's corpus (corpus/MANIFEST): plain-unshare,
// and the two ownership takes as its baseline and current snapshot.
std::string Recording() { return SourceCorpus() + "/f46add6575430d19.ptape"; }
std::string Baseline() { return SourceCorpus() + "/021e7cdf322033a4.ptape"; }
std::string Current() { return SourceCorpus() + "/d40fb836ad433348.ptape"; }

// The recording's first 200 bytes in `dir`: a file cut inside a chunk.
std::string TruncatedCopy(const std::string& dir) {
  const std::string path = dir + "/truncated.ptape";
  WriteFile(path, FileBytes(Recording()).substr(0, 200));
  return path;
}

// A corpus in `dir` whose one entry (the plain-unshare recording) expects a
// verdict its replay does not give: it drifts.
std::string DriftedCorpus(const std::string& dir) {
  const std::string corpus = dir + "/drifted";
  ::mkdir(corpus.c_str(), 0755);
  WriteFile(corpus + "/f46add6575430d19.ptape", FileBytes(Recording()));
  WriteFile(corpus + "/MANIFEST",
            "# proctape corpus manifest, format 1\n\n"
            "entry    plain-unshare\n"
            "file     f46add6575430d19.ptape\n"
            "sha256   f46add6575430d195b52ce9817d6592befced3767258841b3d3bdf5c0e79fbb4\n"
            "expect   NO_MATCH\n");
  return corpus;
}

// The same reading of a .ptape file wherever one is read: a missing file or
// a directory cannot be opened or read (10); '-' is standard input.
Input PtapeFile(std::string option, std::function<Args(const Fixture&, const std::string&)> args) {
  return {std::move(option), std::move(args), 10, 10, false, true};
}

// --proc DIR: the procfs to read. Missing, not a directory, or not the root
// of a procfs mount: 2, the user's path (cli/live_proc.h); only a procfs
// that cannot be opened is proctape's own failure (1).
Input ProcMount(std::function<Args(const Fixture&, const std::string&)> args) {
  return {"--proc", std::move(args), 2, 2, true, false};
}

// --exe FILE: the executable attested by device and inode (never read): one
// that cannot be attested, or is not a regular file, makes the request
// invalid (2).
Input Executable(std::function<Args(const Fixture&, const std::string&)> args) {
  return {"--exe", std::move(args), 2, 2, false, false};
}

// A corpus directory: one without a MANIFEST (missing, or a file) is no
// corpus (23).
Input CorpusDir(std::string option, std::function<Args(const Fixture&, const std::string&)> args) {
  return {std::move(option), std::move(args), 23, 23, true, false};
}

std::vector<Row> Table() {
  using F = const Fixture&;
  using P = const std::string&;
  const std::pair<std::string, std::string> corpus_written = {
      "--corpus", "the corpus it writes into: CorpusOutputs in outputs_corpus_cli_test.cc"};
  return {
      {.command = {"fingerprint"},
       .inputs = {Executable([](F f, P p) {
                    return Args{"fingerprint", "--root",     f.self_pid, "--exe", p,
                                "-o",          f.dir + "/fp"};
                  }),
                  ProcMount([](F f, P p) {
                    return Args{"fingerprint", "--root",     f.self_pid, "--proc", p,
                                "-o",          f.dir + "/fp"};
                  })},
       .json =
           [](F f) {
             return Args{"fingerprint", "--root", f.self_pid, "-o", f.dir + "/fp", "--json"};
           }},
      {.command = {"resolve"},
       .inputs = {PtapeFile("--fingerprint",
                            [](F, P p) {
                              return Args{"resolve", "--fingerprint", p, "--token", "t"};
                            }),
                  Executable([](F f, P p) {
                    return Args{"resolve",       "--root", f.self_pid, "--token", "t",
                                "--deadline-ms", "0",      "--exe",    p};
                  }),
                  ProcMount([](F f, P p) {
                    return Args{"resolve",       "--root", f.self_pid, "--token", "t",
                                "--deadline-ms", "0",      "--proc",   p};
                  })},
       .json = [](F f) { return Args{"resolve", "--root", f.root, "--token", f.token, "--json"}; },
       // No time to look: DEADLINE (8), the verdict on standard output.
       .json_finding =
           [](F f) {
             return Args{"resolve", "--root",        f.self_pid, "--token",
                         "t",       "--deadline-ms", "0",        "--json"};
           },
       .json_needs_sandbox = true},
      {.command = {"liveness"},
       .inputs = {ProcMount([](F f, P p) {
                    return Args{"liveness",   "--pid",  f.self_pid, "--start",
                                f.self_start, "--proc", p};
                  }),
                  // The identity's boot: a fingerprint file's, or a recording's
                  // RESOLVED identity with its boot (docs/resolver.md, "Liveness").
                  PtapeFile("--fingerprint",
                            [](F f, P p) {
                              return Args{"liveness",   "--pid",         f.self_pid, "--start",
                                          f.self_start, "--fingerprint", p};
                            }),
                  PtapeFile("--from-recording",
                            [](F, P p) {
                              return Args{"liveness", "--from-recording", p};
                            })},
       .json =
           [](F f) {
             return Args{"liveness", "--pid", f.self_pid, "--start", f.self_start, "--json"};
           },
       // Another start tick: this pid is another process now (4).
       .json_finding =
           [](F f) { return Args{"liveness", "--pid", f.self_pid, "--start", "1", "--json"}; }},
      {.command = {"capture"},
       .inputs = {ProcMount([](F f, P p) {
                    return Args{"capture", "--root", f.self_pid, "-o", f.dir + "/c", "--proc", p};
                  }),
                  // An import: a directory the user named, read as any input
                  // is: missing or not a directory, 10 (docs/export.md, "Exit
                  // statuses"); unlike --proc, it is no mount of this host.
                  {"--proc-root",
                   [](F f, P p) {
                     return Args{"capture", "--proc-root", p, "-o", f.dir + "/c"};
                   },
                   10, 10, true, false}},
       .json =
           [](F f) { return Args{"capture", "--root", f.self_pid, "-o", f.dir + "/c", "--json"}; }},
      {.command = {"verify"},
       .inputs = {PtapeFile("FILE",
                            [](F, P p) {
                              return Args{"verify", p};
                            })},
       .json =
           [](F) {
             return Args{"verify", Recording(), "--json"};
           },
       // A file cut short: TRUNCATED (13), its report the finding.
       .json_finding =
           [](F f) {
             return Args{"verify", Recording(), TruncatedCopy(f.dir), "--json"};
           },
       .failure_is_report = true},
      {.command = {"show"},
       .inputs = {PtapeFile("FILE",
                            [](F, P p) {
                              return Args{"show", p};
                            })},
       .json =
           [](F) {
             return Args{"show", Recording(), "--json"};
           },
       .failure_is_report = true},
      {.command = {"tree"},
       .inputs = {PtapeFile("FILE",
                            [](F, P p) {
                              return Args{"tree", p};
                            })},
       .json =
           [](F) {
             return Args{"tree", Recording(), "--json"};
           }},
      {.command = {"diff"},
       .inputs = {PtapeFile("FILE",
                            [](F, P p) {
                              return Args{"diff", p};
                            }),
                  PtapeFile("FILE",
                            [](F, P p) {
                              return Args{"diff", Recording(), p};
                            })},
       .json =
           [](F) {
             return Args{"diff", Recording(), "--json"};
           }},
      {.command = {"explain"},
       .inputs = {PtapeFile("FILE",
                            [](F, P p) {
                              return Args{"explain", p};
                            })},
       .json =
           [](F) {
             return Args{"explain", Recording(), "--json"};
           }},
      {.command = {"export"},
       .inputs = {PtapeFile("FILE",
                            [](F, P p) {
                              return Args{"export", p, "--format", "dot"};
                            }),
                  // json reads its input twice: standard input is copied first.
                  PtapeFile("FILE",
                            [](F f, P p) {
                              return Args{"export", p, "--format", "json", "-o", f.dir + "/t.json"};
                            })},
       .json =
           [](F f) {
             return Args{"export", Recording(),      "--format", "dot",
                         "-o",     f.dir + "/t.dot", "--json"};
           }},
      {.command = {"replay"},
       .inputs = {PtapeFile("FILE",
                            [](F, P p) {
                              return Args{"replay", p};
                            }),
                  PtapeFile("--fingerprint",
                            [](F, P p) {
                              return Args{"replay", Recording(), "--fingerprint", p};
                            })},
       .json =
           [](F) {
             return Args{"replay", Recording(), "--json"};
           },
       // Another token: the replay makes a call the recording did not, DIVERGED
       // (21), the report on standard output.
       .json_finding =
           [](F) {
             return Args{"replay", Recording(), "--token", "other", "--json"};
           }},
      {.command = {"explore"},
       .inputs = {PtapeFile("FILE",
                            [](F, P p) {
                              return Args{"explore", p, "--depth", "1"};
                            })},
       .json =
           [](F) {
             return Args{"explore", Recording(), "--depth", "1", "--json"};
           }},
      {.command = {"sql"},
       .inputs = {PtapeFile("FILE",
                            [](F, P p) {
                              return Args{"sql", p, "-c", "SELECT 1"};
                            })},
       .json =
           [](F) {
             return Args{"sql", Recording(), "-c", "SELECT 1", "--json"};
           }},
      {.command = {"minimize"},
       .inputs = {PtapeFile("FILE",
                            [](F f, P p) {
                              return Args{"minimize", p, "-o", f.dir + "/min.ptape", "--force"};
                            })},
       .json =
           [](F f) {
             return Args{"minimize", Recording(), "-o", f.dir + "/min.ptape", "--force", "--json"};
           }},
      {.command = {"corpus"}},
      {.command = {"corpus", "add"},
       .inputs = {PtapeFile("FILE",
                            [](F f, P p) {
                              return Args{"corpus", "add", p, "--corpus", f.dir + "/c"};
                            })},
       .not_inputs = {corpus_written},
       .json =
           [](F f) {
             return Args{"corpus", "add", Recording(), "--corpus", f.dir + "/c", "--json"};
           }},
      {.command = {"corpus", "check"},
       .inputs = {CorpusDir("DIR",
                            [](F, P p) {
                              return Args{"corpus", "check", p};
                            }),
                  CorpusDir("--corpus",
                            [](F, P p) {
                              return Args{"corpus", "check", "--corpus", p};
                            })},
       .json =
           [](F) {
             return Args{"corpus", "check", SourceCorpus(), "--entry", "plain-unshare", "--json"};
           },
       // An entry whose replay is not the verdict it expects: drift (22),
       // the report on standard output.
       .json_finding =
           [](F f) {
             return Args{"corpus", "check", DriftedCorpus(f.dir), "--json"};
           }},
      // A shard's JSON report: '-' reads standard input, but an empty one
      // is no JSON report (27), not a truncated .ptape (13).
      {.command = {"corpus", "report"},
       .inputs = {{"FILE",
                   [](F, P p) {
                     return Args{"corpus", "report", p};
                   },
                   10, 10, false, false}},
       .json =
           [](F) {
             return Args{"corpus", "report", ShardReport(), "--json"};
           },
       // The report of a shard of a corpus whose entry drifted: 22.
       .json_finding =
           [](F f) {
             const std::string report = f.dir + "/drifted.json";
             WriteFile(report, Proctape({"corpus", "check", DriftedCorpus(f.dir), "--shard", "1/1",
                                         "--json"})
                                   .out);
             return Args{"corpus", "report", report, "--json"};
           }},
      {.command = {"corpus", "list"},
       .inputs = {CorpusDir("DIR",
                            [](F, P p) {
                              return Args{"corpus", "list", p};
                            }),
                  CorpusDir("--corpus",
                            [](F, P p) {
                              return Args{"corpus", "list", "--corpus", p};
                            })},
       .json =
           [](F) {
             return Args{"corpus", "list", SourceCorpus(), "--json"};
           }},
      {.command = {"corpus", "rm"},
       .inputs = {CorpusDir("--corpus",
                            [](F, P p) {
                              return Args{"corpus", "rm", "x", "--corpus", p};
                            })},
       .json =
           [](F f) {
             // An entry to take out: added to a corpus of its own first.
             Proctape({"corpus", "add", Recording(), "--corpus", f.dir + "/c", "--name", "one"});
             return Args{"corpus", "rm", "one", "--corpus", f.dir + "/c", "--json"};
           }},
      {.command = {"lab"},
       .json =
           [](F) {
             return Args{"lab", "--list", "--json"};
           }},
      {.command = {"ownership"},
       .inputs = {PtapeFile("--baseline",
                            [](F, P p) {
                              return Args{"ownership", "--baseline", p,   "--current",
                                          Current(),   "--uid",      "0", "--cgroup",
                                          "/",         "--self",     "1"};
                            }),
                  PtapeFile("--current",
                            [](F, P p) {
                              return Args{"ownership", "--baseline", Baseline(), "--current",
                                          p,           "--uid",      "0",        "--cgroup",
                                          "/",         "--self",     "1"};
                            })},
       .not_inputs = {{"--cgroup", "a cgroup v2 path, compared as text: no file is read"}},
       .not_written = {{"--output",
                        "a declared output of the task: planned present or absent, never "
                        "written"}},
       .json =
           [](F) {
             return Args{"ownership", "--baseline", Baseline(), "--current", Current(), "--uid",
                         "0",         "--cgroup",   "/",        "--self",    "1",       "--json"};
           },
       // A scope that does not hold --self: the plan refused (26).
       .json_finding =
           [](F) {
             return Args{"ownership", "--baseline", Baseline(), "--current", Current(), "--uid",
                         "0",         "--cgroup",   "/nosuch",  "--self",    "1",       "--json"};
           }},
      {.command = {"help"}},
  };
}

}  // namespace

const std::vector<Row>& ContractTable() {
  static const std::vector<Row> table = Table();
  return table;
}

Fixture FixtureIn(const std::string& dir) {
  Fixture f;
  f.dir = dir;
  f.self_pid = SelfPid();
  f.self_start = SelfStart();
  return f;
}

void PrintTo(const Row& row, std::ostream* os) { *os << NameOf(row.command); }

const Row* FindRow(const CommandWords& command) {
  for (const Row& row : ContractTable()) {
    if (row.command == command) return &row;
  }
  return nullptr;
}

}  // namespace proctape::live
