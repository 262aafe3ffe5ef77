// SPDX-License-Identifier: Apache-2.0
// Every command in its jail, in every mode that writes (docs/security.md,
// "The jail of each command"): the list of commands and of the options that
// write is read from `proctape --print-jail` itself (cli/jail_commands.cc),
// so a command or an output added there without a run here fails, and
// `help --completion-spec` shows that --print-jail names every command and
// every option that names a file or directory. Each run has the probe on
// (PROCTAPE_JAIL_PROBE=1): its line says the jail was entered, and the
// output the mode writes must then exist (written from inside the jail).
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/live/corpus_files.h"
#include "tests/live/files.h"
#include "tests/live/build_paths.h"

namespace proctape::live {
namespace {

// One line of --print-jail: "  NAME: LAYERS; reads READS; writes WRITES".
struct JailLine {
  std::string layers;
  std::string reads;
  std::set<std::string> writes;  // the options that write ("-o", "--db")
};

std::map<std::string, JailLine> PrintedJails() {
  std::map<std::string, JailLine> out;
  const CommandResult r = Proctape({"--print-jail"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("  ", 0) != 0) continue;
    const std::size_t colon = line.find(": ");
    const std::size_t reads = line.find("; reads ");
    const std::size_t writes = line.find("; writes ");
    if (colon == std::string::npos || reads == std::string::npos || writes == std::string::npos) {
      ADD_FAILURE() << "not NAME: LAYERS; reads ...; writes ...: " << line;
      continue;
    }
    JailLine j;
    j.layers = line.substr(colon + 2, reads - colon - 2);
    j.reads = line.substr(reads + 8, writes - reads - 8);
    std::istringstream words(line.substr(writes + 9));
    for (std::string w; words >> w;) {
      if (w.size() > 1 && w[0] == '-') j.writes.insert(w);
    }
    out[line.substr(2, colon - 2)] = j;
  }
  return out;
}

// A run of one command in one mode, as a bash script: P runs the binary
// with the probe on (exec: the probe is the script's last command), $B is
// the binary without it, $R a recording, $F a corpus entry's file, $K the
// shipped corpus, $D a fresh directory, $T the test's own pid. `made`,
// relative to $D, must exist once it ran ("x/": a directory holding a file).
struct ModeRun {
  std::string mode;  // "COMMAND OPTION" for a mode that writes, else "COMMAND"
  std::string script;
  std::string made;
  int status = 0;  // -1: any (a live verdict of this host)
};

const std::vector<ModeRun>& Runs() {
  static const std::vector<ModeRun> runs = {
      {"verify", "P verify $R", "", 0},
      {"verify", "P verify - < $R", "", 0},
      {"verify", "P verify <(cat $R)", "", 0},
      {"show", "P show $R", "", 0},
      {"show", "P show <(cat $R) - < $R", "", 0},
      {"tree", "P tree $R", "", 0},
      {"tree", "P tree - < $R", "", 0},
      {"diff", "P diff $R $R", "", 0},
      {"diff", "P diff - <(cat $R) < $R", "", 0},
      {"explain", "P explain $R", "", 0},
      {"explain", "P explain <(cat $R)", "", 0},
      {"replay", "P replay $R", "", 0},
      {"replay", "P replay - < $R", "", 0},
      {"export -o", "P export $R --format json -o $D/out.json", "out.json", 0},
      {"export -o", "P export $R --format json -o - > $D/stdout.json", "stdout.json", 0},
      {"export -o", "P export - --format dot -o $D/out.dot < $R", "out.dot", 0},
      {"export -o", "P export $R --format proc-dir -o $D/pd", "pd/", 0},
      {"export -o", "P export $F --format sqlite -o $D/out.db", "out.db", 0},
      {"export -o", "P export <(cat $R) --format sqlite -o $D/pipe.db", "pipe.db", 0},
      {"export -o", "P export $F --format csv -o $D/csv", "csv/files.csv", 0},
      {"explore --out", "mkdir $D/found && P explore $R --depth 1 --out $D/found --examples 1",
       "found/", 0},
      {"explore --out", "mkdir $D/found && P explore - --depth 1 --out $D/found --examples 1 < $R",
       "found/", 0},
      {"minimize -o", "P minimize $R -o $D/min.ptape", "min.ptape", 0},
      {"minimize -o", "P minimize <(cat $R) -o $D/min.ptape", "min.ptape", 0},
      {"sql", "P sql $F -c 'SELECT entry FROM files'", "", 0},
      {"sql --db", "P sql $F --db $D/a.db", "a.db", 0},
      {"sql --db", "P sql - --db $D/b.db < $R", "b.db", 0},
      {"sql --db", "P sql <(cat $R) $F --db $D/c.db", "c.db", 0},
      {"ownership", "P ownership --baseline $F --current $F --uid 0 --cgroup / --self 1", "", -1},
      {"ownership", "P ownership --baseline - --current <(cat $F) --uid 0 --cgroup / --self 1 < $F",
       "", -1},
      {"corpus check", "P corpus check $K --entry plain-unshare", "", 0},
      {"corpus check --junit", "P corpus check $K --entry plain-unshare --junit $D/j.xml", "j.xml",
       0},
      {"corpus list", "P corpus list $K", "", 0},
      {"corpus report",
       "$B corpus check $K --entry plain-unshare --shard 1/1 --json > $D/s.json && "
       "P corpus report $D/s.json",
       "", 0},
      {"corpus report --junit",
       "$B corpus check $K --entry plain-unshare --shard 1/1 --json > $D/s.json && "
       "P corpus report - --junit $D/m.xml < $D/s.json",
       "m.xml", 0},
      {"corpus rm --corpus",
       "$B corpus add $F --corpus $D/rm --name one >/dev/null && P corpus rm one --corpus $D/rm",
       "rm/MANIFEST", 0},
      {"corpus add --corpus", "P corpus add $F --corpus $D/add", "add/MANIFEST", 0},
      {"corpus add --corpus", "P corpus add - --corpus $D/stdin < $F", "stdin/MANIFEST", 0},
      {"fingerprint -o", "P fingerprint --root $T -o $D/fp.ptape", "fp.ptape", 0},
      {"fingerprint -o", "P fingerprint --root $T -o - > $D/fp2.ptape", "fp2.ptape", 0},
      {"resolve --record", "P resolve --root $T --token t --deadline-ms 0 --record $D/r.ptape",
       "r.ptape", -1},
      {"liveness --record", "P liveness --pid $T --start 1 --record $D/l.ptape", "l.ptape", -1},
      {"capture -o", "P capture --frames 1 -o $D/c.ptape", "c.ptape", 0},
      {"capture -o", "P capture --frames 1 -o - > $D/c2.ptape", "c2.ptape", 0},
      {"capture -o",
       "$B export $R --format proc-dir -o $D/host && "
       "P capture --proc-root $D/host -o $D/c3.ptape",
       "c3.ptape", 0},
      {"help", "P help verify", "", 0},
  };
  return runs;
}

std::string ProbeLine(const CommandResult& r) {
  const std::string tag = "proctape: jail probe: ";
  const std::size_t at = r.err.find(tag);
  if (at == std::string::npos) return "";
  const std::size_t end = r.err.find('\n', at);
  return r.err.substr(at + tag.size(), end - at - tag.size());
}

CommandResult RunScript(const std::string& script, const TempDir& dir) {
  const std::string prelude =
      std::string("set -e; B=") + ::proctape::live::TestedBinary() + "; R=" + kSource +
      "/tests/data/replay/alive.ptape; F=" + CorpusFile("plain-unshare") + "; K=" + kSource +
      "/corpus; D=" + dir.path() + "; T=" + std::to_string(::getpid()) +
      "; P() { exec env PROCTAPE_JAIL_PROBE=1 \"$B\" \"$@\"; }; ";
  return RunCommand({"/bin/bash", "-c", prelude + script}, 180'000);
}

bool Made(const TempDir& dir, const std::string& made) {
  if (made.empty() || made.back() != '/') return Exists(dir.File(made));
  return !Entries(dir.File(made.substr(0, made.size() - 1))).empty();
}

TEST(JailModesCli, EveryCommandInEveryModeThatWritesRunsInItsJail) {
  const std::map<std::string, JailLine> jails = PrintedJails();
  ASSERT_FALSE(jails.empty());
  // Each mode --print-jail states: "COMMAND OPTION" per option that writes,
  // "COMMAND" for one that writes nothing; lab alone has no jail.
  std::set<std::string> modes;
  for (const auto& [command, jail] : jails) {
    if (jail.layers.rfind("none", 0) == 0) {
      EXPECT_EQ(command, "lab") << "only lab runs without a jail";
      continue;
    }
    if (jail.writes.empty()) modes.insert(command);
    for (const std::string& option : jail.writes) modes.insert(command + " " + option);
  }
  std::set<std::string> ran;
  for (const ModeRun& run : Runs()) {
    const std::string command = run.mode.substr(0, run.mode.find(" -"));
    ASSERT_TRUE(jails.count(command)) << run.mode << ": not a command --print-jail lists";
    const JailLine& jail = jails.at(command);
    if (run.mode != command) {
      EXPECT_TRUE(modes.count(run.mode)) << run.mode << ": not an option --print-jail says writes";
    }
    ran.insert(run.mode);
    TempDir dir("jail-modes");
    const CommandResult r = RunScript(run.script, dir);
    const std::string shown = run.script + "\n" + Describe(r);
    const bool landlock = jail.layers.find("landlock") != std::string::npos;
    EXPECT_EQ(ProbeLine(r), landlock ? "kill EPERM, ptrace EPERM, proc EACCES, self 0"
                                     : "kill EPERM, ptrace EPERM, proc 0, self 0")
        << shown;
    if (run.status >= 0) {
      EXPECT_EQ(r.exit_code, run.status) << shown;
    }
    EXPECT_EQ(r.term_signal, 0) << shown;
    if (!run.made.empty()) {
      EXPECT_TRUE(Made(dir, run.made)) << run.made << " missing\n" << shown;
    }
  }
  for (const std::string& mode : modes) EXPECT_TRUE(ran.count(mode)) << mode << ": never run here";
}

// Every command of the command line has its jail stated, and every option
// that names a file or directory (or -o, --db, --junit, --record, the
// options that write) is named in its line: a new output cannot be left
// out of --print-jail, and so out of the runs above.
TEST(JailModesCli, PrintJailNamesEveryCommandAndEveryFileOption) {
  const std::map<std::string, JailLine> jails = PrintedJails();
  const CommandResult spec = Proctape({"help", "--completion-spec"});
  ASSERT_EQ(spec.exit_code, 0) << Describe(spec);
  std::istringstream lines(spec.out);
  std::string line;
  std::set<std::string> groups = {"corpus"};  // a command of commands: its own jail has none
  while (std::getline(lines, line)) {
    std::vector<std::string> f;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, '\t');) f.push_back(cell);
    if (f.size() == 2 && f[0] == "command" && !groups.count(f[1])) {
      EXPECT_TRUE(jails.count(f[1])) << f[1] << ": no jail in --print-jail";
    }
    if (f.size() != 4 || f[0] != "option" || groups.count(f[1])) continue;
    const bool writes = f[2] == "-o" || f[2] == "--db" || f[2] == "--junit" || f[2] == "--record";
    if (f[3] != "file" && f[3] != "dir" && !writes) continue;
    if (f[2] == "--output" || (f[2] == "--out" && f[1] != "explore")) continue;  // -o's names
    ASSERT_TRUE(jails.count(f[1])) << f[1];
    const JailLine& jail = jails.at(f[1]);
    const bool named =
        jail.writes.count(f[2]) > 0 || jail.reads.find(f[2]) != std::string::npos ||
        (f[2] == "--corpus" && jail.reads.find("the corpus DIR") != std::string::npos);
    EXPECT_TRUE(named) << f[1] << " " << f[2] << " (" << f[3]
                       << ") is not in its --print-jail line";
  }
}

}  // namespace
}  // namespace proctape::live
