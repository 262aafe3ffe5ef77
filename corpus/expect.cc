#include "corpus/expect.h"

#include "core/proc_parse.h"

namespace proctape {
namespace {

// The schema's name, or STATUS_N for a value this build does not know.
std::string StatusName(v1::Verdict::Status status) {
  const std::string& name = v1::Verdict::Status_Name(status);
  return name.empty() ? "STATUS_" + std::to_string(static_cast<int>(status)) : name;
}

// A Verdict.Status name other than STATUS_UNSPECIFIED.
bool IsStatusName(std::string_view text, v1::Verdict::Status* status) {
  v1::Verdict::Status s;
  if (!v1::Verdict::Status_Parse(std::string(text), &s) || s == v1::Verdict::STATUS_UNSPECIFIED) {
    return false;
  }
  if (status != nullptr) *status = s;
  return true;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::string ExpectText(const v1::Verdict& v) {
  std::string out = StatusName(v.status());
  if (v.status() == v1::Verdict::RESOLVED) {
    out += " pid=" + std::to_string(v.pid()) + " start=" + std::to_string(v.start_ticks());
  }
  return out;
}

std::string ExpectText(const v1::LivenessVerdict& v) {
  switch (v.status()) {
    case v1::LivenessVerdict::ALIVE: return "ALIVE";
    case v1::LivenessVerdict::DEAD: return "DEAD";
    case v1::LivenessVerdict::ERROR: return "ERROR " + StatusName(v.reason());
    default: return "LIVENESS_" + std::to_string(static_cast<int>(v.status()));
  }
}

std::string ReplayedExpect(const v1::ReplayResult& r) {
  if (r.outcome() == v1::ReplayResult::DIVERGED && !r.has_replayed() &&
      !r.has_replayed_liveness()) {
    return "DIVERGED";  // no verdict: the tape could not answer a call
  }
  return r.has_recorded_liveness() ? ExpectText(r.replayed_liveness()) : ExpectText(r.replayed());
}

std::string RecordedExpect(const v1::ReplayResult& r) {
  return r.has_recorded_liveness() ? ExpectText(r.recorded_liveness()) : ExpectText(r.recorded());
}

std::string ExpectSyntaxError(std::string_view e) {
  if (e == "ALIVE" || e == "DEAD") return "";
  if (StartsWith(e, "ERROR ")) {
    v1::Verdict::Status s;
    if (IsStatusName(e.substr(6), &s) && s != v1::Verdict::RESOLVED) return "";
    return "ERROR wants a reason, a Verdict status name other than RESOLVED (ERROR PID_REUSED)";
  }
  if (StartsWith(e, "RESOLVED")) {
    std::string_view rest = e.substr(8);
    std::size_t space = rest.find(' ', 1);
    if (StartsWith(rest, " pid=") && space != std::string_view::npos &&
        StartsWith(rest.substr(space), " start=") &&
        ParseCanonicalDecimal(rest.substr(5, space - 5), INT64_MAX) &&
        ParseCanonicalDecimal(rest.substr(space + 7))) {
      return "";
    }
    return "RESOLVED wants its identity: RESOLVED pid=N start=T (canonical decimals)";
  }
  if (IsStatusName(e, nullptr)) return "";
  return "not an expected outcome: want a Verdict status name (NO_MATCH), RESOLVED pid=N "
         "start=T, ALIVE, DEAD or ERROR REASON";
}

bool IsLivenessExpect(std::string_view e) {
  return e == "ALIVE" || e == "DEAD" || StartsWith(e, "ERROR ");
}

std::optional<std::string> ExpectFromOption(std::string_view option, const v1::ReplayResult& r,
                                            Failure* failure) {
  const bool liveness = r.has_recorded_liveness();
  const std::string replayed = ReplayedExpect(r);
  std::string expect(option);
  if (option == "RESOLVED" || option == "ERROR") {
    // The identity (or the reason) is the replay's, which must give that status.
    if (!StartsWith(replayed, expect + " ")) {
      *failure = Failure(FailureKind::kUsage,
                         "--expect " + expect + " takes its " + (liveness ? "reason" : "identity") +
                             " from the replay, which gives " + replayed + ": write it in full");
      return std::nullopt;
    }
    expect = replayed;
  }
  std::string syntax = ExpectSyntaxError(expect);
  if (!syntax.empty()) {
    *failure = Failure(FailureKind::kUsage, "--expect " + EscapeBytes(option) + ": " + syntax);
    return std::nullopt;
  }
  if (IsLivenessExpect(expect) != liveness) {
    *failure =
        Failure(FailureKind::kUsage,
                "--expect " + expect + ": resolution " + std::to_string(r.resolution_index()) +
                    (liveness ? " is a liveness check (ALIVE, DEAD or ERROR REASON)"
                              : " is a resolution (a Verdict status name)"));
    return std::nullopt;
  }
  return expect;
}

std::string ReplayPhrase(const v1::ReplayResult& r) {
  if (r.outcome() == v1::ReplayResult::DIVERGED) {
    return "DIVERGED at observation " + std::to_string(r.divergence_index()) + " (recorded " +
           r.recorded_call() + ", made " + r.made_call() + ")";
  }
  return ReplayedExpect(r);
}

}  // namespace proctape
