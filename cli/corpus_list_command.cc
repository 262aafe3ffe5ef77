// SPDX-License-Identifier: Apache-2.0
// `proctape corpus list` and `proctape corpus rm`: the MANIFEST's entries shown
// or taken out (cli/corpus_command.cc).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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
#include "core/proc_parse.h"
#include "corpus/corpus.h"
#include "format/snapshot_stream.h"
#include "proto/convert.h"
#include "replay/token_mask.h"

namespace proctape {
namespace {

// The tokens the header of entry `e`'s recording names (its kept entries,
// --token on its command line: every recording keeps its token entry), read
// from its first chunk; none when it is not a regular file (no link is
// followed, no FIFO waited on) or has no header.
TokenMask EntryTokens(const std::string& dir, const ManifestEntry& e) {
  const std::string path = dir + "/" + e.file;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return {};
  }
  FormatError error;
  std::unique_ptr<SnapshotStream> stream = SnapshotStream::OpenFd(fd, &error);
  if (!stream || stream->Next() != SnapshotStream::Result::kItem ||
      stream->item().kind != StreamItem::Kind::kHeader) {
    return {};
  }
  return TokenMask::Of(stream->item().chunk.header(), {});
}

// The MANIFEST's values are host bytes to a view: each entry's masked with
// its recording's tokens (docs/security.md "The token in outputs").
void MaskEntries(const std::string& dir, std::vector<ManifestEntry>* entries) {
  for (ManifestEntry& e : *entries) {
    const TokenMask mask = EntryTokens(dir, e);
    if (mask.empty()) continue;
    for (std::string* text : {&e.name, &e.file, &e.shows, &e.kernel, &e.captured, &e.scenario}) {
      mask.Mask(text);
    }
    for (std::string& text : e.expects) mask.Mask(&text);
    for (std::string& text : e.comments) mask.Mask(&text);
  }
}

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
  Manifest manifest;
  std::string error;
  if (!LoadManifest(dir, false, &manifest, &error)) {
    return Fail(kExitCorpusManifest, o.corpus.About(dir, error));
  }
  MaskEntries(dir, &manifest.entries);
  if (o.json) {
    v1::CorpusList list;
    list.set_dir(EscapeBytes(dir, 4096));
    for (const ManifestEntry& e : manifest.entries) *list.add_entries() = ToProto(e);
    std::printf("%s\n", ToJson(list).c_str());
    return kExitOk;
  }
  for (const std::string& line : ListLines(manifest.entries)) std::printf("%s\n", line.c_str());
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
  RemoveOutcome out = RemoveFromCorpus(corpus_dir, o.names);
  const std::string dir = EscapeBytes(corpus_dir, 4096);
  if (o.json && !out.removed.empty()) {
    // The entries removed, as 'corpus list --json' shows entries.
    v1::CorpusList list;
    list.set_dir(dir);
    for (const ManifestEntry& e : out.removed) *list.add_entries() = ToProto(e);
    std::printf("%s\n", ToJson(list).c_str());
  } else {
    for (const ManifestEntry& e : out.removed) {
      std::printf("removed %s (%s/%s) from the corpus\n", e.name.c_str(), dir.c_str(),
                  e.file.c_str());
    }
  }
  std::fflush(stdout);
  for (const std::string& w : out.warnings) Warn(w);
  switch (out.kind) {
    case RemoveOutcome::Kind::kRemoved: return kExitOk;
    case RemoveOutcome::Kind::kUsage: return Fail(kExitUsage, out.message);
    case RemoveOutcome::Kind::kManifest:
      return Fail(kExitCorpusManifest, o.corpus.About(corpus_dir, out.message));
    case RemoveOutcome::Kind::kIo: return Fail(kExitIo, o.corpus.About(corpus_dir, out.message));
  }
  return kExitInternal;
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
