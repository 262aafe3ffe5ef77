#include "replay/token_mask.h"

#include <algorithm>
#include <cstdint>

#include <google/protobuf/descriptor.h>

#include "core/proc_parse.h"

namespace proctape {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Replaces every occurrence of `needle` in *text by `stars` '*'.
void ReplaceAll(std::string* text, const std::string& needle, std::size_t stars) {
  if (needle.empty() || text->size() < needle.size()) return;
  std::size_t at = text->find(needle);
  if (at == std::string::npos) return;
  std::string out;
  std::size_t from = 0;
  while (at != std::string::npos) {
    out.append(*text, from, at - from);
    out.append(stars, '*');
    from = at + needle.size();
    at = text->find(needle, from);
  }
  out.append(*text, from, std::string::npos);
  *text = std::move(out);
}

}  // namespace

TokenMask TokenMask::Of(const Snapshot& snapshot) {
  return Of(snapshot.header, snapshot.resolutions);
}

TokenMask TokenMask::Of(const v1::Header& header, const std::vector<v1::Resolution>& resolutions) {
  TokenMask mask;
  for (const v1::Resolution& r : resolutions) {
    if (r.has_resolve()) mask.Add(r.resolve().token());
  }
  for (const std::string& entry : header.redaction().kept_entries()) {
    const std::size_t eq = entry.find('=');
    if (eq != std::string::npos) mask.Add(std::string_view(entry).substr(eq + 1));
  }
  const auto& args = header.command_line();
  for (int i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (arg == "--token" && i + 1 < args.size()) mask.Add(args[i + 1]);
    if (arg.substr(0, 8) == "--token=") mask.Add(arg.substr(8));
  }
  return mask;
}

void TokenMask::Add(std::string_view token) {
  if (token.empty()) return;
  if (std::find(tokens_.begin(), tokens_.end(), token) != tokens_.end()) return;
  tokens_.emplace_back(token);
  Rebuild();
}

void TokenMask::Add(const TokenMask& other) {
  for (const std::string& token : other.tokens_) Add(token);
}

void TokenMask::Rebuild() {
  needles_.clear();
  auto add = [this](std::string text, std::size_t length) {
    for (const Needle& n : needles_) {
      if (n.text == text) return;
    }
    needles_.push_back(Needle{std::move(text), length});
  };
  for (const std::string& token : tokens_) {
    add(token, token.size());
    // As the views print raw bytes: EscapeBytes, whole; and with a quote as
    // \x22 (QuoteBytes, explain).
    std::string escaped = EscapeBytes(token, SIZE_MAX);
    std::string quoted;
    for (char c : escaped) {
      if (c == '"') {
        quoted += "\\x22";
      } else {
        quoted.push_back(c);
      }
    }
    add(escaped, token.size());
    add(quoted, token.size());
  }
  std::stable_sort(needles_.begin(), needles_.end(), [](const Needle& a, const Needle& b) {
    return a.text.size() > b.text.size();
  });
}

bool TokenMask::Holds(std::string_view text) const {
  for (const Needle& n : needles_) {
    if (text.find(n.text) != std::string_view::npos) return true;
  }
  return false;
}

void TokenMask::Mask(std::string* text) const {
  for (const Needle& n : needles_) ReplaceAll(text, n.text, n.length);
}

std::string TokenMask::Masked(std::string_view text) const {
  std::string out(text);
  Mask(&out);
  return out;
}

void TokenMask::Mask(Message* message) const {
  if (needles_.empty()) return;
  auto holds = [this](const std::string& text) { return Holds(text); };
  const Reflection* reflection = message->GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(*message, &fields);  // the fields set: nothing else can hold a token
  std::string scratch;
  for (const FieldDescriptor* field : fields) {
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
      if (field->is_repeated()) {
        for (int i = 0; i < reflection->FieldSize(*message, field); ++i) {
          const std::string& value =
              reflection->GetRepeatedStringReference(*message, field, i, &scratch);
          if (holds(value)) reflection->SetRepeatedString(message, field, i, Masked(value));
        }
      } else {
        const std::string& value = reflection->GetStringReference(*message, field, &scratch);
        if (holds(value)) reflection->SetString(message, field, Masked(value));
      }
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (field->is_repeated()) {
        for (int i = 0; i < reflection->FieldSize(*message, field); ++i) {
          Mask(reflection->MutableRepeatedMessage(message, field, i));
        }
      } else {
        Mask(reflection->MutableMessage(message, field));
      }
    }
  }
}

}  // namespace proctape
