// Placeholder: 'proctape diff' lands with issue 6.
#include "cli/commands.h"
namespace proctape {
void RegisterDiff(CLI::App&, int*) {}
}  // namespace proctape
