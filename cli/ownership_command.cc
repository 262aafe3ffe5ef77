// Placeholder: 'proctape ownership' lands with issue 6.
#include "cli/commands.h"
namespace proctape {
void RegisterOwnership(CLI::App&, int*) {}
}  // namespace proctape
