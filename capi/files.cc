// SPDX-License-Identifier: Apache-2.0
// .ptape files through the C ABI (include/proctape.h): a file's summary and
// its replay, each allocated here and freed by its proctape_*_free.
#include <cstdlib>
#include <cstring>
#include <memory>

#include "capi/edge.h"

using namespace proctape;
using namespace proctape::capi;

namespace {

// calloc'd arrays: the free functions are C's, whoever allocated.
template <typename T>
T* Array(std::size_t n) {
  if (n == 0) return nullptr;
  void* p = std::calloc(n, sizeof(T));
  if (p == nullptr) throw std::bad_alloc();
  return static_cast<T*>(p);
}

char* Text(const std::string& s) {
  char* p = Array<char>(s.size() + 1);
  std::memcpy(p, s.data(), s.size());
  return p;
}

}  // namespace

extern "C" {

void proctape_file_summary_free(proctape_file_summary* summary) {
  if (summary == nullptr) return;
  std::free(summary->checks);
  std::free(summary->fingerprints);
  std::free(summary);
}

void proctape_replay_report_free(proctape_replay_report* report) {
  if (report == nullptr) return;
  for (std::size_t i = 0; i < report->check_count; ++i) std::free(report->checks[i].description);
  std::free(report->checks);
  std::free(report);
}

proctape_status proctape_read_file(const char* path, proctape_file_summary** out,
                                   proctape_error* err) {
  if (out != nullptr) *out = nullptr;
  return Edge(err, [&] {
    if (path == nullptr || out == nullptr) {
      return Report(err, PROCTAPE_E_INVALID_ARGUMENT, "path or out is NULL");
    }
    if (*path == '\0') return Report(err, PROCTAPE_E_INVALID_ARGUMENT, "path is empty");
    const api::FileSummary in = api::ReadFile(path);
    if (in.error.code == api::ErrorCode::kInternal) return Report(err, in.error);
    std::unique_ptr<proctape_file_summary, void (*)(proctape_file_summary*)> s(
        Array<proctape_file_summary>(1), proctape_file_summary_free);
    s->chunks = in.chunks;
    s->frames = in.frames;
    s->processes = in.processes;
    s->observations = in.observations;
    s->environ_kept = in.environ_kept;
    s->checks = Array<proctape_recorded_check>(in.checks.size());
    s->check_count = in.checks.size();
    for (std::size_t i = 0; i < in.checks.size(); ++i) {
      proctape_recorded_check& c = s->checks[i];
      c.liveness = in.checks[i].liveness;
      // The other kind's verdict stays zero (NONE): absent, not a real-looking value.
      if (c.liveness) {
        FromLiveness(in.checks[i].liveness_verdict, &c.liveness_verdict);
      } else {
        FromVerdict(in.checks[i].verdict, &c.verdict);
      }
      c.observations = in.checks[i].observations;
    }
    s->fingerprints = Array<proctape_fingerprint>(in.fingerprints.size());
    s->fingerprint_count = in.fingerprints.size();
    for (std::size_t i = 0; i < in.fingerprints.size(); ++i) {
      FromFingerprint(in.fingerprints[i], &s->fingerprints[i]);
    }
    *out = s.release();
    return Report(err, in.error);
  });
}

proctape_status proctape_replay(const char* path, proctape_replay_report** out,
                                proctape_error* err) {
  if (out != nullptr) *out = nullptr;
  return Edge(err, [&] {
    if (path == nullptr || out == nullptr) {
      return Report(err, PROCTAPE_E_INVALID_ARGUMENT, "path or out is NULL");
    }
    if (*path == '\0') return Report(err, PROCTAPE_E_INVALID_ARGUMENT, "path is empty");
    const api::ReplayReport in = api::Replay(path);
    if (!in.ok()) return Report(err, in.error);
    std::unique_ptr<proctape_replay_report, void (*)(proctape_replay_report*)> r(
        Array<proctape_replay_report>(1), proctape_replay_report_free);
    r->worst = static_cast<int>(in.worst);
    r->checks = Array<proctape_replayed_check>(in.checks.size());
    for (const api::ReplayedCheck& c : in.checks) {
      proctape_replayed_check& o = r->checks[r->check_count];
      o.index = c.index;
      o.outcome = static_cast<int>(c.outcome);
      o.liveness = c.liveness;
      if (c.liveness) {  // the other kind's verdicts stay zero (NONE)
        FromLiveness(c.recorded_liveness, &o.recorded_liveness);
        if (c.has_replayed) FromLiveness(c.replayed_liveness, &o.replayed_liveness);
      } else {
        FromVerdict(c.recorded, &o.recorded);
        if (c.has_replayed) FromVerdict(c.replayed, &o.replayed);
      }
      o.has_replayed = c.has_replayed;
      o.description = Text(c.description);
      ++r->check_count;  // counted once whole: the free function frees what is counted
    }
    *out = r.release();
    return Report(err, PROCTAPE_OK, "");
  });
}

}  // extern "C"
