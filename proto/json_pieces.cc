// SPDX-License-Identifier: Apache-2.0
#include "proto/json_pieces.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace proctape {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Repeated message fields printed piece by piece: not maps, not the
// well-known types (their JSON is not an object of their fields).
// A repeated scalar field longer than this is printed apart too, in slices
// of this many elements: the printer's tree takes some 300 bytes an element
// (16 M pids of a verdict, 3 KB on disk, took 4.9 GB).
constexpr int kScalarSlice = 4096;

bool OurMessage(const FieldDescriptor* f) {
  return f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && !f->is_map() &&
         f->message_type()->file()->package() != "google.protobuf";
}

bool Heavy(const Message& m);

// Printed apart: a repeated field of our messages, a repeated scalar field
// longer than kScalarSlice, and a singular message that holds either
// (Heavy): printed whole, the printer would build its tree.
bool PrintedApart(const Message& m, const FieldDescriptor* f) {
  const Reflection* r = m.GetReflection();
  if (!f->is_repeated()) return OurMessage(f) && Heavy(r->GetMessage(m, f));
  if (f->is_map()) return false;
  const int n = r->FieldSize(m, f);
  if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) return n > kScalarSlice;
  return OurMessage(f) && n > 0;
}

bool Heavy(const Message& m) {
  std::vector<const FieldDescriptor*> fields;
  m.GetReflection()->ListFields(m, &fields);
  for (const FieldDescriptor* f : fields) {
    if (PrintedApart(m, f)) return true;
  }
  return false;
}

void CopyElements(const Message& from, const FieldDescriptor* f, int begin, int end, Message* to);

// Copies field `f` (not printed apart) of `from` into `to`.
void CopyField(const Message& from, const FieldDescriptor* f, Message* to) {
  const Reflection* r = from.GetReflection();
  const Reflection* w = to->GetReflection();
  if (!f->is_repeated()) {
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32: w->SetInt32(to, f, r->GetInt32(from, f)); break;
      case FieldDescriptor::CPPTYPE_INT64: w->SetInt64(to, f, r->GetInt64(from, f)); break;
      case FieldDescriptor::CPPTYPE_UINT32: w->SetUInt32(to, f, r->GetUInt32(from, f)); break;
      case FieldDescriptor::CPPTYPE_UINT64: w->SetUInt64(to, f, r->GetUInt64(from, f)); break;
      case FieldDescriptor::CPPTYPE_DOUBLE: w->SetDouble(to, f, r->GetDouble(from, f)); break;
      case FieldDescriptor::CPPTYPE_FLOAT: w->SetFloat(to, f, r->GetFloat(from, f)); break;
      case FieldDescriptor::CPPTYPE_BOOL: w->SetBool(to, f, r->GetBool(from, f)); break;
      case FieldDescriptor::CPPTYPE_ENUM: w->SetEnumValue(to, f, r->GetEnumValue(from, f)); break;
      case FieldDescriptor::CPPTYPE_STRING: w->SetString(to, f, r->GetString(from, f)); break;
      case FieldDescriptor::CPPTYPE_MESSAGE:
        w->MutableMessage(to, f)->CopyFrom(r->GetMessage(from, f));
        break;
    }
    return;
  }
  CopyElements(from, f, 0, r->FieldSize(from, f), to);
}

// Copies elements [begin, end) of repeated field `f` of `from` into `to`.
void CopyElements(const Message& from, const FieldDescriptor* f, int begin, int end, Message* to) {
  const Reflection* r = from.GetReflection();
  const Reflection* w = to->GetReflection();
  for (int i = begin; i < end; ++i) {
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        w->AddInt32(to, f, r->GetRepeatedInt32(from, f, i));
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        w->AddInt64(to, f, r->GetRepeatedInt64(from, f, i));
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        w->AddUInt32(to, f, r->GetRepeatedUInt32(from, f, i));
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        w->AddUInt64(to, f, r->GetRepeatedUInt64(from, f, i));
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        w->AddDouble(to, f, r->GetRepeatedDouble(from, f, i));
        break;
      case FieldDescriptor::CPPTYPE_FLOAT:
        w->AddFloat(to, f, r->GetRepeatedFloat(from, f, i));
        break;
      case FieldDescriptor::CPPTYPE_BOOL: w->AddBool(to, f, r->GetRepeatedBool(from, f, i)); break;
      case FieldDescriptor::CPPTYPE_ENUM:
        w->AddEnumValue(to, f, r->GetRepeatedEnumValue(from, f, i));
        break;
      case FieldDescriptor::CPPTYPE_STRING:
        w->AddString(to, f, r->GetRepeatedString(from, f, i));
        break;
      case FieldDescriptor::CPPTYPE_MESSAGE:
        w->AddMessage(to, f)->CopyFrom(r->GetRepeatedMessage(from, f, i));
        break;
    }
  }
}

MaybeFailure Append(const Message& message, const google::protobuf::util::JsonPrintOptions& options,
                    const std::map<std::string, JsonElements>* elements, std::string* out);

}  // namespace

google::protobuf::util::JsonPrintOptions JsonOptions() {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  return options;
}

MaybeFailure AppendJsonPieces(const Message& message,
                              const google::protobuf::util::JsonPrintOptions& options,
                              std::string* out) {
  return Append(message, options, nullptr, out);
}

MaybeFailure AppendJsonPieces(const Message& shell,
                              const google::protobuf::util::JsonPrintOptions& options,
                              const std::map<std::string, JsonElements>& elements,
                              std::string* out) {
  return Append(shell, options, &elements, out);
}

namespace {

// The elements of repeated scalar field `f`, joined by commas, as the printer
// prints them: each slice of kScalarSlice printed as a message holding that
// slice alone, `{"name":[...]}`, of which the elements are kept.
MaybeFailure AppendScalars(const Message& message, const FieldDescriptor* f,
                           const google::protobuf::util::JsonPrintOptions& options,
                           std::string* out) {
  google::protobuf::util::JsonPrintOptions alone = options;
  alone.always_print_primitive_fields = false;
  const std::string& name = options.preserve_proto_field_names ? f->name() : f->json_name();
  const std::string head = "{\"" + name + "\":[";
  const int n = message.GetReflection()->FieldSize(message, f);
  for (int begin = 0; begin < n; begin += kScalarSlice) {
    std::unique_ptr<Message> slice(message.New());
    CopyElements(message, f, begin, std::min(n, begin + kScalarSlice), slice.get());
    std::string json;
    const auto status = google::protobuf::util::MessageToJsonString(*slice, &json, alone);
    if (!status.ok()) return Failure(FailureKind::kInternal, std::string(status.message()));
    if (json.compare(0, head.size(), head) != 0 || json.size() < head.size() + 2) {
      return Failure(FailureKind::kInternal,
                     "the printer printed field " + name + " otherwise than as a list");
    }
    if (begin > 0) out->push_back(',');
    out->append(json, head.size(), json.size() - head.size() - 2);
  }
  return std::nullopt;
}

// The index of the '}' that closes the object whose '{' is at `open`.
std::size_t ObjectEnd(const std::string& json, std::size_t open) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = open; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '{' || c == '[') ++depth;
    if ((c == '}' || c == ']') && --depth == 0) return i;
  }
  return json.size() - 1;
}

MaybeFailure Append(const Message& message, const google::protobuf::util::JsonPrintOptions& options,
                    const std::map<std::string, JsonElements>* elements, std::string* out) {
  const Reflection* r = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  r->ListFields(message, &fields);
  std::vector<const FieldDescriptor*> apart;
  for (const FieldDescriptor* f : fields) {
    if (PrintedApart(message, f)) apart.push_back(f);
  }
  if (elements != nullptr) {
    for (const auto& [name, append] : *elements) {
      const FieldDescriptor* f = message.GetDescriptor()->FindFieldByName(name);
      if (f != nullptr && f->is_repeated() && r->FieldSize(message, f) == 0) apart.push_back(f);
    }
  }
  std::string shell_json;
  if (apart.empty()) {
    const auto status = google::protobuf::util::MessageToJsonString(message, &shell_json, options);
    if (!status.ok()) return Failure(FailureKind::kInternal, std::string(status.message()));
    out->append(shell_json);
    return std::nullopt;
  }
  // The message without the fields printed apart: a repeated one prints as
  // `"name":[]`, a singular message as `"name":{...}` of its defaults.
  std::unique_ptr<Message> shell(message.New());
  for (const FieldDescriptor* f : fields) {
    bool is_apart = false;
    for (const FieldDescriptor* a : apart) is_apart = is_apart || a == f;
    if (!is_apart) {
      CopyField(message, f, shell.get());
    } else if (!f->is_repeated()) {
      shell->GetReflection()->MutableMessage(shell.get(), f);
    }
  }
  const auto status = google::protobuf::util::MessageToJsonString(*shell, &shell_json, options);
  if (!status.ok()) return Failure(FailureKind::kInternal, std::string(status.message()));
  // Each `"name":[]` of the shell's own object (depth 1, outside strings:
  // inside one a quote is escaped) gets its elements.
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < shell_json.size(); ++i) {
    const char c = shell_json[i];
    if (in_string) {
      out->push_back(c);
      if (c == '\\' && i + 1 < shell_json.size()) {
        out->push_back(shell_json[++i]);
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"' && depth == 1) {
      const FieldDescriptor* found = nullptr;
      for (const FieldDescriptor* f : apart) {
        const std::string& name = options.preserve_proto_field_names ? f->name() : f->json_name();
        const std::string key = "\"" + name + (f->is_repeated() ? "\":[]" : "\":{");
        if (shell_json.compare(i, key.size(), key) == 0) found = f;
      }
      if (found != nullptr && !found->is_repeated()) {
        const std::string& name =
            options.preserve_proto_field_names ? found->name() : found->json_name();
        out->append("\"").append(name).append("\":");
        if (MaybeFailure failed = Append(r->GetMessage(message, found), options, nullptr, out)) {
          return failed;
        }
        i = ObjectEnd(shell_json, i + name.size() + 3);  // at the shell's '}' of it
        continue;
      }
      if (found != nullptr) {
        const std::string& name =
            options.preserve_proto_field_names ? found->name() : found->json_name();
        out->append("\"").append(name).append("\":[");
        const int n = r->FieldSize(message, found);
        if (found->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
          if (MaybeFailure failed = AppendScalars(message, found, options, out)) return failed;
        } else {
          for (int k = 0; k < n; ++k) {
            if (k > 0) out->push_back(',');
            if (MaybeFailure failed =
                    Append(r->GetRepeatedMessage(message, found, k), options, nullptr, out)) {
              return failed;
            }
          }
        }
        if (n == 0 && elements != nullptr) {
          auto given = elements->find(found->name());
          if (given != elements->end()) {
            if (MaybeFailure failed = given->second(out)) return failed;
          }
        }
        out->push_back(']');
        i += name.size() + 4;  // past `"name":[]`, at its last character
        continue;
      }
    }
    if (c == '"') in_string = true;
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    out->push_back(c);
  }
  return std::nullopt;
}

}  // namespace
}  // namespace proctape
