// SPDX-License-Identifier: Apache-2.0
// docs/format.md, the structure (section 3), blobs: a blob reference stands
// only in a record's cmdline or environ, never beside inline data or on a
// failed read, and a blob is defined where it is first referred to. Each
// rule both ways: a file obeying it reads, a file breaking it is refused with
// the documented kind, chunk and byte offset.
#include <google/protobuf/descriptor.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "format/file_format.h"
#include "format/reader.h"
#include "proctape.pb.h"
#include "tests/unit/format_bytes.h"
#include "tests/unit/format_structure_fixture.h"

namespace proctape {
namespace {

using namespace std::string_literals;
using namespace proctape::test;
using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

// Every FileRead reachable from a Chunk, as a path of fields.
void FileReadPaths(const Descriptor* d, std::vector<const FieldDescriptor*>* path,
                   std::vector<std::vector<const FieldDescriptor*>>* out) {
  if (path->size() > 8) return;
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->type() != FieldDescriptor::TYPE_MESSAGE) continue;
    path->push_back(f);
    if (f->message_type() == v1::FileRead::descriptor()) {
      out->push_back(*path);
    } else {
      FileReadPaths(f->message_type(), path, out);
    }
    path->pop_back();
  }
}

std::string Name(const std::vector<const FieldDescriptor*>& path) {
  std::string s;
  for (const FieldDescriptor* f : path) s += (s.empty() ? "" : ".") + f->name();
  return s;
}

TEST_F(FormatStructureRulesTest, BlobReferencesOnlyInARecordsCmdlineOrEnviron) {
  std::vector<const FieldDescriptor*> path;
  std::vector<std::vector<const FieldDescriptor*>> paths;
  FileReadPaths(v1::Chunk::descriptor(), &path, &paths);
  std::vector<std::string> names;
  for (const auto& p : paths) names.push_back(Name(p));
  // A FileRead added elsewhere to the schema must be classified here first.
  ASSERT_EQ(names, (std::vector<std::string>{"frame.processes.stat", "frame.processes.cmdline",
                                             "frame.processes.environ", "frame.processes.status",
                                             "frame.processes.cgroup",
                                             "observations.observations.read_file.result"}));
  for (const auto& p : paths) {
    SCOPED_TRACE(Name(p));
    // Blob 1 is defined (and used) by frame 0; chunk 2 refers to it at `p`.
    v1::Chunk c;
    google::protobuf::Message* m = &c;
    for (const FieldDescriptor* f : p) {
      m = f->is_repeated() ? m->GetReflection()->AddMessage(m, f)
                           : m->GetReflection()->MutableMessage(m, f);
    }
    static_cast<v1::FileRead*>(m)->set_blob(1);
    if (c.has_frame()) {
      c.mutable_frame()->set_index(1);
      c.mutable_frame()->set_complete(true);
    }
    Built b = Build({BlobFrame(), c});
    Read r = ReadBytes(b.bytes);
    const bool allowed = p.back()->name() == "cmdline" || p.back()->name() == "environ";
    if (allowed) {
      ASSERT_TRUE(Reads(r));
      const v1::ProcessRecord& rec = r.snapshot.frames.at(1).processes(0);
      const v1::FileRead& read = p.back()->name() == "cmdline" ? rec.cmdline() : rec.environ();
      EXPECT_EQ(read.data(), kData);
      EXPECT_EQ(read.blob(), 0u);
    } else {
      EXPECT_TRUE(
          Refused(r, b, 2, "a blob reference outside a process record's cmdline or environ"));
    }
  }
}

TEST_F(FormatStructureRulesTest, BlobReferenceBesideInlineDataIsCorrupt) {
  v1::Chunk c = FramePart(1, true);
  c.mutable_frame()->mutable_processes(0)->mutable_environ()->set_blob(1);
  Built b = Build({BlobFrame(), c});
  ASSERT_TRUE(Reads(ReadBytes(b.bytes)));
  c.mutable_frame()->mutable_processes(0)->mutable_environ()->set_data("HOME=/");
  b = Build({BlobFrame(), c});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 2, "a blob reference beside inline data"));
}

TEST_F(FormatStructureRulesTest, BlobReferenceOnAFailedReadIsCorrupt) {
  v1::Chunk c = FramePart(1, true);
  c.mutable_frame()->mutable_processes(0)->mutable_environ()->set_blob(1);
  c.mutable_frame()->mutable_processes(0)->mutable_environ()->set_err(EACCES);
  Built b = Build({BlobFrame(), c});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 2, "a blob reference on a failed read"));
}

TEST_F(FormatStructureRulesTest, BlobIsDefinedWhereItIsFirstReferredTo) {
  // Defined in part 1 and referred to there and in part 2: reads.
  v1::Chunk later = FramePart(0, true);
  later.mutable_frame()->mutable_processes(0)->mutable_cmdline()->set_blob(1);
  Built b = Build({BlobFrame(false), later});
  ASSERT_TRUE(Reads(ReadBytes(b.bytes)));
  // Defined and not referred to in its part.
  v1::Chunk unused = FramePart(0, true);
  unused.mutable_frame()->add_blobs()->set_id(1);
  unused.mutable_frame()->mutable_blobs(0)->set_data(kData);
  b = Build({unused});
  EXPECT_TRUE(
      Refused(ReadBytes(b.bytes), b, 1, "blob 1 is defined but not referred to in its part"));
  // Referred to before it is defined.
  b = Build({later, BlobFrame()});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 1, "a reference to an undefined blob"));
  // Ids out of order.
  v1::Chunk two = BlobFrame();
  two.mutable_frame()->mutable_blobs(0)->set_id(2);
  two.mutable_frame()->mutable_processes(0)->mutable_cmdline()->set_blob(2);
  b = Build({two});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 1, "blob ids out of order"));
}

}  // namespace
}  // namespace proctape
