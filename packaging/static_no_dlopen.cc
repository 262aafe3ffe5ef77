// SPDX-License-Identifier: Apache-2.0
// The portable binary is static (packaging/portable.cmake): it loads no
// shared object. SQLite's Unix layer (libsqlite3.a) links dlopen for
// load_extension(), which proctape refuses anyway (analyze/sql/database.cc);
// glibc's static dlopen would need the shared libraries of the glibc it was
// linked with at run time, and the linker warns of it. The portable link
// alone sends SQLite's calls here (-Wl,--wrap=dlopen,...: glibc's own dlopen
// stays in, unreferenced, as static glibc always holds it): every load
// fails, with this reason.
#include <cstddef>

extern "C" {

void* __wrap_dlopen(const char* /*file*/, int /*mode*/) { return nullptr; }
void* __wrap_dlsym(void* /*handle*/, const char* /*name*/) { return nullptr; }
int __wrap_dlclose(void* /*handle*/) { return 0; }
char* __wrap_dlerror() {
  static char reason[] = "the static proctape loads no shared object";
  return reason;
}

}  // extern "C"
