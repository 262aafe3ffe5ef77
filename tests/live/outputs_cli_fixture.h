// SPDX-License-Identifier: Apache-2.0
// What the live tests of the one output rule (outputs_*cli_test.cc;
// docs/cli/outputs.md) share: the shipped corpus and one of its recordings,
// and the binary run as a user would, in a working directory, with TMPDIR
// set, as root or as nobody. In proctape::live::outputs.
#pragma once

#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/files.h"
#include "tests/live/output_writers.h"
#include "tests/live/sandbox.h"

namespace proctape::live::outputs {

inline const std::string kCorpus = SourceCorpus();
inline const std::string kRecording = CorpusRecording();

// How a command is run: in `cwd`, with TMPDIR=`tmpdir` (the lab's private
// directory goes there), as root or as nobody.
struct Invocation {
  std::string cwd = "/";
  std::string tmpdir = "/tmp";
  bool nobody = false;
};

inline std::vector<std::string> Argv(const Invocation& how, const std::vector<std::string>& args) {
  std::vector<std::string> argv;
  if (how.nobody) {
    argv = {FindOnPath("setpriv"), "--reuid=65534", "--regid=65534", "--clear-groups"};
  }
  argv.insert(argv.end(), {"/usr/bin/env", "-C", how.cwd, "TMPDIR=" + how.tmpdir,
                           ::proctape::live::TestedBinary()});
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

inline CommandResult RunProctape(const Invocation& how, const std::vector<std::string>& args) {
  return RunCommand(Argv(how, args), 120'000);
}

}  // namespace proctape::live::outputs
