// SPDX-License-Identifier: Apache-2.0
// The recorder (`docs/format.md` section 5): every call the resolver made
// through the evidence interface, in order, with its exact result and monotonic
// time; recording must not change what the resolver does (same calls, same
// results). And `docs/format.md` section 6: environ values are redacted except
// the entry carrying the recorded token. Pass-through of results, indices and
// time stamps: recorder_pass_through_test.cc.
#include "capture/recorder.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <functional>
#include <string>
#include <vector>

#include "core/redact.h"
#include "core/resolver.h"
#include "proto/convert.h"
#include "tests/unit/fake_host.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens
using google::protobuf::util::MessageDifferencer;

const std::string kTokenEntry = "PROCTAPE_TOKEN=" + kToken;
const std::string kSecret = "supersecret-\xff\x01-value";

// One call as the source answered it, seen from between the recorder and the
// source: the truth the tape is checked against.
struct SourceCall {
  v1::Observation::CallCase kind = v1::Observation::CALL_NOT_SET;
  std::int64_t pid = 0;
  ProcFile file = ProcFile::kStat;
  std::uint64_t bound = 0;
  std::string path;
  std::int64_t ns = 0;  // NowNs result, or the SleepUntil argument
  struct {
    int err = 0;
    std::vector<std::string> names;
    bool truncated = false;
  } list;           // copied: a listing's names are views until the next call
  StoredRead read;  // copied, likewise
  Identity id;
  std::int64_t clock_after = 0;  // the host's virtual clock when it returned
};

class Tap : public Evidence {
 public:
  explicit Tap(MemoryEvidence& host) : host_(host) {}
  std::vector<SourceCall> calls;

  ListResult ListPids(std::uint64_t bound) override {
    SourceCall c = Begin(v1::Observation::kListPids);
    c.bound = bound;
    ListResult list = host_.ListPids(bound);
    c.list.err = list.err;
    c.list.names.assign(list.names.begin(), list.names.end());
    c.list.truncated = list.truncated;
    End(std::move(c));
    return list;
  }
  ReadResult ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) override {
    SourceCall c = Begin(v1::Observation::kReadFile);
    c.pid = pid;
    c.file = file;
    c.bound = bound;
    ReadResult read = host_.ReadFile(pid, file, bound);
    c.read = StoredRead(read);
    End(std::move(c));
    return read;
  }
  Identity ExeIdentity(std::int64_t pid) override {
    SourceCall c = Begin(v1::Observation::kExeIdentity);
    c.pid = pid;
    c.id = host_.ExeIdentity(pid);
    return End(std::move(c)).id;
  }
  Identity PathIdentity(const std::string& path) override {
    SourceCall c = Begin(v1::Observation::kPathIdentity);
    c.path = path;
    c.id = host_.PathIdentity(path);
    return End(std::move(c)).id;
  }
  std::int64_t NowNs() override {
    SourceCall c = Begin(v1::Observation::kNow);
    c.ns = host_.NowNs();
    return End(std::move(c)).ns;
  }
  void SleepUntil(std::int64_t mono_ns) override {
    SourceCall c = Begin(v1::Observation::kSleepUntil);
    c.ns = mono_ns;
    host_.SleepUntil(mono_ns);
    End(std::move(c));
  }

 private:
  static SourceCall Begin(v1::Observation::CallCase kind) {
    SourceCall c;
    c.kind = kind;
    return c;
  }
  const SourceCall& End(SourceCall c) {
    c.clock_after = host_.now_ns;
    calls.push_back(std::move(c));
    return calls.back();
  }
  MemoryEvidence& host_;
};

// The observation a correct recorder makes of `c`, written out by hand.
v1::Observation Expected(const SourceCall& c, std::uint64_t index, bool redact,
                         const std::vector<std::string>& kept) {
  v1::Observation o;
  o.set_index(index);
  o.set_mono_ns(c.kind == v1::Observation::kNow ? c.ns : c.clock_after);
  switch (c.kind) {
    case v1::Observation::kListPids: {
      auto* l = o.mutable_list_pids();
      l->set_bound(c.bound);
      for (const auto& n : c.list.names) l->add_names(n);
      l->set_err(c.list.err);
      l->set_truncated(c.list.truncated);
      break;
    }
    case v1::Observation::kReadFile: {
      auto* r = o.mutable_read_file();
      r->set_pid(c.pid);
      r->set_file(static_cast<v1::ProcFile>(static_cast<int>(c.file)));
      auto* f = r->mutable_result();
      bool hide = redact && c.file == ProcFile::kEnviron;
      f->set_data(hide ? RedactEnviron(c.read.data, kept) : c.read.data);
      f->set_redacted(hide);
      f->set_err(c.read.err);
      f->set_truncated(c.read.truncated);
      f->set_bound(c.bound);
      break;
    }
    case v1::Observation::kExeIdentity:
      o.mutable_exe_identity()->set_pid(c.pid);
      *o.mutable_exe_identity()->mutable_result() = ToProto(c.id);
      break;
    case v1::Observation::kPathIdentity:
      o.mutable_path_identity()->set_path(c.path);
      *o.mutable_path_identity()->mutable_result() = ToProto(c.id);
      break;
    case v1::Observation::kNow: o.mutable_now()->set_result_ns(c.ns); break;
    case v1::Observation::kSleepUntil: o.mutable_sleep_until()->set_until_ns(c.ns); break;
    case v1::Observation::CALL_NOT_SET: break;
  }
  return o;
}

// A resolution scenario: how to build the host, and what to run on it.
struct Scenario {
  std::string name;
  std::function<void(FakeHost&)> setup;
  Status expected;
};

std::vector<Scenario> Scenarios() {
  return {
      {"resolves", [](FakeHost&) {}, Status::kResolved},
      {"retries until the sleep appears at the third attempt",
       [](FakeHost& host) {
         host.Remove(kSleep);
         host.on_sleep = [sleeps = 0](MemoryEvidence& ev) mutable {
           if (++sleeps == 2) {
             static_cast<FakeHost&>(ev).AddSleep(kSleep, kSandboxShell, kSleepStart, kToken);
           }
         };
       },
       Status::kResolved},
      {"retries while a process vanishes",
       [](FakeHost& host) {
         host.SetFileError(kMcpServer, ProcFile::kCmdline, ENOENT);
         host.on_sleep = [](MemoryEvidence& ev) { ev.Remove(kMcpServer); };
       },
       Status::kResolved},
      {"stale token until the deadline",
       [](FakeHost& host) { host.AddSleep(kSleep, kSandboxShell, kSleepStart, kOldToken); },
       Status::kTokenMismatch},
      {"unreadable environ",
       [](FakeHost& host) { host.SetFileError(kSleep, ProcFile::kEnviron, EACCES); },
       Status::kUnreadable},
      {"exe mismatch", [](FakeHost& host) { host.Find(kSleep)->exe = kOtherExe; },
       Status::kExeMismatch},
      {"missing root", [](FakeHost& host) { host.Remove(kAppServer); }, Status::kMissingRoot},
      {"hostile environ with a secret",
       [](FakeHost& host) {
         std::string env = "HOME=/root";
         env.push_back('\0');
         env.append("AWS_SECRET_ACCESS_KEY=").append(kSecret).push_back('\0');
         env.append(kSecret).push_back('\0');  // an entry without '='
         env.append(kTokenEntry).push_back('\0');
         env.append("K\xfe=\xff\n");  // no final NUL
         host.SetFile(kSleep, ProcFile::kEnviron, env);
       },
       Status::kResolved},
  };
}

struct Outcome {
  Verdict verdict;
  std::vector<std::string> log;  // what the source saw, call by call
  std::uint64_t source_calls = 0;
  std::vector<SourceCall> tap;
  std::vector<v1::Observation> tape;
  std::uint64_t recorded = 0;
};

Outcome RunResolve(const Scenario& s, bool record, bool keep_environ = false) {
  FakeHost host;
  host.call_cost_ns = 1000;
  s.setup(host);
  Outcome run;
  Tap tap(host);
  if (record) {
    RecorderOptions options;
    options.keep_environ = keep_environ;
    options.kept_entries = {kTokenEntry};
    options.clock = [&host] { return host.now_ns; };  // not through the interface
    RecordingEvidence recorder(
        tap, [&](v1::Observation&& o) { run.tape.push_back(std::move(o)); }, options);
    run.verdict = Resolve(recorder, FakeHost::TypicalRequest());
    run.recorded = recorder.observations();
  } else {
    run.verdict = Resolve(tap, FakeHost::TypicalRequest());
  }
  run.log = host.log;
  run.source_calls = host.calls;
  run.tap = std::move(tap.calls);
  return run;
}

// ---------------------------------------------------------------------------
// Recording does not change what the resolver does

TEST(RecordingEvidence, ResolverSeesTheSameCallsAndGivesTheSameVerdict) {
  for (const Scenario& s : Scenarios()) {
    SCOPED_TRACE(s.name);
    Outcome plain = RunResolve(s, false);
    Outcome recorded = RunResolve(s, true);
    ASSERT_EQ(plain.verdict.status, s.expected) << plain.verdict.detail;
    EXPECT_TRUE(MessageDifferencer::Equals(ToProto(plain.verdict), ToProto(recorded.verdict)))
        << ToJson(ToProto(plain.verdict)) << "\n"
        << ToJson(ToProto(recorded.verdict));
    EXPECT_EQ(plain.log, recorded.log);
    EXPECT_EQ(plain.source_calls, recorded.source_calls);
  }
}

TEST(RecordingEvidence, RetryingAndFailingScenariosReallyRetry) {
  // Guards the scenarios above: the retrying ones sleep, the stale token runs
  // to the deadline, so the comparison covers SleepUntil and many attempts.
  std::vector<Scenario> all = Scenarios();
  EXPECT_EQ(RunResolve(all[1], true).verdict.attempts, 3u);
  EXPECT_EQ(RunResolve(all[2], true).verdict.attempts, 2u);
  // 50 or 51 attempts in 5 s, depending on the 1 us cost of each call.
  EXPECT_GE(RunResolve(all[3], true).verdict.attempts, 50u);
}

TEST(RecordingEvidence, LivenessAndFingerprintAreUnchanged) {
  for (bool dead : {false, true}) {
    FakeHost plain_host, rec_host;
    if (dead) {
      plain_host.AddSleep(kSleep, kSandboxShell, kSleepStart, kToken, 'Z');
      rec_host.AddSleep(kSleep, kSandboxShell, kSleepStart, kToken, 'Z');
    }
    std::vector<v1::Observation> tape;
    RecordingEvidence rec(rec_host, [&](v1::Observation&& o) { tape.push_back(std::move(o)); });
    LivenessVerdict a = CheckLiveness(plain_host, kSleep, kSleepStart);
    LivenessVerdict b = CheckLiveness(rec, kSleep, kSleepStart);
    EXPECT_EQ(a.status, dead ? LivenessStatus::kDead : LivenessStatus::kAlive);
    EXPECT_TRUE(MessageDifferencer::Equals(ToProto(a), ToProto(b)));
    Verdict fa = FingerprintRoot(plain_host, kAppServer);
    Verdict fb = FingerprintRoot(rec, kAppServer);
    EXPECT_TRUE(MessageDifferencer::Equals(ToProto(fa), ToProto(fb)));
    EXPECT_EQ(plain_host.log, rec_host.log);
    EXPECT_EQ(rec.observations(), rec_host.log.size());
    EXPECT_EQ(tape.size(), rec_host.log.size());
  }
}

// ---------------------------------------------------------------------------
// The tape reproduces exactly the calls, in order

TEST(RecordingEvidence, TapeIsExactlyTheSourceCallsInOrder) {
  for (const Scenario& s : Scenarios()) {
    SCOPED_TRACE(s.name);
    Outcome run = RunResolve(s, true);
    ASSERT_EQ(run.tape.size(), run.source_calls);
    ASSERT_EQ(run.tap.size(), run.source_calls);
    EXPECT_EQ(run.recorded, run.source_calls);
    for (std::size_t i = 0; i < run.tape.size(); ++i) {
      v1::Observation want = Expected(run.tap[i], i, true, {kTokenEntry});
      ASSERT_TRUE(MessageDifferencer::Equals(run.tape[i], want))
          << "observation " << i << "\n got: " << ToJson(run.tape[i]) << "\nwant: " << ToJson(want);
    }
  }
}

TEST(RecordingEvidence, KeepEnvironStoresEnvironVerbatim) {
  for (const Scenario& s : Scenarios()) {
    SCOPED_TRACE(s.name);
    Outcome run = RunResolve(s, true, /*keep_environ=*/true);
    ASSERT_EQ(run.tape.size(), run.tap.size());
    for (std::size_t i = 0; i < run.tape.size(); ++i) {
      v1::Observation want = Expected(run.tap[i], i, false, {});
      ASSERT_TRUE(MessageDifferencer::Equals(run.tape[i], want)) << "observation " << i;
    }
  }
}

// ---------------------------------------------------------------------------
// Redaction

TEST(RecordingEvidence, EnvironIsRedactedExceptTheTokenEntry) {
  Scenario hostile = Scenarios().back();
  Outcome run = RunResolve(hostile, true);
  ASSERT_EQ(run.verdict.status, Status::kResolved) << run.verdict.detail;  // saw the raw token
  int environ_reads = 0;
  v1::ObservationBatch batch;
  for (std::size_t i = 0; i < run.tape.size(); ++i) {
    *batch.add_observations() = run.tape[i];
    if (!run.tape[i].has_read_file()) continue;
    const auto& rf = run.tape[i].read_file();
    const std::string& source = run.tap[i].read.data;
    if (rf.file() != v1::PROC_FILE_ENVIRON) {
      EXPECT_FALSE(rf.result().redacted());
      EXPECT_EQ(rf.result().data(), source);
      continue;
    }
    ++environ_reads;
    EXPECT_TRUE(rf.result().redacted());
    EXPECT_EQ(rf.result().data().size(), source.size());
    EXPECT_EQ(rf.result().data().find("/root"), std::string::npos);
    if (rf.pid() == kSleep || rf.pid() == kSandboxShell) {
      EXPECT_NE(rf.result().data().find(kTokenEntry), std::string::npos) << rf.pid();
    }
  }
  EXPECT_GE(environ_reads, 1);
  // No byte sequence of the secret anywhere in the serialized tape.
  std::string bytes = batch.SerializeAsString();
  EXPECT_EQ(bytes.find(kSecret), std::string::npos);
  EXPECT_EQ(bytes.find("supersecret"), std::string::npos);
  EXPECT_NE(bytes.find(kTokenEntry), std::string::npos);

  // With keep_environ the same tape holds the secret, as read.
  Outcome kept = RunResolve(hostile, true, /*keep_environ=*/true);
  v1::ObservationBatch kept_batch;
  for (const auto& o : kept.tape) *kept_batch.add_observations() = o;
  EXPECT_NE(kept_batch.SerializeAsString().find(kSecret), std::string::npos);
}

}  // namespace
}  // namespace proctape
