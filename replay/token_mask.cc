// SPDX-License-Identifier: Apache-2.0
#include "replay/token_mask.h"

#include <algorithm>
#include <cstring>

#include <google/protobuf/descriptor.h>

#include "core/proc_parse.h"

namespace proctape {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

static_assert(TokenMask::kMinRun == sizeof(std::uint64_t), "a window is one 64-bit integer");

std::uint64_t GramAt(std::string_view text, std::size_t at) {
  std::uint64_t gram = 0;
  std::memcpy(&gram, text.data() + at, sizeof gram);
  return gram;
}

std::uint64_t Mix(std::uint64_t x) {  // splitmix64's finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

void TokenMask::GramSet::Insert(std::uint64_t gram) {
  if (prefixes_.empty()) prefixes_.assign(1024, 0);
  const std::uint64_t prefix = gram & 0xffff;
  prefixes_[prefix >> 6] |= std::uint64_t{1} << (prefix & 63);
  if (gram == 0) {
    size_ += has_zero_ ? 0 : 1;
    has_zero_ = true;
    return;
  }
  if (2 * (size_ + 1) > slots_.size()) Grow();
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = Mix(gram) & mask;; i = (i + 1) & mask) {
    if (slots_[i] == gram) return;
    if (slots_[i] == 0) {
      slots_[i] = gram;
      ++size_;
      return;
    }
  }
}

bool TokenMask::GramSet::Contains(std::uint64_t gram) const {
  if (prefixes_.empty()) return false;  // nothing inserted
  const std::uint64_t prefix = gram & 0xffff;
  if ((prefixes_[prefix >> 6] & (std::uint64_t{1} << (prefix & 63))) == 0) return false;
  if (gram == 0) return has_zero_;
  if (slots_.empty()) return false;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = Mix(gram) & mask;; i = (i + 1) & mask) {
    if (slots_[i] == gram) return true;
    if (slots_[i] == 0) return false;
  }
}

void TokenMask::GramSet::Grow() {
  std::vector<std::uint64_t> old = std::move(slots_);
  slots_.assign(old.empty() ? 64 : 2 * old.size(), 0);
  const std::size_t mask = slots_.size() - 1;
  for (std::uint64_t gram : old) {
    if (gram == 0) continue;
    std::size_t i = Mix(gram) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = gram;
  }
}

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

bool TokenMask::Add(std::string_view token) {
  if (token.empty() || !tokens_.emplace(token).second) return false;
  if (token.size() < kMinRun) {
    ++short_tokens_;
    return true;
  }
  AddForm(token);
  // As the views print raw bytes: EscapeBytes, whole; and with a quote as
  // \x22 (QuoteBytes, explain).
  const std::string escaped = EscapeBytes(token, SIZE_MAX);
  if (escaped != token) AddForm(escaped);
  std::string quoted;
  for (char c : escaped) {
    if (c == '"') {
      quoted += "\\x22";
    } else {
      quoted.push_back(c);
    }
  }
  if (quoted != escaped) AddForm(quoted);
  return true;
}

void TokenMask::AddForm(std::string_view form) {
  for (std::size_t i = 0; i + kMinRun <= form.size(); ++i) grams_.Insert(GramAt(form, i));
}

void TokenMask::Add(const TokenMask& other) {
  for (const std::string& token : other.tokens_) Add(token);
}

std::size_t TokenMask::FindWindow(std::string_view text, std::size_t from) const {
  for (std::size_t i = from; i + kMinRun <= text.size(); ++i) {
    if (grams_.Contains(GramAt(text, i))) return i;
  }
  return std::string_view::npos;
}

bool TokenMask::Holds(std::string_view text) const {
  return !empty() && FindWindow(text, 0) != std::string_view::npos;
}

std::string TokenMask::Masked(std::string_view text) const {
  std::string out(text);
  Mask(&out);
  return out;
}

std::string TokenMask::Shown(std::string_view bytes, std::size_t max) const {
  return EscapeBytes(Masked(bytes), max);
}

void TokenMask::Mask(std::string* text) const {
  if (empty()) return;
  std::size_t at = FindWindow(*text, 0);
  if (at == std::string::npos) return;
  // Windows are looked up in the text as it was: stars never make a window.
  const std::string was = *text;
  std::size_t starred = 0;  // bytes before this are starred or left
  while (at != std::string::npos) {
    for (std::size_t i = std::max(at, starred); i < at + kMinRun; ++i) (*text)[i] = '*';
    starred = at + kMinRun;
    at = FindWindow(was, at + 1);
  }
}

void TokenMask::Mask(Message* message) const {
  if (empty()) return;
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
