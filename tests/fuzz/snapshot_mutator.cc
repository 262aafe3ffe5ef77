// SPDX-License-Identifier: Apache-2.0
// MutateSnapshotInput (tests/fuzz/snapshot_input.h): linked into the
// libFuzzer targets only (it calls libFuzzer's LLVMFuzzerMutate).
#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "tests/fuzz/snapshot_input.h"

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace proctape::fuzz {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Every message of the tree, `message` first.
void Collect(Message* message, std::vector<Message*>* out) {
  out->push_back(message);
  const Reflection* r = message->GetReflection();
  std::vector<const FieldDescriptor*> fields;
  r->ListFields(*message, &fields);
  for (const FieldDescriptor* f : fields) {
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (f->is_repeated()) {
      for (int i = 0; i < r->FieldSize(*message, f); ++i) {
        Collect(r->MutableRepeatedMessage(message, f, i), out);
      }
    } else {
      Collect(r->MutableMessage(message, f), out);
    }
  }
}

// libFuzzer's byte mutation of one message's serialized form, kept when it
// still parses.
void MutateBytes(Message* m, std::size_t max_size) {
  std::string bytes = m->SerializeAsString();
  const std::size_t size = bytes.size();
  bytes.resize(std::max<std::size_t>(size + 64, std::min(max_size, size * 2 + 64)));
  std::size_t n =
      LLVMFuzzerMutate(reinterpret_cast<std::uint8_t*>(bytes.data()), size, bytes.size());
  bytes.resize(n);
  std::unique_ptr<Message> copy(m->New());
  if (copy->ParseFromString(bytes)) m->CopyFrom(*copy);
}

// A repeated message field's element copied (after itself) or removed.
void CopyOrDrop(Message* m, std::minstd_rand& rng) {
  const Reflection* r = m->GetReflection();
  std::vector<const FieldDescriptor*> fields, repeated;
  r->ListFields(*m, &fields);
  for (const FieldDescriptor* f : fields) {
    if (f->is_repeated() && f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      repeated.push_back(f);
    }
  }
  if (repeated.empty()) return;
  const FieldDescriptor* f = repeated[rng() % repeated.size()];
  const int n = r->FieldSize(*m, f);
  const int i = static_cast<int>(rng() % static_cast<unsigned>(n));
  if (rng() % 2 == 0) {
    r->AddMessage(m, f)->CopyFrom(r->GetRepeatedMessage(*m, f, i));
    for (int j = n; j > i + 1; --j) r->SwapElements(m, f, j, j - 1);
  } else {
    for (int j = i; j + 1 < n; ++j) r->SwapElements(m, f, j, j + 1);
    r->RemoveLast(m, f);
  }
}

// One singular integer field set to an edge value.
void EdgeValue(Message* m, std::minstd_rand& rng) {
  const google::protobuf::Descriptor* d = m->GetDescriptor();
  std::vector<const FieldDescriptor*> ints;
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->is_repeated()) continue;
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT64:
      case FieldDescriptor::CPPTYPE_UINT64:
      case FieldDescriptor::CPPTYPE_INT32:
      case FieldDescriptor::CPPTYPE_UINT32: ints.push_back(f); break;
      default: break;
    }
  }
  if (ints.empty()) return;
  const FieldDescriptor* f = ints[rng() % ints.size()];
  static constexpr std::int64_t kEdges[] = {INT64_MIN, INT64_MAX, 0,         1,
                                            -1,        INT32_MIN, INT32_MAX, 1'000'000'000};
  const std::int64_t v = kEdges[rng() % std::size(kEdges)];
  const Reflection* r = m->GetReflection();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT64: r->SetInt64(m, f, v); break;
    case FieldDescriptor::CPPTYPE_UINT64: r->SetUInt64(m, f, static_cast<std::uint64_t>(v)); break;
    case FieldDescriptor::CPPTYPE_INT32: r->SetInt32(m, f, static_cast<std::int32_t>(v)); break;
    default: r->SetUInt32(m, f, static_cast<std::uint32_t>(v)); break;
  }
}

}  // namespace

std::size_t MutateSnapshotInput(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                unsigned seed) {
  std::minstd_rand rng(seed);
  v1::SnapshotExport content;
  // An input that does not parse, and now and then any input: bytes alone.
  if (rng() % 8 == 0 || !content.ParseFromArray(data, static_cast<int>(size))) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  std::vector<Message*> messages;
  Collect(&content, &messages);
  Message* m = messages[rng() % messages.size()];
  switch (rng() % 4) {
    case 0: CopyOrDrop(m, rng); break;
    case 1: EdgeValue(m, rng); break;
    default: MutateBytes(m, max_size); break;
  }
  std::string out = content.SerializeAsString();
  if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}
}  // namespace proctape::fuzz
