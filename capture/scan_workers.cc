// SPDX-License-Identifier: Apache-2.0
#include "capture/scan_workers.h"

#include <system_error>
#include <utility>

#include "core/redact.h"

namespace proctape::scan {
namespace {

// Copies the bytes a read views (before the evidence's next call).
void Fill(v1::FileRead* out, const ReadResult& read, std::uint64_t bound) {
  out->set_err(read.err);
  out->set_truncated(read.truncated);
  out->set_bound(bound);
  out->set_data(read.data.data(), read.data.size());
}

void Fill(v1::FileRead* out, StoredRead&& read, std::uint64_t bound) {
  out->set_err(read.err);
  out->set_truncated(read.truncated);
  out->set_bound(bound);
  out->set_data(std::move(read.data));
}

void Fill(v1::FileIdentity* out, const Identity& identity) {
  out->set_err(identity.err);
  out->set_dev(identity.dev);
  out->set_ino(identity.ino);
}

}  // namespace

v1::ProcessRecord ReadRecord(Evidence& ev, const PidNamespaceFn& pid_ns, const ScanOptions& o,
                             std::int64_t pid, StoredRead* given_stat, std::uint64_t* bytes) {
  std::uint64_t read = 0;
  auto get = [&](ProcFile file, std::uint64_t bound) {
    ReadResult r = ev.ReadFile(pid, file, bound);
    read += r.data.size();
    return r;
  };
  v1::ProcessRecord rec;
  rec.set_pid(pid);
  if (given_stat != nullptr) {
    Fill(rec.mutable_stat(), std::move(*given_stat), o.stat_bytes);
  } else {
    Fill(rec.mutable_stat(), get(ProcFile::kStat, o.stat_bytes), o.stat_bytes);
  }
  Fill(rec.mutable_cmdline(), get(ProcFile::kCmdline, o.cmdline_bytes), o.cmdline_bytes);
  ReadResult environ = get(ProcFile::kEnviron, o.environ_bytes);
  if (!o.keep_environ && environ.ok()) {
    Fill(rec.mutable_environ(),
         StoredRead{environ.err, RedactEnviron(environ.data, o.kept_entries), environ.truncated},
         o.environ_bytes);
  } else {
    Fill(rec.mutable_environ(), environ, o.environ_bytes);
  }
  rec.mutable_environ()->set_redacted(!o.keep_environ);
  Fill(rec.mutable_status(), get(ProcFile::kStatus, o.status_bytes), o.status_bytes);
  Fill(rec.mutable_cgroup(), get(ProcFile::kCgroup, o.cgroup_bytes), o.cgroup_bytes);
  Fill(rec.mutable_exe(), ev.ExeIdentity(pid));
  if (pid_ns) Fill(rec.mutable_pid_ns(), pid_ns(pid));
  *bytes = read;
  return rec;
}

std::size_t WorkerPool::Start(std::vector<ScanWorker>& workers) {
  for (ScanWorker& w : workers) {
    if (!w.evidence) continue;
    try {
      threads_.emplace_back([this, &w] { Run(w); });
    } catch (const std::system_error&) {
      break;
    }
  }
  return threads_.size();
}

void WorkerPool::Submit(Batch* batch) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back(batch);
  }
  work_cv_.notify_one();
}

void WorkerPool::WaitDone(const Batch* batch) {
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [batch] { return batch->done; });
}

void WorkerPool::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    pending_.clear();
  }
  abort_.store(true, std::memory_order_relaxed);
  work_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void WorkerPool::Run(ScanWorker& w) {
  for (;;) {
    Batch* b = nullptr;
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_cv_.wait(lock, [this] { return stop_ || !pending_.empty(); });
      if (stop_) return;
      b = pending_.front();
      pending_.pop_front();
    }
    try {
      b->records.reserve(b->count);
      b->bytes.reserve(b->count);
      for (std::size_t i = b->first; i < b->first + b->count; ++i) {
        if (abort_.load(std::memory_order_relaxed)) break;
        std::uint64_t bytes = 0;
        b->records.push_back(
            ReadRecord(*w.evidence, w.pid_ns, o_, items_[i].pid, items_[i].stat, &bytes));
        b->bytes.push_back(bytes);
      }
    } catch (...) {
      b->error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      b->done = true;
    }
    done_cv_.notify_all();
  }
}

}  // namespace proctape::scan
