// Placeholder: 'proctape explain' lands with issue 6.
#include "cli/commands.h"
namespace proctape {
void RegisterExplain(CLI::App&, int*) {}
}  // namespace proctape
