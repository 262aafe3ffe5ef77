// SPDX-License-Identifier: Apache-2.0
// The reads of one frame's processes (internal to capture/frame_scanner.cc):
// one process's files read into a record, and the worker threads that read
// consecutive batches of processes in parallel, each through its own
// evidence, for the scanner to hand over in order.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "capture/frame_scanner.h"

namespace proctape::scan {

// The files of one process, read through `ev` in a fixed order (stat unless
// given, cmdline, environ, status, cgroup, exe, pid namespace) into a record;
// *bytes gets the /proc bytes read (the given stat's not included).
v1::ProcessRecord ReadRecord(Evidence& ev, const PidNamespaceFn& pid_ns, const ScanOptions& o,
                             std::int64_t pid, StoredRead* given_stat, std::uint64_t* bytes);

// One process to record: its pid, and its stat when the stat pass read it.
struct Item {
  std::int64_t pid = 0;
  StoredRead* stat = nullptr;  // owned by the scanner; moved out by whoever reads the item
};

// Consecutive items [first, first + count), read by one worker.
struct Batch {
  std::size_t first = 0;
  std::size_t count = 0;
  std::vector<v1::ProcessRecord> records;
  std::vector<std::uint64_t> bytes;  // per record
  std::exception_ptr error;          // what the worker threw, rethrown by the caller
  bool done = false;                 // guarded by the pool's mutex
};

// Worker threads that read the batches they are given, in the order given.
// The destructor stops and joins them, whatever happened on the caller's side.
class WorkerPool {
 public:
  WorkerPool(const ScanOptions& options, std::vector<Item>& items) : o_(options), items_(items) {}
  ~WorkerPool() { Stop(); }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // One thread per worker that has an evidence; returns how many started (a
  // thread that cannot be created is done without).
  std::size_t Start(std::vector<ScanWorker>& workers);
  // Queues `batch` for the next free worker.
  void Submit(Batch* batch);
  // Returns when `batch` has been read (or its reading stopped or threw).
  void WaitDone(const Batch* batch);
  // Workers stop before their next process; batches not taken are dropped.
  void Stop();

 private:
  void Run(ScanWorker& w);

  const ScanOptions& o_;
  std::vector<Item>& items_;
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::deque<Batch*> pending_;
  bool stop_ = false;
  std::atomic<bool> abort_{false};
  std::vector<std::thread> threads_;
};

}  // namespace proctape::scan
