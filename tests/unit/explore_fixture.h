// SPDX-License-Identifier: Apache-2.0
// A small host for the explore tests, as one frame: an outsider, the root
// (app-server), a shell under it and the tracked sleep under the shell,
// carrying the token. Its model, its request and an EventContext.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/memory_evidence.h"
#include "core/resolver.h"
#include "explore/events.h"
#include "explore/host_model.h"
#include "proctape.pb.h"

namespace proctape::test {

struct ExploreHost {
  static constexpr std::int64_t kOutsider = 50;
  static constexpr std::int64_t kRoot = 100;
  static constexpr std::int64_t kShell = 101;
  static constexpr std::int64_t kSleep = 102;
  static constexpr std::uint64_t kRootStart = 5000;
  static constexpr std::uint64_t kShellStart = 5010;
  static constexpr std::uint64_t kSleepStart = 5011;
  static constexpr std::int64_t kStartNs = 1'000'000'000;

  v1::Frame frame;
  explore::HostModel model;
  Request request;

  ExploreHost() {
    request.root_pid = kRoot;
    request.root_start_ticks = kRootStart;
    request.token = "tok-123";
    request.exe = Identity{0, 8, 4242};
    Add(kOutsider, 1, 4000, "sshd", {"/usr/sbin/sshd"}, {"HOME=/"}, Identity{0, 8, 7});
    Add(kRoot, 1, kRootStart, "app-server", {"app-server"}, {"HOME=/"}, Identity{0, 8, 9});
    Add(kShell, kRoot, kShellStart, "sh", {"/bin/sh", "-c", "x"}, {"PROCTAPE_TOKEN=tok-123"},
        Identity{0, 8, 11});
    Add(kSleep, kShell, kSleepStart, "sleep", {"/bin/sleep", "120"},
        {"HOME=/", "PROCTAPE_TOKEN=tok-123"}, request.exe);
    frame.set_scan_start_mono_ns(kStartNs - 1000);
    frame.set_scan_end_mono_ns(kStartNs);
    frame.set_complete(true);
    model = explore::HostModel::FromFrame(frame);
  }

  const explore::EventContext& Context() {
    if (!ctx_) {
      ctx_ = std::make_unique<explore::EventContext>(
          explore::MakeContext(&model, &request, 0, kStartNs));
    }
    return *ctx_;
  }

  void Add(std::int64_t pid, std::int64_t ppid, std::uint64_t start, const std::string& comm,
           const std::vector<std::string>& argv, const std::vector<std::string>& env,
           Identity exe) {
    v1::ProcessRecord* r = frame.add_processes();
    r->set_pid(pid);
    r->mutable_stat()->set_data(MemoryEvidence::StatLine(pid, comm, 'S', ppid, start));
    r->mutable_cmdline()->set_data(JoinNul(argv));
    r->mutable_environ()->set_data(JoinNul(env));
    r->mutable_status()->set_data("Name:\t" + comm + "\nState:\tS (sleeping)\nPid:\t" +
                                  std::to_string(pid) + "\nPPid:\t" + std::to_string(ppid) +
                                  "\nNSpid:\t" + std::to_string(pid) + "\n");
    r->mutable_exe()->set_dev(exe.dev);
    r->mutable_exe()->set_ino(exe.ino);
  }

 private:
  std::unique_ptr<explore::EventContext> ctx_;
};

}  // namespace proctape::test
