// SPDX-License-Identifier: Apache-2.0
// Expect lines (corpus/expect.h) for every kind of verdict, the --expect
// option, and the comparison `corpus check` makes between an entry's expect
// lines and its replays (corpus/corpus.h): a drift is a different status or
// identity, a DIVERGED replay, or another number of resolutions; a changed
// detail sentence is not.
#include "corpus/expect.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "corpus/corpus.h"

namespace proctape {
namespace {

v1::Verdict V(v1::Verdict::Status status, std::int64_t pid = 0, std::uint64_t start = 0) {
  v1::Verdict v;
  v.set_status(status);
  v.set_pid(pid);
  v.set_start_ticks(start);
  return v;
}

v1::LivenessVerdict L(v1::LivenessVerdict::Status status,
                      v1::Verdict::Status reason = v1::Verdict::STATUS_UNSPECIFIED) {
  v1::LivenessVerdict v;
  v.set_status(status);
  v.set_reason(reason);
  return v;
}

v1::ReplayResult Replay(v1::Verdict recorded, v1::Verdict replayed,
                        v1::ReplayResult::Outcome outcome = v1::ReplayResult::REPRODUCED,
                        std::uint64_t index = 0) {
  v1::ReplayResult r;
  r.set_resolution_index(index);
  r.set_outcome(outcome);
  *r.mutable_recorded() = recorded;
  *r.mutable_replayed() = replayed;
  return r;
}

v1::ReplayResult LivenessReplay(v1::LivenessVerdict recorded, v1::LivenessVerdict replayed) {
  v1::ReplayResult r;
  r.set_outcome(v1::ReplayResult::REPRODUCED);
  *r.mutable_recorded_liveness() = recorded;
  *r.mutable_replayed_liveness() = replayed;
  return r;
}

TEST(CorpusExpect, EveryResolveStatusHasOneWellFormedLine) {
  for (int s = v1::Verdict::Status_MIN + 1; s <= v1::Verdict::Status_MAX; ++s) {
    auto status = static_cast<v1::Verdict::Status>(s);
    std::string line = ExpectText(V(status, 4123, 56789));
    if (status == v1::Verdict::RESOLVED) {
      EXPECT_EQ(line, "RESOLVED pid=4123 start=56789");
    } else {
      EXPECT_EQ(line, v1::Verdict::Status_Name(status));  // the identity is not pinned
    }
    EXPECT_EQ(ExpectSyntaxError(line), "") << line;
    EXPECT_FALSE(IsLivenessExpect(line)) << line;
  }
  EXPECT_EQ(ExpectText(V(static_cast<v1::Verdict::Status>(99))), "STATUS_99");
}

TEST(CorpusExpect, EveryLivenessOutcomeHasOneWellFormedLine) {
  EXPECT_EQ(ExpectText(L(v1::LivenessVerdict::ALIVE)), "ALIVE");
  EXPECT_EQ(ExpectText(L(v1::LivenessVerdict::DEAD)), "DEAD");
  for (auto reason :
       {v1::Verdict::PID_REUSED, v1::Verdict::MALFORMED_RECORD, v1::Verdict::UNREADABLE}) {
    std::string line = ExpectText(L(v1::LivenessVerdict::ERROR, reason));
    EXPECT_EQ(line, "ERROR " + v1::Verdict::Status_Name(reason));
    EXPECT_EQ(ExpectSyntaxError(line), "") << line;
    EXPECT_TRUE(IsLivenessExpect(line));
  }
  EXPECT_TRUE(IsLivenessExpect("ALIVE"));
  EXPECT_TRUE(IsLivenessExpect("DEAD"));
}

TEST(CorpusExpect, MalformedLinesSayWhy) {
  for (const char* bad : {"", "ERROR", "ERROR RESOLVED", "ERROR nope", "RESOLVED", "RESOLVED pid=1",
                          "RESOLVED pid=1 start=", "RESOLVED pid=-1 start=2",
                          "RESOLVED start=2 pid=1", "RESOLVED pid=1 start=2 ", "NO_MATCH pid=1",
                          "no_match", "STATUS_UNSPECIFIED", "ALIVE ", "REPRODUCED"}) {
    EXPECT_NE(ExpectSyntaxError(bad), "") << "'" << bad << "'";
  }
}

TEST(CorpusExpect, ReplayedAndRecordedVerdictsOfAResult) {
  v1::ReplayResult r = Replay(V(v1::Verdict::RESOLVED, 7, 9), V(v1::Verdict::NO_MATCH),
                              v1::ReplayResult::VERDICT_CHANGED);
  EXPECT_EQ(RecordedExpect(r), "RESOLVED pid=7 start=9");
  EXPECT_EQ(ReplayedExpect(r), "NO_MATCH");
  v1::ReplayResult l = LivenessReplay(L(v1::LivenessVerdict::ALIVE), L(v1::LivenessVerdict::DEAD));
  EXPECT_EQ(RecordedExpect(l), "ALIVE");
  EXPECT_EQ(ReplayedExpect(l), "DEAD");
}

TEST(CorpusExpect, ExpectOptionTakesAnIdentityOnlyFromAReplayThatHasIt) {
  Failure error;
  v1::ReplayResult resolved =
      Replay(V(v1::Verdict::RESOLVED, 7, 9), V(v1::Verdict::RESOLVED, 7, 9));
  EXPECT_EQ(ExpectFromOption("RESOLVED", resolved, &error), "RESOLVED pid=7 start=9");
  EXPECT_EQ(ExpectFromOption("RESOLVED pid=8 start=9", resolved, &error), "RESOLVED pid=8 start=9");
  EXPECT_EQ(ExpectFromOption("NO_MATCH", resolved, &error), "NO_MATCH");

  v1::ReplayResult none = Replay(V(v1::Verdict::NO_MATCH), V(v1::Verdict::NO_MATCH));
  EXPECT_EQ(ExpectFromOption("RESOLVED", none, &error), std::nullopt);
  EXPECT_EQ(error.message,
            "--expect RESOLVED takes its identity from the replay, which gives NO_MATCH: "
            "write it in full");
  EXPECT_EQ(ExpectFromOption("DEAD", none, &error), std::nullopt);
  EXPECT_EQ(error.message, "--expect DEAD: resolution 0 is a resolution (a Verdict status name)");
  EXPECT_EQ(ExpectFromOption("NOPE\n", none, &error), std::nullopt);
  EXPECT_EQ(error.message.find('\n'), std::string::npos) << error.message;
  EXPECT_EQ(error.kind, FailureKind::kUsage);

  v1::ReplayResult reused = LivenessReplay(L(v1::LivenessVerdict::ERROR, v1::Verdict::PID_REUSED),
                                           L(v1::LivenessVerdict::ERROR, v1::Verdict::PID_REUSED));
  EXPECT_EQ(ExpectFromOption("ERROR", reused, &error), "ERROR PID_REUSED");
  EXPECT_EQ(ExpectFromOption("ALIVE", reused, &error), "ALIVE");
  EXPECT_EQ(ExpectFromOption("NO_MATCH", reused, &error), std::nullopt);
  EXPECT_EQ(error.message,
            "--expect NO_MATCH: resolution 0 is a liveness check (ALIVE, DEAD or ERROR "
            "REASON)");
  EXPECT_EQ(error.kind, FailureKind::kUsage);
}

TEST(CorpusCompare, MatchingReplaysReproduce) {
  v1::CorpusEntryResult r;
  CompareWithExpects({"RESOLVED pid=7 start=9", "DEAD"},
                     {Replay(V(v1::Verdict::RESOLVED, 7, 9), V(v1::Verdict::RESOLVED, 7, 9)),
                      LivenessReplay(L(v1::LivenessVerdict::DEAD), L(v1::LivenessVerdict::DEAD))},
                     &r);
  EXPECT_EQ(r.state(), v1::CorpusEntryResult::REPRODUCED);
  EXPECT_EQ(r.detail(), "");
  EXPECT_EQ(r.got_size(), 2);
  EXPECT_EQ(CheckLine(r), "");
}

TEST(CorpusCompare, AnotherIdentityOrStatusDrifts) {
  v1::CorpusEntryResult r;
  r.set_name("e");
  CompareWithExpects({"RESOLVED pid=7 start=9"},
                     {Replay(V(v1::Verdict::RESOLVED, 7, 9), V(v1::Verdict::RESOLVED, 7, 10),
                             v1::ReplayResult::VERDICT_CHANGED)},
                     &r);
  EXPECT_EQ(r.state(), v1::CorpusEntryResult::DRIFTED);
  EXPECT_EQ(CheckLine(r), "DRIFT e: expected RESOLVED pid=7 start=9; got RESOLVED pid=7 start=10");
}

// The expect line pins status and identity, not the sentence: a replay whose
// detail changed (VERDICT CHANGED for `replay`) still meets it.
TEST(CorpusCompare, AChangedDetailAloneIsNoDrift) {
  v1::Verdict recorded = V(v1::Verdict::NO_MATCH);
  recorded.set_detail("no match by the deadline");
  v1::Verdict replayed = V(v1::Verdict::NO_MATCH);
  replayed.set_detail("nothing matched by the deadline");
  v1::CorpusEntryResult r;
  CompareWithExpects({"NO_MATCH"}, {Replay(recorded, replayed, v1::ReplayResult::VERDICT_CHANGED)},
                     &r);
  EXPECT_EQ(r.state(), v1::CorpusEntryResult::REPRODUCED);
}

TEST(CorpusCompare, DivergedDriftsEvenWhenTheVerdictTextMatches) {
  v1::ReplayResult d =
      Replay(V(v1::Verdict::NO_MATCH), V(v1::Verdict::NO_MATCH), v1::ReplayResult::DIVERGED);
  d.set_divergence_index(12);
  d.set_recorded_call("ListPids()");
  d.set_made_call("ReadFile(7, stat)");
  v1::CorpusEntryResult r;
  r.set_name("e");
  CompareWithExpects({"NO_MATCH"}, {d}, &r);
  EXPECT_EQ(r.state(), v1::CorpusEntryResult::DRIFTED);
  EXPECT_EQ(CheckLine(r),
            "DRIFT e: expected NO_MATCH; got DIVERGED at observation 12 (recorded "
            "ListPids(), made ReadFile(7, stat))");
}

TEST(CorpusCompare, AnotherNumberOfResolutionsDrifts) {
  v1::ReplayResult dead =
      LivenessReplay(L(v1::LivenessVerdict::DEAD), L(v1::LivenessVerdict::DEAD));
  v1::CorpusEntryResult fewer, more;
  CompareWithExpects({"DEAD", "DEAD"}, {dead}, &fewer);
  EXPECT_EQ(fewer.state(), v1::CorpusEntryResult::DRIFTED);
  EXPECT_EQ(fewer.detail(), "expected DEAD, DEAD; got DEAD");
  CompareWithExpects({"DEAD"}, {dead, dead}, &more);
  EXPECT_EQ(more.state(), v1::CorpusEntryResult::DRIFTED);
  EXPECT_EQ(more.detail(), "expected DEAD; got DEAD, DEAD");
}

TEST(CorpusReportText, SummaryLineAndUnreadableLine) {
  v1::CorpusReport report;
  report.set_dir("corpus");
  report.set_entries(5);
  report.set_reproduced(3);
  report.set_drifted(1);
  report.set_unreadable(1);
  report.set_seconds(1.5);
  EXPECT_EQ(SummaryLine(report),
            "corpus corpus: 5 entries, 3 reproduced, 1 drifted, 1 unreadable (1.500 s)");
  v1::CorpusEntryResult u;
  u.set_name("x");
  u.set_state(v1::CorpusEntryResult::UNREADABLE);
  u.set_detail("0123456789abcdef.ptape is missing from the corpus directory");
  EXPECT_EQ(CheckLine(u),
            "UNREADABLE x: 0123456789abcdef.ptape is missing from the corpus "
            "directory");
}

// XML 1.0 cannot carry control bytes even as character references: they
// become the text \xNN; markup characters become entities.
TEST(CorpusJUnit, EscapesEverythingIntoPlainAsciiXml) {
  using namespace std::string_literals;
  EXPECT_EQ(XmlEscape("a<b>&\"c'\t\n\x00\x1b\x7f\xc3\xa9\\"s),
            "a&lt;b&gt;&amp;&quot;c&apos;&#9;&#10;\\x00\\x1b\\x7f\\xc3\\xa9\\");
  v1::CorpusReport report;
  report.set_dir("dir<&>");
  report.set_entries(3);
  report.set_drifted(1);
  report.set_unreadable(1);
  v1::CorpusEntryResult* ok = report.add_results();
  ok->set_name("fine");
  ok->set_file("0000000000000000.ptape");
  ok->set_state(v1::CorpusEntryResult::REPRODUCED);
  v1::CorpusEntryResult* drift = report.add_results();
  drift->set_name("drift");
  drift->set_file("1111111111111111.ptape");
  drift->set_state(v1::CorpusEntryResult::DRIFTED);
  drift->set_detail("expected \"A\"; got <B>");
  v1::CorpusEntryResult* bad = report.add_results();
  bad->set_name("bad");
  bad->set_file("2222222222222222.ptape");
  bad->set_state(v1::CorpusEntryResult::UNREADABLE);
  bad->set_detail("changed\x01");
  std::string xml = JUnitXml(report);
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 0), 0u);
  EXPECT_NE(xml.find("<testsuite name=\"proctape-corpus\" tests=\"3\" failures=\"1\" "
                     "errors=\"1\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("name=\"fine\" file=\"dir&lt;&amp;&gt;/0000000000000000.ptape\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<failure type=\"drift\" message=\"expected &quot;A&quot;; got &lt;B&gt;\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<error type=\"unreadable\" message=\"changed\\x01\">changed\\x01</error>"),
            std::string::npos)
      << xml;
  for (char c : xml) {
    auto u = static_cast<unsigned char>(c);
    EXPECT_TRUE(c == '\n' || (u >= 0x20 && u < 0x7f)) << int{u};
  }
}

}  // namespace
}  // namespace proctape
