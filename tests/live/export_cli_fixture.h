// SPDX-License-Identifier: Apache-2.0
// What the export tests (export_cli_test.cc, export_round_trip_cli_test.cc)
// share: the corpus entries by name, a directory as sorted (path, content)
// pairs, and a hand-made file of hostile names.
#pragma once

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "format/writer.h"
#include "proctape.pb.h"
#include "tests/live/corpus_files.h"
#include "tests/live/files.h"
#include "tests/live/source_dir.h"

namespace proctape::live {

using namespace std::string_literals;  // "...\0..."s keeps embedded NULs

// Every entry under `dir`, sorted: (relative path, "d" or the file's bytes);
// a symbolic link or anything else is named as such.
inline std::vector<std::pair<std::string, std::string>> Tree(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
    std::string rel = std::filesystem::relative(e.path(), dir).string();
    if (e.is_symlink()) {
      out.emplace_back(rel, "symlink");
    } else if (e.is_directory()) {
      out.emplace_back(rel, "d");
    } else if (e.is_regular_file()) {
      out.emplace_back(rel, "f" + FileBytes(e.path().string()));
    } else {
      out.emplace_back(rel, "other");
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A file no corpus entry has: every name a printer could get wrong, a read
// error, a truncated read, a duplicate and an invalid pid, a kept token.
// Written by the writer itself, with fixed times: the same file every run.
inline std::string WriteHostileFile(const TempDir& tmp) {
  const std::string path = tmp.File("hostile.ptape");
  auto stat = [](std::int64_t pid, const std::string& comm, char state, std::int64_t ppid,
                 std::uint64_t start) {
    const std::string p = std::to_string(ppid);
    return std::to_string(pid) + " (" + comm + ") " + state + " " + p + " " + p + " " + p +
           " 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 " + std::to_string(start) + " 1000 10\n";
  };
  auto record = [&stat](std::int64_t pid, const std::string& comm, std::int64_t ppid,
                        std::uint64_t start, char state = 'S') {
    v1::ProcessRecord r;
    r.set_pid(pid);
    auto set = [](v1::FileRead* f, const std::string& data, std::uint64_t bound) {
      f->set_data(data);
      f->set_bound(bound);
    };
    set(r.mutable_stat(), stat(pid, comm, state, ppid, start), 4096);
    set(r.mutable_cmdline(), comm + "\0--flag\0"s, 65536);
    set(r.mutable_environ(), "HOME=*****\0PROCTAPE_TOKEN=t0k3n-42\0"s, 65536);
    r.mutable_environ()->set_redacted(true);
    set(r.mutable_status(), "Name:\t" + comm + "\nState:\t" + state + "\n", 16384);
    set(r.mutable_cgroup(), "0::/ci\n", 4096);
    r.mutable_exe()->set_dev(2049);
    r.mutable_exe()->set_ino(static_cast<std::uint64_t>(5000 + pid));
    r.mutable_pid_ns()->set_dev(4);
    r.mutable_pid_ns()->set_ino(4026532000);
    return r;
  };
  Failure failure;
  auto writer = SnapshotWriter::Create(path, SnapshotWriter::Options{}, &failure);
  if (!writer) return "";
  v1::Header h;
  h.set_format_version(1);
  h.set_tool_version("test");
  h.set_capture_start_mono_ns(1'000'000'000);
  h.set_capture_start_realtime_ns(1'796'000'000'000'000'000);
  h.mutable_host()->set_hostname("ci\x1b]0;owned\x07");
  h.mutable_host()->set_kernel_release("6.1.0");
  h.mutable_host()->set_boot_id("0b0e-1d\n");
  h.mutable_host()->set_pid_max(4194304);
  h.mutable_host()->set_clock_ticks_per_second(100);
  h.mutable_host()->set_page_size(4096);
  h.mutable_redaction()->set_environ(v1::RedactionPolicy::ENVIRON_REDACTED);
  h.mutable_redaction()->add_kept_entries("PROCTAPE_TOKEN=t0k3n-42");
  writer->WriteHeader(h);
  writer->BeginFrame(0, 1'500'000'000);
  writer->AddProcess(record(1, "init", 0, 5));
  writer->AddProcess(record(40, "app-server", 1, 100));
  writer->AddProcess(record(41, "x) Z 1 1 1\nx", 40, 120));
  writer->AddProcess(record(42, "q\"uote\\back", 40, 121));
  writer->AddProcess(record(43, "\") \"", 40, 122));
  writer->AddProcess(record(44, "\x1b[31mred\xff", 40, 123, 'Z'));
  v1::ProcessRecord gone = record(45, "gone", 1, 130);
  gone.mutable_stat()->Clear();
  gone.mutable_stat()->set_err(ESRCH);
  gone.mutable_stat()->set_bound(4096);
  gone.mutable_exe()->Clear();
  gone.mutable_exe()->set_err(ENOENT);
  writer->AddProcess(std::move(gone));
  v1::ProcessRecord cut = record(46, "child", 47, 140);
  cut.mutable_status()->set_data(std::string(16384, 'g'));
  cut.mutable_status()->set_truncated(true);
  writer->AddProcess(std::move(cut));
  writer->AddProcess(record(47, "late-parent", 1, 150));
  writer->AddProcess(record(41, "duplicate", 1, 999));
  writer->AddProcess(record(0, "invalid", 1, 1));
  writer->EndFrame(1'600'000'000, "", 12345);
  v1::Resolution r;
  r.mutable_resolve()->set_root_pid(40);
  r.mutable_resolve()->set_root_start_ticks(100);
  r.mutable_resolve()->set_token("t0k3n-42");
  r.mutable_verdict()->set_status(v1::Verdict::RESOLVED);
  r.mutable_verdict()->set_pid(41);
  r.mutable_verdict()->set_start_ticks(120);
  writer->WriteResolution(r);
  v1::Footer footer;
  footer.set_capture_end_mono_ns(1'700'000'000);
  return writer->Finish(footer) ? path : "";
}

}  // namespace proctape::live
