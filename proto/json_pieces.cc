#include "proto/json_pieces.h"

#include <memory>
#include <vector>

namespace proctape {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Repeated message fields printed piece by piece: not maps, not the
// well-known types (their JSON is not an object of their fields).
bool PrintedApart(const Message& m, const FieldDescriptor* f) {
  return f->is_repeated() && !f->is_map() && f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE &&
         f->message_type()->file()->package() != "google.protobuf" &&
         m.GetReflection()->FieldSize(m, f) > 0;
}

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
  const int n = r->FieldSize(from, f);
  for (int i = 0; i < n; ++i) {
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32: w->AddInt32(to, f, r->GetRepeatedInt32(from, f, i)); break;
      case FieldDescriptor::CPPTYPE_INT64: w->AddInt64(to, f, r->GetRepeatedInt64(from, f, i)); break;
      case FieldDescriptor::CPPTYPE_UINT32:
        w->AddUInt32(to, f, r->GetRepeatedUInt32(from, f, i));
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        w->AddUInt64(to, f, r->GetRepeatedUInt64(from, f, i));
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        w->AddDouble(to, f, r->GetRepeatedDouble(from, f, i));
        break;
      case FieldDescriptor::CPPTYPE_FLOAT: w->AddFloat(to, f, r->GetRepeatedFloat(from, f, i)); break;
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

bool Append(const Message& message, const google::protobuf::util::JsonPrintOptions& options,
            const std::map<std::string, JsonElements>* elements, std::string* out,
            std::string* error);

}  // namespace

google::protobuf::util::JsonPrintOptions JsonOptions() {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  return options;
}

bool AppendJsonPieces(const Message& message,
                      const google::protobuf::util::JsonPrintOptions& options, std::string* out,
                      std::string* error) {
  return Append(message, options, nullptr, out, error);
}

bool AppendJsonPieces(const Message& shell,
                      const google::protobuf::util::JsonPrintOptions& options,
                      const std::map<std::string, JsonElements>& elements, std::string* out,
                      std::string* error) {
  return Append(shell, options, &elements, out, error);
}

namespace {

bool Append(const Message& message, const google::protobuf::util::JsonPrintOptions& options,
            const std::map<std::string, JsonElements>* elements, std::string* out,
            std::string* error) {
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
    if (!status.ok()) {
      *error = std::string(status.message());
      return false;
    }
    out->append(shell_json);
    return true;
  }
  // The message without the fields printed apart: they print as `"name":[]`.
  std::unique_ptr<Message> shell(message.New());
  for (const FieldDescriptor* f : fields) {
    bool is_apart = false;
    for (const FieldDescriptor* a : apart) is_apart = is_apart || a == f;
    if (!is_apart) CopyField(message, f, shell.get());
  }
  const auto status = google::protobuf::util::MessageToJsonString(*shell, &shell_json, options);
  if (!status.ok()) {
    *error = std::string(status.message());
    return false;
  }
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
        const std::string key = "\"" + name + "\":[]";
        if (shell_json.compare(i, key.size(), key) == 0) found = f;
      }
      if (found != nullptr) {
        const std::string& name =
            options.preserve_proto_field_names ? found->name() : found->json_name();
        out->append("\"").append(name).append("\":[");
        const int n = r->FieldSize(message, found);
        for (int k = 0; k < n; ++k) {
          if (k > 0) out->push_back(',');
          if (!Append(r->GetRepeatedMessage(message, found, k), options, nullptr, out, error)) {
            return false;
          }
        }
        if (n == 0 && elements != nullptr) {
          auto given = elements->find(found->name());
          if (given != elements->end() && !given->second(out, error)) return false;
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
  return true;
}

}  // namespace
}  // namespace proctape
