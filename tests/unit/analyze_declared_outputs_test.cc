// SPDX-License-Identifier: Apache-2.0
// Declared outputs in the ownership plan (`docs/ownership.md`, "Declared
// outputs"), on an in-memory filesystem: a missing parent means that the
// output is already absent; a parent that is a symbolic link or not a
// directory still fails closed.
// The live test with a real git checkout is tests/live/declared_outputs_live_test.cc.
#include "ownership/declared_outputs.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <map>
#include <string>
#include <vector>

#include "ownership/ownership.h"
#include "proto/convert.h"
#include "tests/unit/ownership_fixture.h"

namespace proctape {
namespace {

using Out = v1::DeclaredOutput;
using Problem = v1::OwnershipProblem;

// A filesystem of the paths a test names (each as lstat would see it);
// anything else is missing. Every lookup is logged in order.
class MemoryPaths : public PathLookup {
 public:
  MemoryPaths& Dir(const std::string& p) { return Set(p, Out::DIRECTORY); }
  MemoryPaths& File(const std::string& p) { return Set(p, Out::REGULAR); }
  MemoryPaths& Link(const std::string& p) { return Set(p, Out::SYMLINK); }
  MemoryPaths& Fifo(const std::string& p) { return Set(p, Out::OTHER); }
  MemoryPaths& Error(const std::string& p, int err) {
    entries_[p] = PathEntry{err, Out::KIND_UNSPECIFIED};
    return *this;
  }
  PathEntry Lstat(const std::string& path) override {
    looked_up.push_back(path);
    auto it = entries_.find(path);
    return it == entries_.end() ? PathEntry{ENOENT, Out::MISSING} : it->second;
  }
  std::vector<std::string> looked_up;

 private:
  MemoryPaths& Set(const std::string& p, Out::Kind kind) {
    entries_[p] = PathEntry{0, kind};
    return *this;
  }
  std::map<std::string, PathEntry> entries_;
};

// A checkout as the verifier of docs/ownership.md, "Declared outputs" sees
// it: .venv is ignored (.gitignore).
MemoryPaths Checkout() {
  MemoryPaths fs;
  fs.Dir(".venv").Dir(".venv/bin").File(".venv/bin/python").Dir("dist");
  return fs;
}

std::string State(const Out& o) { return Out::State_Name(o.state()); }

// `docs/ownership.md`, "Declared outputs": the declared output exists:
// cleanup would remove it.
TEST(DeclaredOutputs, ExistingOutputIsPresentWithWhatItIs) {
  MemoryPaths fs = Checkout();
  fs.Link("dist/latest").Fifo("dist/pipe");
  for (const auto& [path, kind] : std::vector<std::pair<std::string, Out::Kind>>{
           {".venv/bin/python", Out::REGULAR},
           {".venv/bin", Out::DIRECTORY},
           {"dist/latest", Out::SYMLINK},  // the output itself a link: not followed
           {"dist/pipe", Out::OTHER}}) {
    Out o = PlanDeclaredOutput(path, fs);
    EXPECT_EQ(State(o), "PRESENT") << path << ": " << o.detail();
    EXPECT_EQ(o.kind(), kind) << path;
    EXPECT_EQ(o.decided_at(), path);
    EXPECT_EQ(o.path(), path);
  }
}

// `docs/ownership.md`, "Declared outputs": git clean -fdX may have removed the
// ignored .venv directory before cleanup looks for the declared
// .venv/bin/python; a missing parent means that the output is already absent,
// not a verification failure. Nothing below the missing parent is looked up.
TEST(DeclaredOutputs, MissingParentMeansTheOutputIsAlreadyAbsent) {
  MemoryPaths fs;  // after git clean -fdX: no .venv at all
  fs.Dir("dist");
  Out o = PlanDeclaredOutput(".venv/bin/python", fs);
  EXPECT_EQ(State(o), "ABSENT") << o.detail();
  EXPECT_EQ(o.decided_at(), ".venv");
  EXPECT_EQ(o.kind(), Out::MISSING);
  EXPECT_EQ(o.detail(), "already absent: its parent \".venv\" is missing");
  EXPECT_EQ(fs.looked_up, (std::vector<std::string>{".venv"}));

  // The parent present, the output missing: absent as well.
  MemoryPaths half = Checkout();
  Out missing = PlanDeclaredOutput(".venv/bin/pip", half);
  EXPECT_EQ(State(missing), "ABSENT") << missing.detail();
  EXPECT_EQ(missing.decided_at(), ".venv/bin/pip");
  EXPECT_EQ(missing.detail(), "already absent: missing");
}

// `docs/ownership.md`, "Declared outputs": a parent that is a symbolic link
// or not a directory still fails closed: a
// parent that is a link (repository code could point .venv anywhere) or a
// file, whatever lies beyond it.
TEST(DeclaredOutputs, SymlinkOrNonDirectoryParentFailsClosed) {
  MemoryPaths linked;
  linked.Link(".venv").Dir(".venv/bin").File(".venv/bin/python");  // beyond: never consulted
  Out l = PlanDeclaredOutput(".venv/bin/python", linked);
  EXPECT_EQ(State(l), "FAIL_CLOSED") << l.detail();
  EXPECT_EQ(l.decided_at(), ".venv");
  EXPECT_EQ(l.kind(), Out::SYMLINK);
  EXPECT_EQ(linked.looked_up, (std::vector<std::string>{".venv"}));

  MemoryPaths filed;
  filed.Dir(".venv").File(".venv/bin");
  Out f = PlanDeclaredOutput(".venv/bin/python", filed);
  EXPECT_EQ(State(f), "FAIL_CLOSED") << f.detail();
  EXPECT_EQ(f.decided_at(), ".venv/bin");
  EXPECT_EQ(f.kind(), Out::REGULAR);

  MemoryPaths fifo;
  fifo.Fifo("out");
  EXPECT_EQ(State(PlanDeclaredOutput("out/x", fifo)), "FAIL_CLOSED");
}

// A lookup that fails otherwise than with ENOENT (EACCES, ELOOP, ...) cannot
// tell: it fails closed with its errno, on a parent or on the output itself.
TEST(DeclaredOutputs, FailedLookupFailsClosedWithItsErrno) {
  MemoryPaths fs = Checkout();
  fs.Error(".venv/bin", EACCES);
  Out o = PlanDeclaredOutput(".venv/bin/python", fs);
  EXPECT_EQ(State(o), "FAIL_CLOSED") << o.detail();
  EXPECT_EQ(o.err(), EACCES);
  EXPECT_EQ(o.decided_at(), ".venv/bin");

  MemoryPaths self = Checkout();
  self.Error(".venv/bin/python", EACCES);
  EXPECT_EQ(State(PlanDeclaredOutput(".venv/bin/python", self)), "FAIL_CLOSED");
}

// Components are looked up parents first; empty ones are skipped; an absolute
// path is looked up from "/" with every component.
TEST(DeclaredOutputs, ComponentsAreLookedUpInOrderFromTheRootOfThePath) {
  MemoryPaths fs;
  fs.Dir("a").Dir("a/b").File("a/b/c");
  Out o = PlanDeclaredOutput("a//b/c/", fs);
  EXPECT_EQ(State(o), "PRESENT") << o.detail();
  EXPECT_EQ(fs.looked_up, (std::vector<std::string>{"a", "a/b", "a/b/c"}));
  EXPECT_EQ(o.path(), "a//b/c/");  // as declared

  MemoryPaths abs;
  abs.Dir("/work").Dir("/work/repo").File("/work/repo/out");
  EXPECT_EQ(State(PlanDeclaredOutput("/work/repo/out", abs)), "PRESENT");
  EXPECT_EQ(abs.looked_up, (std::vector<std::string>{"/work", "/work/repo", "/work/repo/out"}));
}

// Hostile bytes in a declared path are escaped in every sentence.
TEST(DeclaredOutputs, HostileBytesInAPathAreEscaped) {
  MemoryPaths fs;
  Out o = PlanDeclaredOutput("out\n\x1b[2J\"/x", fs);
  EXPECT_EQ(o.detail(), "already absent: its parent \"out\\x0a\\x1b[2J\\x22\" is missing");
}

// ---- In the plan

using test::Baseline;
using test::Current;

OwnershipRequest WithOutputs(std::vector<std::string> outputs) {
  OwnershipRequest r = test::Request();
  r.outputs = std::move(outputs);
  return r;
}

// Every declared output has its line in a planned plan, in the order given,
// and the plan counts them; the processes are decided as without outputs.
TEST(DeclaredOutputs, PlannedPlanListsEveryDeclaredOutput) {
  MemoryPaths fs;  // after git clean -fdX
  fs.Dir("dist").File("dist/app.whl");
  v1::OwnershipPlan plan =
      PlanOwnership(Baseline(), Current(), WithOutputs({".venv/bin/python", "dist/app.whl"}), fs);
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << DescribePlan(plan);
  ASSERT_EQ(plan.outputs_size(), 2);
  EXPECT_EQ(plan.outputs(0).path(), ".venv/bin/python");
  EXPECT_EQ(State(plan.outputs(0)), "ABSENT");
  EXPECT_EQ(State(plan.outputs(1)), "PRESENT");
  EXPECT_EQ(plan.outputs_present(), 1u);
  EXPECT_EQ(plan.outputs_absent(), 1u);
  EXPECT_EQ(plan.kept(), PlanOwnership(Baseline(), Current(), test::Request()).kept());
  const std::string text = DescribePlan(plan);
  EXPECT_NE(text.find("OUTPUT \".venv/bin/python\": already absent: its parent \".venv\" is "
                      "missing\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("OUTPUT \"dist/app.whl\": present: a regular file\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("OUTPUTS: 2 declared: 1 present, 1 already absent. Nothing was deleted.\n"),
            std::string::npos)
      << text;
}

// A declared output whose parent is a symbolic link or not a directory fails
// the whole plan closed: no process and no output is planned, and the
// problem names the output.
TEST(DeclaredOutputs, OutputFailingClosedRefusesTheWholePlan) {
  MemoryPaths fs;
  fs.Link(".venv").File("dist");
  v1::OwnershipPlan plan = PlanOwnership(
      Baseline(), Current(), WithOutputs({".venv/bin/python", "dist/app.whl", "build/x"}), fs);
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::REFUSED) << DescribePlan(plan);
  EXPECT_EQ(plan.decisions_size(), 0);
  EXPECT_EQ(plan.outputs_size(), 0);
  ASSERT_EQ(plan.problems_size(), 2);
  EXPECT_EQ(plan.problems(0).kind(), Problem::OUTPUT_PARENT_SYMLINK);
  EXPECT_EQ(plan.problems(0).path(), ".venv/bin/python");
  EXPECT_EQ(plan.problems(1).kind(), Problem::OUTPUT_PARENT_NOT_DIRECTORY);
  EXPECT_EQ(plan.problems(1).path(), "dist/app.whl");
  const std::string text = DescribePlan(plan);
  EXPECT_NE(text.find("  output-parent-symlink: output \".venv/bin/python\": its parent \".venv\" "
                      "is a symbolic link: cleanup would follow it; the plan fails closed\n"),
            std::string::npos)
      << text;

  MemoryPaths denied;
  denied.Error(".venv", EACCES);
  v1::OwnershipPlan d =
      PlanOwnership(Baseline(), Current(), WithOutputs({".venv/bin/python"}), denied);
  ASSERT_EQ(d.outcome(), v1::OwnershipPlan::REFUSED);
  EXPECT_EQ(d.problems(0).kind(), Problem::OUTPUT_UNREADABLE);
}

// No declared output: the plan's text is exactly what it was without the
// feature (no OUTPUTS line), so existing consumers see no change.
TEST(DeclaredOutputs, NoDeclaredOutputAddsNothingToThePlan) {
  MemoryPaths fs;
  v1::OwnershipPlan plan = PlanOwnership(Baseline(), Current(), test::Request(), fs);
  EXPECT_EQ(plan.outputs_size(), 0);
  EXPECT_EQ(DescribePlan(plan).find("OUTPUT"), std::string::npos);
  EXPECT_TRUE(fs.looked_up.empty());
}

}  // namespace
}  // namespace proctape
