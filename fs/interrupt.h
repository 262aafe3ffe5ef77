// SPDX-License-Identifier: Apache-2.0
// The one place proctape handles SIGINT, SIGTERM and SIGHUP (docs/cli/outputs.md):
// nothing a command has begun on disk, and no process the lab started,
// outlives an interrupt.
//
// The handler is installed by the first registration (and by
// DeferInterrupts); a signal whose disposition was SIG_IGN when it is
// installed (nohup, a background job) stays ignored. When a signal comes it
// does, with async-signal-safe calls only, on whichever thread it runs:
//   1. the registered hooks, in order (the lab ends the processes it started);
//   2. removes every registered temporary: a file (unlinkat), or a directory
//      with everything beneath it (openat, getdents64, unlinkat);
//   3. restores the default action and raises the signal again: the process
//      ends by it, as it would have without proctape (a shell says 128 + N).
//
// A command that can end well when interrupted defers instead
// (DeferInterrupts: `capture` finishes its file with the frames complete):
// the first signal is only noted (Interrupted()) and wakes
// SleepUntilOrInterrupted; a second signal does 1-3.
//
// A temporary is registered with the directory descriptor it lives in (kept
// open by its owner until it unregisters) and its name, so neither a long
// path nor a changed working directory matters.
#pragma once

#include <signal.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace proctape {

// Blocks SIGINT, SIGTERM and SIGHUP on the calling thread for its lifetime:
// what it guards comes into being together with its registration (a
// temporary and its entry; a process the lab starts and its registry entry),
// so an interrupt sees both or neither.
class InterruptsBlocked {
 public:
  InterruptsBlocked() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
    ::pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~InterruptsBlocked() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  InterruptsBlocked(const InterruptsBlocked&) = delete;
  InterruptsBlocked& operator=(const InterruptsBlocked&) = delete;

 private:
  sigset_t old_;
};

// Registers `name` (at most 255 bytes, no '/') in the directory `dir_fd`
// (O_PATH is enough) for removal on an interrupt; a directory is removed with
// everything beneath it. Returns the slot for UnregisterTemporary, or -1 when
// the name is too long or the 64 slots are taken. Installs the handler.
int RegisterTemporary(int dir_fd, std::string_view name, bool directory);
// The slot is free again (-1: nothing). Call it after the temporary is gone
// or renamed: an interrupt in between finds nothing to remove, never
// something else.
void UnregisterTemporary(int slot);

// Removes `name` in `dir_fd`: a file, or a directory with everything beneath
// it (at most 8 levels deep). The handler's own removal, also used on every
// failure path. Async-signal-safe. Returns 0, or the errno of the last step
// that failed (ENOENT when there was nothing).
int RemoveTemporaryAt(int dir_fd, const char* name, bool directory);

// A function run first by the handler (at most 4 are kept). It must be
// async-signal-safe and must not return to code that was interrupted.
using InterruptHook = void (*)();
void AddInterruptHook(InterruptHook hook);

// A line (at most 511 bytes, its newline included) the handler writes to
// standard error when `sig` ends the process, after steps 1 and 2: a
// command's failure said in its error mode (cli/errors.h: the JSON error
// object under --json). Installs the handler. Empty: nothing is written.
void SetInterruptNotice(int sig, std::string_view line);

// Out of memory ends the process the same way, never by unwinding: a
// std::bad_alloc thrown inside protobuf's copy of a message (its unknown
// fields) left the message half-built, and its destructor then freed a bad
// pointer (SIGSEGV). InstallOutOfMemoryHandler sets a new_handler that, when
// an allocation fails, runs the hooks, removes every registered temporary
// (no partial output is left), writes the line set by SetOutOfMemoryNotice
// (at most 511 bytes: formatted beforehand, nothing is allocated then) and
// ends the process with `status` (_exit: no destructor runs).
void InstallOutOfMemoryHandler(int status);
// Undoes it: an allocation that fails throws std::bad_alloc again. Only for
// a command that reports an input too large and goes on with the next
// (`corpus check`: the entry is UNREADABLE).
void ThrowOnOutOfMemory();
void SetOutOfMemoryNotice(std::string_view line);

// From now on the first SIGINT, SIGTERM or SIGHUP is noted, not acted on: the
// caller finishes what it can and returns 128 + Interrupted(). A second
// signal removes the temporaries and ends the process as above.
void DeferInterrupts();
// The signal noted while deferring, or 0.
int Interrupted();
// "SIGINT", "SIGTERM", "SIGHUP"; "signal N" for any other.
std::string SignalName(int sig);
// Sleeps until CLOCK_MONOTONIC reaches `mono_ns`, or until a signal is noted
// while deferring (at once if one was). True when the time was reached.
bool SleepUntilOrInterrupted(std::int64_t mono_ns);

}  // namespace proctape
