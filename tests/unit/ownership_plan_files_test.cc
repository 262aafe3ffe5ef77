// SPDX-License-Identifier: Apache-2.0
// `proctape ownership` whole at the library level (ownership/plan_files.h):
// the request's usage problems, the two files read (a damaged or missing one
// is a failure about its option), the plan, its text and the words of a
// refusal, on the repository corpus pair the golden test plans.
#include <gtest/gtest.h>

#include <string>

#include "ownership/plan_files.h"
#include "tests/unit/source_dir.h"

namespace proctape {
namespace {

std::string Corpus(const char* name) { return (test::SourceDir() / "corpus" / name).string(); }

OwnershipFiles Pair() {
  OwnershipFiles files;
  files.baseline = Corpus("021e7cdf322033a4.ptape");  // pid-reuse-unshare
  files.current = Corpus("d40fb836ad433348.ptape");   // hostile-comm-unshare
  files.request.uid = 0;
  files.request.cgroup = "/";
  files.request.self_pid = 1;
  return files;
}

TEST(OwnershipPlanFiles, RequestProblemsAreUsageFailures) {
  OwnershipRequest request;
  request.cgroup = "system.slice";
  ASSERT_TRUE(OwnershipRequestProblem(request));
  EXPECT_EQ(OwnershipRequestProblem(request)->kind, FailureKind::kUsage);
  request.cgroup = "/system.slice";
  EXPECT_FALSE(OwnershipRequestProblem(request));
  request.outputs = {"out.txt", "///"};
  ASSERT_TRUE(OwnershipRequestProblem(request));
  EXPECT_EQ(OwnershipRequestProblem(request)->message, "--output '///' names no file");
}

TEST(OwnershipPlanFiles, PlansTheCorpusPair) {
  OwnershipOutcome planned = PlanOwnershipFiles(Pair());
  ASSERT_FALSE(planned.failure) << planned.failure->message;
  EXPECT_EQ(planned.plan.outcome(), v1::OwnershipPlan::PLANNED);
  EXPECT_EQ(planned.text, DescribePlan(planned.plan));
  EXPECT_TRUE(planned.refusal.empty());
  EXPECT_FALSE(planned.warnings.empty());  // --cgroup / is planned with a warning
}

TEST(OwnershipPlanFiles, AReversedPairIsRefusedByItsFirstProblem) {
  OwnershipFiles files = Pair();
  std::swap(files.baseline, files.current);
  OwnershipOutcome planned = PlanOwnershipFiles(files);
  ASSERT_FALSE(planned.failure) << planned.failure->message;
  ASSERT_EQ(planned.plan.outcome(), v1::OwnershipPlan::REFUSED);
  ASSERT_EQ(planned.plan.problems_size(), 1);
  EXPECT_EQ(planned.refusal, "the plan is REFUSED: " + DescribeProblem(planned.plan.problems(0)));
}

TEST(OwnershipPlanFiles, AFileThatCannotBeReadIsAFailureAboutItsOption) {
  OwnershipFiles files = Pair();
  files.current = Corpus("no-such-file.ptape");
  OwnershipOutcome planned = PlanOwnershipFiles(files);
  ASSERT_TRUE(planned.failure);
  EXPECT_EQ(planned.failure->kind, FailureKind::kIo);
  EXPECT_EQ(planned.failed_option, "--current");
  EXPECT_EQ(planned.failed_path, files.current);
  EXPECT_TRUE(planned.text.empty());

  files.baseline = Corpus("MANIFEST");  // not a snapshot
  planned = PlanOwnershipFiles(files);
  ASSERT_TRUE(planned.failure);
  EXPECT_EQ(planned.failure->kind, FailureKind::kBadMagic);
  EXPECT_EQ(planned.failed_option, "--baseline");
}

}  // namespace
}  // namespace proctape
