// Placeholder: 'proctape tree' lands with issue 6.
#include "cli/commands.h"
namespace proctape {
void RegisterTree(CLI::App&, int*) {}
}  // namespace proctape
