// The request's words, checked before anything is read (core/resolver.h):
// the one check resolve, the recorder and the CLI share.
#include <string>
#include <vector>

#include "core/proc_parse.h"
#include "core/resolver.h"

namespace proctape {

RequestWordsProblem CheckRequestWords(const std::string* token, const std::string* token_var,
                                      const std::vector<std::string>* argv,
                                      std::uint64_t cmdline_bytes) {
  if (token != nullptr && token->empty()) return {"token", "the invocation token is empty"};
  if (token_var != nullptr &&
      (token_var->empty() || token_var->find('=') != std::string::npos ||
       token_var->find('\0') != std::string::npos)) {
    return {"token_var", "the token variable name is empty or holds '=' or NUL"};
  }
  if (argv != nullptr) {
    if (argv->empty()) return {"argv", "the expected argv is empty"};
    for (const std::string& arg : *argv) {
      // Its bytes would be those of two elements of a real argv.
      if (arg.find('\0') != std::string::npos) return {"argv", "an expected argv element holds NUL"};
    }
    if (JoinNul(*argv).size() > cmdline_bytes) {
      return {"argv", "the expected argv is longer than the cmdline bound"};
    }
  }
  return {};
}

}  // namespace proctape
