// SPDX-License-Identifier: Apache-2.0
// No output names an enum's zero value (docs/cli/json.md, "Field names and enums"): a field
// that names nothing is absent, or the text says a word. Every message of
// the schema is printed by one printer (proto/convert.h ToJson), so the rule
// is checked over every message type of every .proto file: a default
// instance, whose every enum field is at zero, prints no *_UNSPECIFIED.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>

#include "explain.pb.h"
#include "explore.pb.h"
#include "ownership.pb.h"
#include "proctape.pb.h"
#include "proto/convert.h"
#include "proto/summary.h"
#include "views.pb.h"
#include "written.pb.h"

namespace proctape {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FileDescriptor;

void AddWithNested(const Descriptor* d, std::vector<const Descriptor*>* out) {
  out->push_back(d);
  for (int i = 0; i < d->nested_type_count(); ++i) AddWithNested(d->nested_type(i), out);
}

std::vector<const Descriptor*> EveryMessage() {
  std::vector<const FileDescriptor*> files = {
      v1::Verdict::descriptor()->file(),       v1::ShowReport::descriptor()->file(),
      v1::Explanation::descriptor()->file(),   v1::OwnershipPlan::descriptor()->file(),
      v1::ExploreReport::descriptor()->file(), v1::FingerprintReport::descriptor()->file()};
  std::vector<const Descriptor*> out;
  for (const FileDescriptor* f : files) {
    for (int i = 0; i < f->message_type_count(); ++i) AddWithNested(f->message_type(i), &out);
  }
  return out;
}

TEST(JsonEnums, NoMessageOfTheSchemaPrintsAnUnspecifiedName) {
  google::protobuf::DynamicMessageFactory factory;
  std::vector<const Descriptor*> messages = EveryMessage();
  ASSERT_GT(messages.size(), 80u);
  for (const Descriptor* d : messages) {
    if (d->options().map_entry()) continue;
    const std::string json = ToJson(*factory.GetPrototype(d));
    EXPECT_EQ(json.find("UNSPECIFIED"), std::string::npos) << d->full_name() << ": " << json;
  }
}

TEST(JsonEnums, AVerdictThatNamesNoFileOrSubjectHasNeitherField) {
  Verdict v;
  v.status = Status::kDeadline;
  v.detail = "the deadline passed";
  const std::string json = ToJson(ToSummary(ToProto(v)));
  EXPECT_EQ(json.find("\"file\""), std::string::npos) << json;
  EXPECT_EQ(json.find("subject_pid"), std::string::npos) << json;
  EXPECT_EQ(json.find("subject_start_ticks"), std::string::npos) << json;
  EXPECT_EQ(json.find("expected_ticks"), std::string::npos) << json;
  EXPECT_NE(json.find("\"status\":\"DEADLINE\""), std::string::npos) << json;
}

TEST(JsonEnums, ALivenessVerdictOtherThanErrorHasNoReason) {
  LivenessVerdict v;
  v.status = LivenessStatus::kAlive;
  const std::string json = ToJson(ToSummary(ToProto(v)));
  EXPECT_EQ(json.find("reason"), std::string::npos) << json;
  EXPECT_NE(json.find("\"status\":\"ALIVE\""), std::string::npos) << json;
}

TEST(JsonEnums, AStatusAFileDoesNotNameIsAWordInText) {
  EXPECT_EQ(StatusText(0), "unknown status");
  EXPECT_EQ(StatusText(99), "unknown status 99");
  EXPECT_EQ(StatusText(v1::Verdict::NO_MATCH), "NO_MATCH");
  EXPECT_EQ(LivenessStatusText(0), "unknown status");
  EXPECT_EQ(LivenessStatusText(v1::LivenessVerdict::DEAD), "DEAD");
  // And in JSON it is absent.
  v1::Verdict stored;
  stored.set_status(static_cast<v1::Verdict::Status>(99));
  EXPECT_FALSE(ToSummary(stored).has_status());
}

}  // namespace
}  // namespace proctape
