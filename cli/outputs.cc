#include "cli/outputs.h"

#include "cli/errors.h"
#include "cli/exit_codes.h"

namespace proctape {

CLI::Validator NonEmptyPath() {
  return CLI::Validator(
      [](std::string& text) { return text.empty() ? std::string("an empty path names no file") : ""; },
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

std::unique_ptr<OutputFile> OpenOutput(const OutputRequest& request, int* exit_code) {
  OutputError refused;
  std::unique_ptr<OutputFile> out = OutputFile::Open(request, &refused);
  if (!out) *exit_code = Fail(refused.usage ? kExitUsage : kExitIo, refused.message);
  return out;
}

}  // namespace proctape
