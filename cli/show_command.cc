// Placeholder: 'proctape show' lands with issue 6.
#include "cli/commands.h"
namespace proctape {
void RegisterShow(CLI::App&, int*) {}
}  // namespace proctape
