// SPDX-License-Identifier: Apache-2.0
#include "tests/hostile/shapes.h"

#include <sstream>
#include <stdexcept>

namespace proctape::hostile {
namespace {

std::vector<std::string> Words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

bool Params::Parse(const std::string& defaults, const std::vector<std::string>& given,
                   std::string* error) {
  values_.clear();
  for (const std::string& w : Words(defaults)) {
    const std::size_t eq = w.find('=');
    values_[w.substr(0, eq)] = w.substr(eq + 1);
  }
  for (const std::string& w : given) {
    const std::size_t eq = w.find('=');
    if (eq == std::string::npos || eq == 0) {
      *error = "'" + w + "': parameters are KEY=VALUE";
      return false;
    }
    const std::string key = w.substr(0, eq);
    if (values_.count(key) == 0) {
      *error = "'" + key + "': not a parameter of this shape (its parameters: " + defaults + ")";
      return false;
    }
    values_[key] = w.substr(eq + 1);
  }
  return true;
}

bool Params::Parse(const std::string& defaults, const std::string& given, std::string* error) {
  return Parse(defaults, Words(given), error);
}

std::uint64_t Params::Num(const std::string& key) const {
  const std::string& v = Text(key);
  std::size_t used = 0;
  const unsigned long long n = std::stoull(v, &used, 0);
  if (used != v.size()) throw std::invalid_argument(key + "=" + v + ": not a number");
  return n;
}

const std::string& Params::Text(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw std::invalid_argument("no parameter " + key);
  return it->second;
}

const std::vector<Shape>& AllShapes() {
  static const std::vector<Shape> all = [] {
    std::vector<Shape> v;
    for (auto family :
         {ReferenceShapes, TapeShapes, CountShapes, WorkShapes, TokenShapes, EncodingShapes}) {
      for (Shape& s : family()) v.push_back(std::move(s));
    }
    return v;
  }();
  return all;
}

const Shape* FindShape(const std::string& name) {
  for (const Shape& s : AllShapes()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace proctape::hostile
