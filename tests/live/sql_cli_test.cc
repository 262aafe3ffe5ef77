// SPDX-License-Identifier: Apache-2.0
// `proctape sql` and `export --format sqlite|csv` as a user runs them
// (docs/sql.md): statements from -c or standard input, bad SQL one line and
// exit 2, read-only, a damaged file loaded up to its damage, a file that is no
// .ptape refused with its status, --db by the rules of every output, and
// export's database the same as --db's.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <string>
#include <vector>

#include "tests/live/corpus_files.h"
#include "tests/live/files.h"
#include "tests/live/build_paths.h"

namespace proctape::live {
namespace {

const std::string kPlain = CorpusFile("plain-unshare");
const std::string kZombie = CorpusFile("zombie-bwrap");

// One line on standard error: "proctape: sql: WHAT", or, about a path,
// "proctape: PATH: WHAT" (`command` "": the form of every error about a path).
void ExpectOneErrorLine(const CommandResult& r, const std::string& command) {
  EXPECT_EQ(r.err.rfind(command.empty() ? "proctape: " : "proctape: " + command + ": ", 0), 0u)
      << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

TEST(SqlCli, EachCommandRunsInTurnOverEveryFile) {
  const CommandResult r =
      Proctape({"sql", kPlain, kZombie, "-c", "SELECT COUNT(*) AS files FROM files", "-c",
                "SELECT entry FROM files ORDER BY file_id"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "files\n2\n\nentry\nplain-unshare\nzombie-bwrap\n")
      << "one table after another, set apart by a blank line";
  EXPECT_EQ(r.err, "");
}

TEST(SqlCli, BadSqlIsSqlitesMessageOnOneLineAndExit2) {
  const CommandResult r = Proctape({"sql", kPlain, "-c", "SELEC 1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  ExpectOneErrorLine(r, "sql");
  EXPECT_NE(r.err.find("syntax error"), std::string::npos) << r.err;
}

TEST(SqlCli, TheDatabaseIsReadOnly) {
  for (const char* write : {"DELETE FROM processes", "CREATE TABLE t (x)", "DROP VIEW pid_reuse",
                            "CREATE TEMP TABLE t (x)"}) {
    const CommandResult r = Proctape({"sql", kPlain, "-c", write});
    EXPECT_EQ(r.exit_code, 2) << write;
    ExpectOneErrorLine(r, "sql");
    EXPECT_NE(r.err.find("readonly"), std::string::npos) << write << ": " << r.err;
  }
  // Nor can it be made writable again: a PRAGMA is read, never set.
  const CommandResult undo =
      Proctape({"sql", kPlain, "-c", "PRAGMA query_only = 0; DELETE FROM processes", "-c",
                "SELECT COUNT(*) > 0 AS kept FROM processes"});
  EXPECT_EQ(undo.exit_code, 2);
  EXPECT_EQ(undo.out, "");
  EXPECT_NE(undo.err.find("not authorized: the database is read-only"), std::string::npos)
      << undo.err;
  // fts3_tokenizer() registers a function pointer; load_extension() loads code.
  for (const char* call : {"SELECT fts3_tokenizer('simple')", "SELECT load_extension('x')"}) {
    const CommandResult r = Proctape({"sql", kPlain, "-c", call});
    EXPECT_EQ(r.exit_code, 2) << call;
    EXPECT_EQ(r.out, "") << call;
    EXPECT_NE(r.err.find("not authorized to use function"), std::string::npos) << r.err;
  }
  const CommandResult asks =
      Proctape({"sql", kPlain, "-c", "PRAGMA query_only", "-c",
                "SELECT COUNT(*) AS columns FROM pragma_table_info('files')"});
  ASSERT_EQ(asks.exit_code, 0) << asks.err;
  EXPECT_EQ(asks.out.substr(0, 13), "query_only\n1\n");
}

TEST(SqlCli, WithoutCommandsTheStatementsComeFromStandardInput) {
  TempDir dir("sql");
  WriteFile(dir.File("q.sql"), "SELECT 1 AS a;\nSELECT\n  2 AS b;\n-- done\n");
  const CommandResult r = ProctapeRedirected("<" + dir.File("q.sql"), {"sql", kPlain});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "a\n1\n\nb\n2\n");
  // Not a terminal: no prompt, and the first failing statement ends it.
  WriteFile(dir.File("bad.sql"), "SELECT 1 AS a;\nSELECT nope;\nSELECT 3 AS c;\n");
  const CommandResult bad = ProctapeRedirected("<" + dir.File("bad.sql"), {"sql", kPlain});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.out, "a\n1\n");
  ExpectOneErrorLine(bad, "sql");
}

TEST(SqlCli, StandardInputKnowsTheCommandsAUserReachesForFirst) {
  TempDir dir("sql");
  WriteFile(dir.File("dots.sql"),
            ".tables\n.schema errnos\nSELECT 1 AS a;\n.quit\nSELECT 2 AS b;\n");
  const CommandResult r = ProctapeRedirected("<" + dir.File("dots.sql"), {"sql", kPlain});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("name               type\nfiles              table\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("CREATE TABLE errnos ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\na\n1\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\nb\n"), std::string::npos) << ".quit ends it: " << r.out;
  WriteFile(dir.File("bad.sql"), "SELECT 1 AS a;\n.tabels\n");
  const CommandResult bad = ProctapeRedirected("<" + dir.File("bad.sql"), {"sql", kPlain});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "proctape: sql: unknown command .tabels (.help lists them)\n");
}

TEST(SqlCli, AFailureUnderFormatJsonIsJsonAsUnderJson) {
  for (const char* json : {"--json", "--format=json"}) {
    const CommandResult r = Proctape({"sql", kPlain, json, "-c", "SELECT 1 AS a; SELEC"});
    EXPECT_EQ(r.exit_code, 2) << json;
    EXPECT_EQ(r.out, "{\"statements\":[\n{\"columns\":[\"a\"],\"rows\":[[1]]}\n]}\n") << json;
    EXPECT_EQ(r.err.rfind("{\"command\":\"sql\",\"error\":\"sql: statement 2: near", 0), 0u)
        << json << ": " << r.err;
  }
}

// A statement refused when it runs (a write to the read-only database), not
// only one that does not parse, ends the document with the statements before
// it: no entry of its own, in every format (docs/cli/json.md).
TEST(SqlCli, AStatementRefusedWhenItRunsLeavesNoEntry) {
  for (const char* write : {"INSERT INTO files DEFAULT VALUES", "DELETE FROM processes"}) {
    const CommandResult j =
        Proctape({"sql", kPlain, "--json", "-c", "SELECT 1 AS a", "-c", write, "-c", "SELECT 2"});
    EXPECT_EQ(j.exit_code, 2) << write;
    EXPECT_EQ(j.out, "{\"statements\":[\n{\"columns\":[\"a\"],\"rows\":[[1]]}\n]}\n") << write;
    EXPECT_NE(j.err.find("statement 2: attempt to write a readonly database"), std::string::npos)
        << j.err;
    const CommandResult csv =
        Proctape({"sql", kPlain, "--format", "csv", "-c", "SELECT 1 AS a", "-c", write});
    EXPECT_EQ(csv.exit_code, 2) << write;
    EXPECT_EQ(csv.out, "a\n1\n") << write;
  }
}

TEST(SqlCli, AFileFromStandardInputNeedsCommands) {
  const CommandResult with = ProctapeRedirected(
      "<'" + kPlain + "'",
      {"sql", "-", "-c", "SELECT path, entry IS NULL, sha256 IS NULL FROM files"});
  ASSERT_EQ(with.exit_code, 0) << with.err;
  EXPECT_EQ(with.out, "path  entry IS NULL  sha256 IS NULL\n-     1              1\n");
  const CommandResult without = ProctapeRedirected("<'" + kPlain + "'", {"sql", "-"});
  EXPECT_EQ(without.exit_code, 2);
  ExpectOneErrorLine(without, "sql");
}

// A FIFO or a pipe holds its bytes for one read: the load's (nothing else
// opens it again: no hash of it), and the jail lets it be read.
TEST(SqlCli, AFifoOrAPipeIsReadOnce) {
  TempDir dir("sql");
  const std::string fifo = dir.File("fifo.ptape");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const CommandResult r =
      RunCommand({"/bin/bash", "-c",
                  "cat \"$1\" > \"$2\" & exec \"$0\" sql \"$2\" <(cat \"$1\") -c "
                  "'SELECT file_id, sha256 IS NULL AS unhashed, entry FROM files'",
                  ::proctape::live::TestedBinary(), kPlain, fifo},
                 60'000);
  EXPECT_FALSE(r.timed_out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "file_id  unhashed  entry\n1        1         NULL\n2        1         NULL\n");
}

TEST(SqlCli, AFileThatIsNoPtapeIsRefusedWithItsStatus) {
  TempDir dir("sql");
  WriteFile(dir.File("notes.txt"), "hello\n");
  const CommandResult text = Proctape({"sql", kPlain, dir.File("notes.txt"), "-c", "SELECT 1"});
  EXPECT_GE(text.exit_code, 10);
  EXPECT_LE(text.exit_code, 16);
  EXPECT_EQ(text.out, "") << "nothing is run over a partial load";
  ExpectOneErrorLine(text, "");
  EXPECT_NE(text.err.find("notes.txt"), std::string::npos) << text.err;
  const CommandResult missing = Proctape({"sql", dir.File("absent.ptape"), "-c", "SELECT 1"});
  EXPECT_EQ(missing.exit_code, 10);
  ExpectOneErrorLine(missing, "");
}

TEST(SqlCli, ADamagedFileLoadsUpToItsDamage) {
  TempDir dir("sql");
  const std::string whole = FileBytes(kZombie);
  WriteFile(dir.File("cut.ptape"), whole.substr(0, whole.size() * 2 / 3));
  const CommandResult r =
      Proctape({"sql", dir.File("cut.ptape"), "-c",
                "SELECT damage IS NOT NULL AS d, bytes < " + std::to_string(whole.size()) +
                    " AS b, (SELECT COUNT(*) > 0 FROM processes) AS p FROM files"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "d  b  p\n1  1  1\n");
  EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("loaded up to its damage"), std::string::npos) << r.err;
  // export refuses it, as in every format.
  const CommandResult e =
      Proctape({"export", dir.File("cut.ptape"), "--format", "sqlite", "-o", dir.File("cut.db")});
  EXPECT_GE(e.exit_code, 11);
  EXPECT_FALSE(Exists(dir.File("cut.db")));
}

TEST(SqlCli, DbIsWrittenByTheRulesOfEveryOutput) {
  TempDir dir("sql");
  const std::string db = dir.File("plain.db");
  const CommandResult first = Proctape({"sql", kPlain, "--db", db});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, "") << "--db without -c asks nothing";
  EXPECT_EQ(FileBytes(db).substr(0, 16), std::string("SQLite format 3\0", 16));
  const CommandResult again = Proctape({"sql", kPlain, "--db", db});
  EXPECT_EQ(again.exit_code, 10) << "an existing file is not replaced without --force";
  ExpectOneErrorLine(again, "");
  EXPECT_NE(again.err.find("--db"), std::string::npos) << again.err;
  const CommandResult forced =
      Proctape({"sql", kZombie, "--db", db, "--force", "-c", "SELECT entry FROM files"});
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(forced.out, "entry\nzombie-bwrap\n");
  const CommandResult input = Proctape({"sql", kPlain, "--db", kPlain, "--force"});
  EXPECT_EQ(input.exit_code, 2) << "an output that is an input is refused, --force or not";
  const CommandResult force_alone = Proctape({"sql", kPlain, "--force", "-c", "SELECT 1"});
  EXPECT_EQ(force_alone.exit_code, 2);
}

TEST(SqlCli, ExportSqliteIsTheDatabaseOfDb) {
  TempDir dir("sql");
  ASSERT_EQ(Proctape({"sql", kZombie, "--db", dir.File("a.db")}).exit_code, 0);
  const CommandResult e =
      Proctape({"export", kZombie, "--format", "sqlite", "-o", dir.File("b.db"), "--json"});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_NE(e.out.find("\"format\":\"sqlite\""), std::string::npos) << e.out;
  EXPECT_EQ(FileBytes(dir.File("a.db")), FileBytes(dir.File("b.db")));
}

TEST(SqlCli, ExportCsvWritesEveryTableAsItsOwnFile) {
  TempDir dir("sql");
  const std::string out = dir.File("csv");
  const CommandResult e = Proctape({"export", kZombie, "--format", "csv", "-o", out});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  for (const char* table : {"files", "frames", "processes", "observations", "resolutions"}) {
    const std::string csv = FileBytes(out + "/" + table + ".csv");
    const CommandResult q =
        Proctape({"sql", kZombie, "--format", "csv", "-c", std::string("SELECT * FROM ") + table});
    ASSERT_EQ(q.exit_code, 0) << q.err;
    EXPECT_EQ(csv, q.out) << table;
  }
  EXPECT_EQ(Proctape({"export", kZombie, "--format", "csv", "-o", out}).exit_code, 10)
      << "an earlier export is replaced only with --force";
  EXPECT_EQ(Proctape({"export", kZombie, "--format", "csv", "-o", out, "--force"}).exit_code, 0);
  // A directory that holds files.csv and a file of the user's is no
  // earlier export: never replaced.
  WriteFile(out + "/notes.txt", "precious\n");
  const CommandResult mine = Proctape({"export", kZombie, "--format", "csv", "-o", out, "--force"});
  EXPECT_EQ(mine.exit_code, 10) << mine.err;
  EXPECT_NE(mine.err.find("'notes.txt', which no export writes"), std::string::npos) << mine.err;
  EXPECT_EQ(FileBytes(out + "/notes.txt"), "precious\n");
  EXPECT_EQ(Proctape({"export", kZombie, "--format", "csv"}).exit_code, 2) << "csv needs -o DIR";
}

TEST(SqlCli, JsonIsFormatJsonAndNothingElse) {
  const CommandResult r = Proctape({"sql", kPlain, "--json", "-c", "SELECT 1 AS one"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"statements\":[\n{\"columns\":[\"one\"],\"rows\":[[1]]}\n]}\n");
  const CommandResult both =
      Proctape({"sql", kPlain, "--json", "--format", "csv", "-c", "SELECT 1"});
  EXPECT_EQ(both.exit_code, 2);
}

}  // namespace
}  // namespace proctape::live
