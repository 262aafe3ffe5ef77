// SPDX-License-Identifier: Apache-2.0
#include "cli/outputs.h"

#include "cli/errors.h"
#include "cli/exit_codes.h"

namespace proctape {

CLI::Validator NonEmptyPath(const std::string& what) {
  return CLI::Validator(
      [what](std::string& text) { return text.empty() ? "an empty path names no " + what : ""; },
      "", "path");
}

CLI::Option* AddOutputOption(CLI::App* sub, std::string& target, const std::string& help,
                             const std::string& type) {
  return sub->add_option("-o,--output,--out", target, help)->check(NonEmptyPath())->type_name(type);
}

CLI::Option* AddSideOutputOption(CLI::App* sub, const std::string& name, std::string& target,
                                 const std::string& help) {
  return sub->add_option(name, target, help)->check(NonEmptyPath())->type_name("FILE");
}

CLI::Option* AddForceOption(CLI::App* sub, bool& target, const std::string& help) {
  return sub->add_flag("--force", target, help);
}

std::string ForceWithoutOutput(bool force, const std::string& option, bool given,
                               const std::string& value) {
  if (!force) return "";
  if (!given) return "--force replaces an existing output file, and no " + option + " is given";
  if (value == "-") {
    return "--force replaces an existing output file, and " + option +
           " - writes to standard output";
  }
  return "";
}

int RefuseStandardStreams(const std::vector<InputPath>& inputs) {
  MaybeFailure refused = StandardOutputIsAnInput(inputs);
  if (!refused) refused = StandardInputIsATerminal(inputs);
  return refused ? Fail(*refused) : kExitOk;
}

std::unique_ptr<OutputFile> OpenOutput(const OutputRequest& request, const std::string& option,
                                       const std::vector<InputPath>& inputs, int* exit_code) {
  if (MaybeFailure is_input = OutputIsAnInput(request.path, request.directory, inputs)) {
    *exit_code = FailAbout(option, request.path, *is_input);
    return nullptr;
  }
  Failure refused;
  std::unique_ptr<OutputFile> out = OutputFile::Open(request, &refused);
  if (out) return out;
  *exit_code = FailAbout(option, request.path, refused);
  return out;
}

}  // namespace proctape
