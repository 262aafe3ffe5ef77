// SPDX-License-Identifier: Apache-2.0
// Each command's jail (cli/jail.h): the one table that EnterJail enforces
// and `--print-jail` states, so the two cannot differ. The live test
// (tests/live/jail_cli_test.cc) runs every command in every mode that writes
// as this table lists them, and checks that every output option of the
// command line is listed here (docs/security.md, "The jail of each command").
#include <string>
#include <vector>

#include "cli/jail.h"

namespace proctape {
namespace {

// Layer 1's list: every way to signal, trace or read/write another process.
constexpr const char* kRefusedNames =
    "kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal, ptrace, "
    "process_vm_readv, process_vm_writev, pidfd_getfd";

// What a command names as FILE may be: every reader takes these.
#define PROCTAPE_FILE_KINDS "(a path, - for standard input, or a pipe such as <(...))"

// The table, constant-initialized (no order of static initialization to
// depend on).
constexpr JailedCommand kCommands[] = {
    {"verify", true, true, "FILE... " PROCTAPE_FILE_KINDS, "", {"FILE"}},
    {"show", true, true, "FILE... " PROCTAPE_FILE_KINDS, "", {"FILE"}},
    {"tree", true, true, "FILE " PROCTAPE_FILE_KINDS, "", {"FILE"}},
    {"diff", true, true, "FILE [FILE] " PROCTAPE_FILE_KINDS, "", {"FILE"}},
    {"explain", true, true, "FILE " PROCTAPE_FILE_KINDS, "", {"FILE"}},
    {"export",
     true,
     true,
     "FILE " PROCTAPE_FILE_KINDS ", and for sqlite and csv the MANIFEST beside it",
     "-o FILE (json, dot, sqlite; - or no -o is standard output) or DIR (proc-dir, csv)",
     {"FILE", "the MANIFEST"},
     "--output"},
    {"replay",
     true,
     true,
     "FILE " PROCTAPE_FILE_KINDS ", --fingerprint FILE",
     "",
     {"FILE", "--fingerprint"}},
    {"explore",
     true,
     true,
     "FILE " PROCTAPE_FILE_KINDS,
     "--out DIR (a .ptape made in it for each violation and example)",
     {"FILE"},
     "",
     true},
    {"minimize", true, true, "FILE " PROCTAPE_FILE_KINDS, "-o FILE", {"FILE"}, "--output"},
    {"sql",
     true,
     true,
     "FILE... " PROCTAPE_FILE_KINDS
     ", and the MANIFEST beside each; its statements from -c, or from standard input",
     "--db FILE",
     {"FILE", "the MANIFEST"},
     "--db"},
    {"ownership",
     true,
     true,
     "--baseline FILE, --current FILE " PROCTAPE_FILE_KINDS
     " (each --output is looked at, never opened)",
     "",
     {"--baseline", "--current"}},
    {"corpus check",
     true,
     true,
     "the corpus DIR: its MANIFEST and entries",
     "--junit FILE",
     {"the corpus"},
     "--junit"},
    {"corpus list", true, true, "the corpus DIR: its MANIFEST", "", {"the corpus"}},
    {"corpus report",
     true,
     true,
     "FILE... (the shards' JSON reports; - for standard input)",
     "--junit FILE",
     {"FILE"},
     "--junit"},
    {"corpus rm",
     true,
     true,
     "the corpus DIR: its MANIFEST",
     "--corpus DIR (the MANIFEST rewritten, the entries' files removed)",
     {"the corpus"},
     "",
     true},
    // Standard input is copied (a memfd, read again through /proc/self/fd)
    // and a missing corpus is made: seccomp alone.
    {"corpus add",
     true,
     false,
     "FILE... (a path or -), the corpus DIR: its MANIFEST and entries",
     "--corpus DIR (the recording's copy and the MANIFEST; DIR made when missing)",
     {"FILE", "the corpus"}},
    {"fingerprint",
     true,
     false,
     "/proc (or --proc DIR), --exe FILE",
     "-o FILE (- is standard output)",
     {"--exe"},
     "--output"},
    {"resolve",
     true,
     false,
     "/proc (or --proc DIR), --fingerprint FILE, --exe FILE",
     "--record FILE (- is standard output)",
     {"--fingerprint", "--exe"},
     "--record"},
    {"liveness",
     true,
     false,
     "/proc (or --proc DIR), --fingerprint FILE, --from-recording FILE",
     "--record FILE (- is standard output)",
     {"--fingerprint", "--from-recording"},
     "--record"},
    {"capture",
     true,
     false,
     "/proc (or --proc DIR, or --proc-root DIR)",
     "-o FILE (- is standard output; without it ./HOSTNAME-UTCTIME.ptape)",
     {"--proc-root"},
     "--output"},
    {"help", true, false, "nothing", ""},
    {"lab", false, false, "/proc, the processes it starts", "--record FILE"},
};

}  // namespace

std::span<const JailedCommand> JailedCommands() { return kCommands; }

const JailedCommand* FindJailed(std::string_view command) {
  for (const JailedCommand& c : JailedCommands()) {
    if (command == c.name) return &c;
  }
  return nullptr;
}

#undef PROCTAPE_FILE_KINDS

std::string DescribeJail() {
  const int abi = LandlockAbi();
  const bool seccomp = SeccompAvailable();
  std::string text = "seccomp (every command but lab): ";
  if (seccomp) {
    text += "refused with EPERM: ";
    text += kRefusedNames;
    text += "; signals to proctape itself allowed\n";
  } else {
    text += "not available here (no seccomp in this kernel, or qemu-user): nothing refused\n";
  }
  text += "landlock: ";
  text += abi >= 1 ? "ABI " + std::to_string(abi) + " in this kernel\n"
                   : std::string(seccomp ? "not available in this kernel (seccomp only)\n"
                                         : "not available in this kernel\n");
  for (const JailedCommand& c : JailedCommands()) {
    std::string layers = seccomp ? "seccomp" : "seccomp (unavailable)";
    if (!c.jailed) layers = "none (it ends the processes it started)";
    if (c.landlock) {
      layers += abi >= 1 ? ", landlock (nothing else of the file system, /proc included)"
                         : ", landlock (unavailable)";
    }
    text += std::string("  ") + c.name + ": " + layers + "; reads " + c.reads + "; writes " +
            (*c.writes != '\0' ? c.writes : "nothing") + "\n";
  }
  return text;
}

}  // namespace proctape
