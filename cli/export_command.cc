// SPDX-License-Identifier: Apache-2.0
// `proctape export FILE --format json|dot|proc-dir`: a snapshot file in a form
// other tools read (docs/export.md): the whole file as one JSON document, a
// frame's process tree as Graphviz DOT, or a frame as a /proc-like directory
// that `proctape capture --proc-root` reads back.
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "analyze/export_file.h"
#include "analyze/sql/export.h"
#include "procdir/export.h"
#include "cli/command_io.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "cli/exit_codes.h"
#include "cli/progress.h"
#include "cli/sql_database.h"
#include "core/proc_parse.h"
#include "proto/convert.h"
#include "proto/summary.h"
#include "replay/token_mask.h"
#include "written.pb.h"

namespace proctape {
namespace {

struct ExportOptions {
  std::string file;
  std::string format;
  std::string out;
  std::uint64_t frame = 0;
  bool has_frame = false;
  bool has_out = false;
  bool force = false;
  bool json = false;
};

// What was written: `processes` is json the process records of every frame,
// dot the processes drawn, proc-dir the PID directories, sqlite and csv the
// rows of processes; `files` what proc-dir and the tables count of them.
struct Written {
  std::uint64_t frame = 0;
  std::uint64_t processes = 0;
  std::optional<std::uint64_t> files;
  std::uint64_t bytes = 0;
};

// What was written, as one line (text) or one ExportReport (--json). The
// output may be standard output: the report then goes to standard error.
// The names of the input and the output are masked with the input's tokens.
int Report(const ExportOptions& o, const TokenMask& mask, const std::string& out,
           const Written& written, const std::string& what) {
  const bool to_stdout = out == "-";
  if (o.json) {
    v1::ExportReport report;
    report.set_file(EscapedText(to_stdout ? "standard output" : mask.Masked(out)));
    report.set_input(EscapedText(mask.Masked(o.file)));
    report.set_format(o.format);
    if (o.format == "dot" || o.format == "proc-dir") report.set_frame(Count32(written.frame));
    report.set_processes(Count32(written.processes));
    if (written.files) report.set_files(Count32(*written.files));
    report.set_bytes(static_cast<double>(written.bytes));
    std::fprintf(to_stdout ? stderr : stdout, "%s\n", ToJson(report).c_str());
    return kExitOk;
  }
  if (to_stdout) return kExitOk;  // the data is the output
  std::printf("wrote %s: %s\n", mask.Shown(out).c_str(), what.c_str());
  return kExitOk;
}

// The warnings of an export of json, dot or proc-dir, then its failure, if
// any (kExitOk when none).
template <class Export>
int SayFailure(const ExportOptions& o, const std::string& out, const Export& e) {
  for (const std::string& warning : e.warnings) Warn(warning);
  if (e.input_failure) return FailAbout("", o.file, *e.input_failure);
  if (e.failure) return Fail(*e.failure);
  if (e.output_failure) return FailAbout("--output", out, *e.output_failure);
  return kExitOk;
}

// sqlite and csv: the file loaded into the tables of `proctape sql`
// (analyze/sql/schema.sql), written as one SQLite database or as a directory
// of TABLE.csv. Its output is open, the jail entered.
int ExportTables(const ExportOptions& o, const std::string& out,
                 std::unique_ptr<OutputFile> output) {
  Progress progress;
  progress.Show("export: loading " + EscapeBytes(o.file, 4096));
  int exit_code = kExitOk;
  const bool csv = o.format == "csv";
  const int database_fd = sql::ExportDatabaseFd(csv, *output);
  std::unique_ptr<sql::Database> d =
      LoadDatabase({o.file}, /*damage_loads=*/false, &exit_code, database_fd);
  if (csv && database_fd >= 0) ::close(database_fd);  // the database holds its own
  progress.Done();
  if (!d) return exit_code;
  const sql::TablesExport t = sql::ExportTables(*d, csv, *output);
  if (t.output_failure) return FailAbout("--output", out, *t.output_failure);
  const TokenMask& mask = d->tokens();
  return Report(o, mask, out, {0, t.processes, t.files, t.bytes},
                "the whole file of " + mask.Shown(o.file) + " in the tables of 'proctape sql' (" +
                    Plural(t.processes, "process record", "process records") + ", " +
                    Plural(t.observations, "observation", "observations") + ")" +
                    (csv ? ", " + Plural(t.files, "CSV file", "CSV files")
                         : ", " + Plural(t.bytes, "byte", "bytes")));
}

// The usage errors of the options together; kExitOk when none.
int CheckOptions(const ExportOptions& o) {
  const bool whole = o.format == "json" || o.format == "sqlite" || o.format == "csv";
  if (whole && o.has_frame) {
    return Fail(kExitUsage,
                "--frame: --format " + o.format + " exports the whole file, every frame");
  }
  // '-' is refused as standard output is by every directory output
  // (OpenOutput): one wording for one cause.
  if ((o.format == "proc-dir" || o.format == "csv") && !o.has_out) {
    return Fail(kExitUsage, "--format " + o.format + " writes a directory: name it with -o DIR");
  }
  if (std::string why = ForceWithoutOutput(o.force, "-o", o.has_out, o.out); !why.empty()) {
    return Fail(kExitUsage, why);
  }
  return kExitOk;
}

// The output each format writes: proc-dir and csv a directory that only an
// earlier export of theirs may replace, the others a file.
OutputRequest Request(const ExportOptions& o, const std::string& out) {
  if (o.format == "proc-dir") return ProcDirRequest(out, o.force);
  if (o.format == "csv") return sql::CsvRequest(out, o.force);
  OutputRequest request;
  request.path = out;
  request.force = o.force;
  request.stdout_allowed = true;
  request.binary = o.format == "sqlite";
  request.readable = o.format == "sqlite";  // the database is made in it
  return request;
}

// A frame as a /proc-like directory. Its output is open, the jail entered.
int ExportProcDirectory(const ExportOptions& o, const std::string& out,
                        std::unique_ptr<OutputFile> output) {
  ProgressSteps progress;
  const ProcDirExport e =
      ExportProcDir({o.file, o.frame, "--frame", out, progress.callback()}, std::move(output));
  if (int failed = SayFailure(o, out, e); failed != kExitOk) return failed;
  const std::string name = e.mask.Shown(o.file);
  const ProcDirStats& s = e.stats;
  return Report(o, e.mask, out, {o.frame, s.processes, s.files, s.bytes},
                "frame " + std::to_string(o.frame) + " of " + name + ", " +
                    Plural(s.processes, "process", "processes") + ", " +
                    Plural(s.files, "file", "files") + ", " + Plural(s.bytes, "byte", "bytes"));
}

// json or dot. Its output is open, the jail entered.
int ExportDocument(const ExportOptions& o, const std::string& out,
                   std::unique_ptr<OutputFile> output) {
  const bool json = o.format == "json";
  ProgressSteps progress;
  const FileExport e =
      ExportFile({o.file, json, o.frame, "--frame", out, progress.callback()}, *output);
  if (int failed = SayFailure(o, out, e); failed != kExitOk) return failed;
  const std::string name = e.mask.Shown(o.file);
  return Report(o, e.mask, out, {o.frame, e.processes, std::nullopt, e.bytes},
                (json ? std::string("the whole file")
                      : "the process tree of frame " + std::to_string(o.frame)) +
                    " of " + name + ", " + Plural(e.bytes, "byte", "bytes"));
}

int RunExport(const ExportOptions& o) {
  if (int bad = CheckOptions(o); bad != kExitOk) return bad;
  const std::string out = o.has_out ? o.out : "-";
  const bool tables = o.format == "sqlite" || o.format == "csv";
  // The output before the input is read: checked, its temporary made.
  CommandIo io{"export", {{"FILE", o.file}}, Request(o, out)};
  if (tables) io.reads_beside = ManifestsBeside({o.file});
  std::unique_ptr<OutputFile> output;
  if (int entered = EnterCommand(io, &output); entered != kExitOk) return entered;
  if (tables) return ExportTables(o, out, std::move(output));
  if (o.format == "proc-dir") return ExportProcDirectory(o, out, std::move(output));
  return ExportDocument(o, out, std::move(output));
}

}  // namespace

// What `--help` says of the command, above its options.
constexpr const char* kDescription =
    "Write a .ptape file in a form other tools read:\n"
    "  json      the whole file (header, frames, observations, resolutions, footer) as one\n"
    "            JSON object, protobuf's JSON mapping of proctape.v1.SnapshotExport: field\n"
    "            names as in proto/proctape.proto, raw /proc bytes (bytes fields) in base64,\n"
    "            64-bit integers as strings. Lossless, unlike the views' --json (escaped\n"
    "            text): the one output that holds a recording's token (every other shows\n"
    "            it as '*' of its length). Keep it as you keep the .ptape file.\n"
    "  dot       the process tree of one frame as a Graphviz digraph: a node per process\n"
    "            (pid, start tick, state, command name escaped as \\xNN), an edge per parent;\n"
    "            the process a recorded resolution RESOLVED is filled, its root has a double\n"
    "            border. Render it with 'dot -Tsvg' (graphviz is not needed by proctape).\n"
    "  proc-dir  one frame as a directory laid out like /proc: DIR/PID/stat, cmdline,\n"
    "            environ, status, cgroup holding exactly the recorded bytes (a failed read:\n"
    "            no file; the token masked to '*'), DIR/PID/proctape-identity (exe and\n"
    "            pid-namespace identity, errnos, truncation) and DIR/proctape-frame (times,\n"
    "            host facts, redaction). Read it back with 'proctape capture --proc-root DIR'.\n"
    "  sqlite    the tables of 'proctape sql' (docs/sql.md) as one SQLite database.\n"
    "  csv       the same tables as DIR/TABLE.csv (RFC 4180, NULL empty, bytes as \\xNN).\n"
    "Outputs are written as a temporary PATH.XXXXXX.partial beside PATH and renamed when\n"
    "complete; nothing is left behind on a failure or Ctrl-C. A damaged FILE is not\n"
    "exported at all (unlike show and tree): nothing is written, exit 11-16.";

void RegisterExport(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* sub = app.add_subcommand("export", kDescription);
  sub->add_option("FILE", o->file, "a .ptape file: a capture or a recording; - for standard input")
      ->check(NonEmptyPath())
      ->required();
  sub->add_option("--format", o->format, "json, dot, proc-dir, sqlite or csv")
      ->required()
      ->check(CLI::IsMember({"json", "dot", "proc-dir", "sqlite", "csv"}));
  CLI::Option* out = AddOutputOption(
      sub, o->out,
      "the file (json, dot, sqlite; '-' or absent: standard output) or the directory "
      "(proc-dir, csv) to write",
      "PATH");
  CLI::Option* frame =
      AddUnsigned(sub, "--frame", o->frame, 0, 4294967295,
                  "dot, proc-dir: the frame, counted from 0 in file order (default 0)");
  AddForceOption(sub, o->force,
                 "replace an existing output file, or a directory holding an earlier proc-dir "
                 "or csv export (a directory that is not one is never replaced)");
  sub->add_flag("--json", o->json,
                "print what was written as one JSON object (ExportReport; on standard error "
                "when the data goes to standard output)");
  sub->footer(std::string("Examples:\n"
                          "  proctape export failure.ptape --format json | jq .resolutions\n"
                          "  proctape export failure.ptape --format dot --frame 1 -o tree.dot\n"
                          "  dot -Tsvg tree.dot > tree.svg\n"
                          "  proctape export failure.ptape --format proc-dir -o frame0\n"
                          "  cat frame0/283/proctape-identity\n"
                          "  proctape capture --proc-root frame0 -o again.ptape\n"
                          "  proctape export failure.ptape --format sqlite -o failure.db\n\n") +
              ExitStatusFooter("0 written, 2 usage error, 10 the output refused or cannot be "
                               "written, 11-16 damaged input"));
  sub->callback([o, out, frame, exit_code] {
    o->has_out = out->count() > 0;
    o->has_frame = frame->count() > 0;
    *exit_code = RunExport(*o);
  });
}

}  // namespace proctape
