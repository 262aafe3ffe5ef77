// SPDX-License-Identifier: Apache-2.0
// `proctape export FILE --format json|dot|proc-dir`: a snapshot file in a form
// other tools read (docs/export.md): the whole file as one JSON document, a
// frame's process tree as Graphviz DOT, or a frame as a /proc-like directory
// that `proctape capture --proc-root` reads back.
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>

#include "analyze/export.h"
#include "analyze/export_json.h"
#include "analyze/proc_dir_writer.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/inputs.h"
#include "cli/jail.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "cli/exit_codes.h"
#include "cli/progress.h"
#include "cli/sql_database.h"
#include "core/proc_parse.h"
#include "format/file_holds.h"
#include "format/reader.h"
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

// What was written, as one line (text) or one ExportReport (--json). The
// output may be standard output: the report then goes to standard error.
// `processes` is what was written of them: json the process records of every
// frame, dot the processes drawn (proc-dir: its stats).
// The names of the input and the output are masked with the input's tokens.
void Report(const ExportOptions& o, const TokenMask& mask, const std::string& out,
            std::size_t frame, const std::string& what, const ProcDirStats* stats, std::size_t bytes,
            std::uint64_t processes = 0) {
  const bool to_stdout = out == "-";
  if (o.json) {
    v1::ExportReport report;
    report.set_file(EscapedText(to_stdout ? "standard output" : mask.Masked(out)));
    report.set_input(EscapedText(mask.Masked(o.file)));
    report.set_format(o.format);
    if (o.format == "dot" || o.format == "proc-dir") report.set_frame(Count32(frame));
    report.set_processes(Count32(stats ? stats->processes : processes));
    if (stats) report.set_files(Count32(stats->files));
    report.set_bytes(static_cast<double>(stats ? stats->bytes : bytes));
    std::fprintf(to_stdout ? stderr : stdout, "%s\n", ToJson(report).c_str());
    return;
  }
  if (to_stdout) return;  // the data is the output
  std::printf("wrote %s: %s\n", mask.Shown(out).c_str(), what.c_str());
}

// sqlite and csv: the file loaded into the tables of `proctape sql`
// (analyze/sql/schema.sql), written as one SQLite database or as a directory
// of TABLE.csv. Its output is open, the jail entered.
int ExportTables(const ExportOptions& o, const std::string& out, std::unique_ptr<OutputFile> output) {
  const std::string name = EscapeBytes(o.file, 4096);
  Progress progress;
  progress.Show("export: loading " + name);
  int exit_code = kExitOk;
  std::unique_ptr<sql::Database> d = LoadDatabase({o.file}, /*damage_loads=*/false, &exit_code);
  progress.Done();
  if (!d) return exit_code;
  const TokenMask& mask = d->tokens();
  if (d->keeps_environ()) output->KeepOwnerOnly();
  std::string error;
  std::uint64_t csv_bytes = 0;
  if (o.format == "sqlite") {
    error = d->SaveTo(*output);
  } else {
    error = d->WriteCsv(output->fd(), d->keeps_environ(), &csv_bytes);
  }
  const std::uint64_t bytes = o.format == "csv" ? csv_bytes : d->ImageBytes();
  if (!error.empty() || !output->Commit(&error)) return FailAbout(kExitIo, "--output", out, error);
  const std::uint64_t processes = d->Count("processes");
  const std::size_t tables = d->Tables().size();
  ProcDirStats csv{processes, o.format == "csv" ? tables : 1, bytes};
  Report(o, mask, out, 0,
         "the whole file of " + mask.Shown(o.file) + " in the tables of 'proctape sql' (" +
             Plural(processes, "process record", "process records") + ", " +
             Plural(d->Count("observations"), "observation", "observations") + ")" +
             (o.format == "csv" ? ", " + Plural(tables, "CSV file", "CSV files")
                                : ", " + Plural(bytes, "byte", "bytes")),
         &csv, bytes, processes);
  return kExitOk;
}

int RunExport(const ExportOptions& o) {
  const bool whole = o.format == "json" || o.format == "sqlite" || o.format == "csv";
  if (whole && o.has_frame) {
    return Fail(kExitUsage,
                "--frame: --format " + o.format + " exports the whole file, every frame");
  }
  // '-' is refused as standard output is by every directory output
  // (OpenOutput below): one wording for one cause.
  if ((o.format == "proc-dir" || o.format == "csv") && !o.has_out) {
    return Fail(kExitUsage, "--format " + o.format + " writes a directory: name it with -o DIR");
  }
  if (std::string why = ForceWithoutOutput(o.force, "-o", o.has_out, o.out); !why.empty()) {
    return Fail(kExitUsage, why);
  }
  const std::string out = o.has_out ? o.out : "-";
  std::string name = EscapeBytes(o.file, 4096);  // masked once the input is read
  // The output before the input is read: checked, its temporary made.
  OutputRequest request;
  if (o.format == "proc-dir") {
    request = ProcDirRequest(out, o.force);
  } else if (o.format == "csv") {
    request.path = out;
    request.force = o.force;
    request.directory = true;
    request.directory_marker = "files.csv";  // an earlier csv export holds it
    request.directory_entry = [](std::string_view entry, bool is_directory) {
      for (const char* table : sql::kTables) {
        if (!is_directory && entry == std::string(table) + ".csv") return true;
      }
      return false;  // and nothing else
    };
  } else {
    request.path = out;
    request.force = o.force;
    request.stdout_allowed = true;
    request.binary = o.format == "sqlite";
  }
  if (int refused = RefuseStandardStreams({{"FILE", o.file}}); refused != kExitOk) {
    return refused;
  }
  int exit_code = kExitOk;
  std::unique_ptr<OutputFile> output =
      OpenOutput(request, "--output", {{"FILE", o.file}}, &exit_code);
  if (!output) return exit_code;
  const bool tables = o.format == "sqlite" || o.format == "csv";
  if (int jailed = Jail({"export", {o.file}, {output.get()}, {},
                         tables ? ManifestsBeside({o.file}) : std::vector<std::string>{}});
      jailed != kExitOk) {
    return jailed;
  }
  if (tables) return ExportTables(o, out, std::move(output));
  // A file of many frames takes seconds to read and to write: where it is,
  // on a terminal.
  Progress progress;
  progress.Show("export: reading " + name);
  // Read without holding the file: json streams it (a first read checks it
  // whole, then each list is printed as it is read again); dot and proc-dir
  // keep the one frame they draw, the shells of the others and the
  // resolutions, no observation.
  Snapshot snapshot;
  JsonExport json;
  InputCopy input_copy;  // json reads its input more than once
  FormatError read;
  if (o.format == "json") {
    StreamSource source{o.file, -1};
    std::string copy_error;
    if (!input_copy.Open(o.file, &copy_error)) return Fail(kExitIo, EscapeBytes(copy_error));
    source.fd = input_copy.fd();
    read = json.Survey(source);
  } else {
    ReadKeep keep;
    keep.frames = std::vector<std::uint64_t>{o.frame};
    keep.observations = false;
    read = ReadSnapshot(o.file, &snapshot, keep);
  }
  progress.Done();
  if (!read.ok()) return FailAbout(ExitCodeFor(read.kind), "", o.file, read.message);
  // What is said names the input and output masked with the input's tokens.
  const TokenMask mask =
      o.format == "json" ? TokenMask::Of(json.header(), {}) : TokenMask::Of(snapshot);
  name = mask.Shown(o.file);
  if (o.format != "json" && o.frame >= snapshot.frames.size()) {
    return Fail(kExitUsage, NoSuchFrameIn("--frame", o.frame, name, snapshot));
  }
  const std::size_t frame = static_cast<std::size_t>(o.frame);
  const std::string shown = mask.Shown(out);
  std::string error;
  // What is exported from a file that keeps environment values (capture
  // --env keep, a --record's token entry) is the owner's only, as that file.
  const v1::Header& header = o.format == "json" ? json.header() : snapshot.header;
  const v1::RedactionPolicy& redaction = header.redaction();
  if (KeepsEnvironValues(header)) {
    output->KeepOwnerOnly();
    // Said for the values of --env keep; a recording's token entry alone is
    // restricted without a word (every recording has one).
    if (out != "-" && redaction.environ() == v1::RedactionPolicy::ENVIRON_KEPT) {
      Warn(name + " keeps environment values: " + shown +
           (o.format == "proc-dir" ? " holds them in files of mode 0600"
                                   : " is created with mode 0600"));
    }
  }
  // Standard output may be this terminal: its data never shares the line.
  if (out != "-") progress.Show("export: writing " + shown);
  if (o.format == "proc-dir") {
    ProcDirStats stats;
    const bool written = WriteProcDir(snapshot, frame, std::move(output), &stats, &error);
    progress.Done();
    if (!written) return FailAbout(kExitIo, "--output", out, error);
    Report(o, mask, out, frame,
           "frame " + std::to_string(frame) + " of " + name + ", " +
               Plural(stats.processes, "process", "processes") + ", " +
               Plural(stats.files, "file", "files") + ", " + Plural(stats.bytes, "byte", "bytes"),
           &stats, 0);
    return kExitOk;
  }
  std::string data;
  std::uint64_t size = 0;  // written before `data`
  std::size_t drawn = 0;   // dot: the processes drawn
  if (o.format == "json") {
    // Written as it is printed, a MiB at a time (the document of a large
    // file is tens of MB). Past protobuf's 2 GiB an error, never an empty
    // document; a failed write, the output's error.
    std::string write_error;
    auto drain = [&](std::string* piece, std::string* why) {
      if (!output->Write(*piece, &write_error)) {
        *why = write_error;
        return false;
      }
      size += piece->size();
      piece->clear();
      return true;
    };
    if (!json.Write(&data, &error, drain)) {
      progress.Done();
      if (!write_error.empty()) return FailAbout(kExitIo, "--output", out, write_error);
      return Fail(kExitTooLarge, name + ": " + error);
    }
    data.push_back('\n');
  } else {
    data = FrameDot(snapshot, frame, &drawn);
  }
  const bool written = output->Write(data, &error) && output->Commit(&error);
  progress.Done();
  if (!written) return FailAbout(kExitIo, "--output", out, error);
  size += data.size();
  Report(o, mask, out, frame,
         (o.format == "json" ? std::string("the whole file")
                             : "the process tree of frame " + std::to_string(frame)) +
             " of " + name + ", " + Plural(size, "byte", "bytes"),
         nullptr, size, o.format == "json" ? json.records() : drawn);
  return kExitOk;
}

}  // namespace

void RegisterExport(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* sub = app.add_subcommand(
      "export",
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
      "  csv       the same tables as DIR/TABLE.csv (RFC 4180, NULL empty, bytes as \\xNN).\n"      "Outputs are written as a temporary PATH.XXXXXX.partial beside PATH and renamed when\n"
      "complete; nothing is left behind on a failure or Ctrl-C. A damaged FILE is not\n"
      "exported at all (unlike show and tree): nothing is written, exit 11-16.");
  sub->add_option("FILE", o->file, "a .ptape file: a capture or a recording")
      ->check(NonEmpty("an empty path names no file"))
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
