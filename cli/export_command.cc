// Placeholder: 'proctape export' lands with issue 6.
#include "cli/commands.h"
namespace proctape {
void RegisterExport(CLI::App&, int*) {}
}  // namespace proctape
