// SPDX-License-Identifier: Apache-2.0
// Pieces of the token where the views print host bytes (the token mask,
// replay/token_mask.h): real recordings beside a process that holds part of
// the token where a mask of the whole token does not find it. An output that
// holds any 12-character piece of kToken (as text, hex or base64) shows more
// of the token than its length (tests/hostile/token_search.h finds them).
#include <string>

#include "tests/hostile/recording.h"
#include "tests/hostile/shapes.h"

namespace proctape::hostile {
namespace {

// The pid of the process that holds the pieces, beside the star of n.
std::int64_t HolderPid(std::uint32_t n) { return HostPid(n + 1); }

void AddHolder(MemoryEvidence& host, std::uint32_t n, const std::string& where) {
  const std::string t = kToken;
  const std::int64_t pid = HolderPid(n);
  const std::uint64_t start = kRootStart + n + 1;
  if (where == "comm") {  // a comm is cut to 15 bytes: the token's first 15
    host.AddProcess(pid, kRootPid, start, t.substr(0, 15), {"/bin/sh"}, {}, kShellExe);
  } else if (where == "argv") {            // bytes 4,080..4,111 of the cmdline: across 4,096
    const std::string prefix = "/bin/sh";  // "/bin/sh\0-c\0" is 11 bytes
    host.AddProcess(pid, kRootPid, start, "sh",
                    {prefix, "-c", std::string(4080 - 11, 'a') + t + " end"}, {}, kShellExe);
  } else {  // environ values, kept (--env keep): halves and a middle piece
    host.AddProcess(pid, kRootPid, start, "sh", {"/bin/sh"},
                    {"A=" + t.substr(0, 16), "B=" + t.substr(16), "C=x" + t.substr(6, 14) + "y"},
                    kShellExe);
  }
}

void TokenPieces(const Params& p, Built* out) {
  const auto n = static_cast<std::uint32_t>(p.Num("n"));
  const std::string where = p.Text("where");
  RecordOptions options;
  options.keep_environ = where == "environ";
  if (where == "short") options.token = p.Text("token");
  MemoryEvidence host;
  AddRoot(host);
  AddStar(host, n, options.token);
  if (where != "short") AddHolder(host, n, where);
  WriteRecording(Record(host, SleepRequest(options.token), options), &out->file);
  out->token = options.token;
  out->pid = where == "short" ? HostPid(n) : HolderPid(n);
  const std::string t = kToken;
  out->manifest_text = "pieces " + t.substr(0, 16) + " and " + t.substr(10, 16);
}

}  // namespace

std::vector<Shape> TokenShapes() {
  return {
      {"token-comm",
       "a process whose comm is the token's first 15 characters: show, tree, export dot, sql, "
       "csv print the comm",
       "where=comm n=3", "where=comm n=3", 0, TokenPieces},
      {"token-argv-4096",
       "an argv of 4,115 bytes with the token across byte 4,096: a view that cuts before it "
       "masks prints half the token (sql, csv)",
       "where=argv n=3", "where=argv n=3", 0, TokenPieces},
      {"token-environ",
       "environ values kept (--env keep) holding halves and a middle piece of the token, and a "
       "corpus MANIFEST holding pieces: every view, corpus list/check",
       "where=environ n=3", "where=environ n=3", 0, TokenPieces},
      {"token-short",
       "a recording whose token is one character ('t'): a mask of it rewrites proctape's own "
       "words in every view",
       "where=short n=3 token=t", "where=short n=3 token=t", 0, TokenPieces},
  };
}

}  // namespace proctape::hostile
