// SPDX-License-Identifier: Apache-2.0
#include "format/read_budget.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/message.h>
#include <google/protobuf/wire_format_lite.h>

#include <mutex>
#include <unordered_map>

#include "format/held_budget.h"

namespace proctape {
namespace {

namespace pb = google::protobuf;
using Wire = pb::internal::WireFormatLite;

std::uint64_t SaturatingAdd(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

// A std::string object beside its bytes, and a pointer to an element.
constexpr std::uint64_t kStringObject = 32;
constexpr std::uint64_t kElementPointer = 8;
// Messages nested deeper than protobuf parses (its recursion limit) are
// counted as bytes: the parse fails on them.
constexpr int kMaxDepth = 100;

std::uint64_t EmptyMessageCost(const pb::Descriptor* type) {
  static std::mutex mu;
  static std::unordered_map<const pb::Descriptor*, std::uint64_t> sizes;
  std::lock_guard<std::mutex> lock(mu);
  auto [it, fresh] = sizes.try_emplace(type, 0);
  if (fresh) {
    const pb::Message* prototype = pb::MessageFactory::generated_factory()->GetPrototype(type);
    it->second = prototype != nullptr ? prototype->SpaceUsedLong() : 64;
  }
  return it->second;
}

// Walks one message's fields up to the stream's limit, adding to *cost.
// false: the wire data cannot be walked further (the parse will judge it).
bool Walk(pb::io::CodedInputStream* in, const pb::Descriptor* type, int depth,
          std::uint64_t* cost) {
  *cost = SaturatingAdd(*cost, EmptyMessageCost(type));
  for (;;) {
    const std::uint32_t tag = in->ReadTag();
    if (tag == 0) return true;
    const pb::FieldDescriptor* f = type->FindFieldByNumber(static_cast<int>(tag >> 3));
    const bool repeated = f != nullptr && f->is_repeated();
    if (Wire::GetTagWireType(tag) != Wire::WIRETYPE_LENGTH_DELIMITED) {
      // A scalar lives in its message; a repeated one or an unknown one
      // takes an element (unknown fields are kept as bytes, with their tag).
      if (repeated || f == nullptr) *cost = SaturatingAdd(*cost, kElementPointer + 8);
      const int before = in->CurrentPosition();
      if (!Wire::SkipField(in, tag)) return false;
      if (f == nullptr)
        *cost = SaturatingAdd(*cost, static_cast<std::uint64_t>(in->CurrentPosition() - before));
      continue;
    }
    std::uint32_t length = 0;
    if (!in->ReadVarint32(&length)) return false;
    if (f != nullptr && f->type() == pb::FieldDescriptor::TYPE_MESSAGE && depth < kMaxDepth) {
      if (repeated) *cost = SaturatingAdd(*cost, kElementPointer);
      const pb::io::CodedInputStream::Limit limit = in->PushLimit(static_cast<int>(length));
      if (!Walk(in, f->message_type(), depth + 1, cost)) return false;
      if (!in->Skip(in->BytesUntilLimit())) return false;
      in->PopLimit(limit);
      continue;
    }
    if (repeated && f->type() != pb::FieldDescriptor::TYPE_STRING &&
        f->type() != pb::FieldDescriptor::TYPE_BYTES &&
        f->type() != pb::FieldDescriptor::TYPE_MESSAGE) {
      // Packed scalars: at least one byte each on the wire, 8 in memory.
      *cost = SaturatingAdd(*cost, 8ull * length);
    } else {
      *cost = SaturatingAdd(*cost, length + kStringObject + (repeated ? kElementPointer : 0));
    }
    if (!in->Skip(static_cast<int>(length))) return false;
  }
}

}  // namespace

std::uint64_t ReadBudget::Limit(std::uint64_t file_bytes) const {
  const std::uint64_t scaled = per_file_byte_ != 0 && file_bytes > UINT64_MAX / per_file_byte_
                                   ? UINT64_MAX
                                   : file_bytes * per_file_byte_;
  return SaturatingAdd(base_, scaled);
}

bool ReadBudget::Charge(std::uint64_t bytes, std::uint64_t file_bytes) {
  const std::uint64_t limit = Limit(file_bytes);
  if (used_ > limit || bytes > limit - used_) return false;
  if (chunk_used_ > per_chunk_ || bytes > per_chunk_ - chunk_used_) return false;
  used_ += bytes;
  chunk_used_ += bytes;
  return true;
}

std::string ReadBudget::Refusal(const std::string& what, std::uint64_t bytes,
                                std::uint64_t file_bytes) const {
  if (chunk_used_ > per_chunk_ || bytes > per_chunk_ - chunk_used_) {
    return what + " (" + std::to_string(bytes) + " bytes) would take what one chunk makes past " +
           std::to_string(per_chunk_) +
           " bytes (the most one chunk may make, whatever the "
           "file's size; " +
           std::to_string(chunk_used_) + " made)";
  }
  return what + " (" + std::to_string(bytes) + " bytes) would take what the reader holds past " +
         std::to_string(Limit(file_bytes)) +
         " bytes (the reader's budget: " + std::to_string(base_) + " bytes and " +
         std::to_string(per_file_byte_) + " per byte of the file read, " +
         std::to_string(file_bytes) + " so far; " + std::to_string(used_) + " used)";
}

std::string HeldRefusal(const ReadBudget& held, std::uint64_t index, std::uint64_t offset,
                        std::uint64_t made, std::uint64_t file_bytes) {
  return "chunk " + std::to_string(index) + " at byte " + std::to_string(offset) +
         ": what this command holds of the file (" +
         std::to_string(SaturatingAdd(held.used(), made)) + " bytes with this chunk) would pass " +
         std::to_string(held.Limit(file_bytes)) +
         " bytes, the most a command that holds every frame may hold (" +
         std::to_string(kHeldBaseBytes) + " bytes and " + std::to_string(kHeldBytesPerFileByte) +
         " per byte of the file read, " + std::to_string(file_bytes) +
         " so far); verify, show, tree, diff and export --format json read it, and replay --model "
         "frames holds each unchanged record once";
}

std::uint64_t ParseCost(std::string_view wire, const pb::Descriptor* type) {
  pb::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(wire.data()),
                              static_cast<int>(wire.size()));
  std::uint64_t cost = 0;
  if (!Walk(&in, type, 0, &cost)) cost = SaturatingAdd(cost, wire.size());
  return cost;
}

}  // namespace proctape
