// SPDX-License-Identifier: Apache-2.0
// The layer graph of docs/architecture.md ("Layers") is the code's: every
// `#include` of another layer's header and every library a layer links
// (its CMakeLists.txt) must be one of the layers its line allows, every
// layer library the build defines has a line, and the allowed graph has no
// cycle. A new dependency is either allowed in the doc or removed.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/unit/source_dir.h"

namespace proctape {
namespace {

namespace fs = std::filesystem;

struct Layer {
  std::string name;                 // proctape_core -> "core"
  std::vector<std::string> places;  // path prefixes, from the root: "core/", "include/proctape.h"
  std::set<std::string> allowed;    // layer names it may use
};

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The lines "    proctape_NAME (PLACE[ PLACE]) -> a, b, c  description" of the
// "## Layers" section; the list of uses ends at two spaces or the line's
// end; "nothing of ours" is none; names that are no layer (CLI11, zstd,
// protobuf, sqlite3) are other libraries and not checked here.
std::map<std::string, Layer> DocumentedLayers(std::string* error) {
  const std::string doc = ReadFile(test::SourceDir() / "docs/architecture.md");
  const auto start = doc.find("\n## Layers\n");
  if (start == std::string::npos) {
    *error = "docs/architecture.md has no '## Layers' section";
    return {};
  }
  const auto end = doc.find("\n## ", start + 1);
  std::istringstream lines(doc.substr(start, end - start));
  static const std::regex line(R"(^\s+proctape_(\w+)\s+\(([^)]+)\)\s+->\s+(.*?)(\s{2,}.*)?$)");
  std::map<std::string, Layer> layers;
  std::map<std::string, std::vector<std::string>> uses;
  for (std::string l; std::getline(lines, l);) {
    std::smatch m;
    if (!std::regex_match(l, m, line)) continue;
    Layer layer{m[1].str(), {}, {}};
    std::istringstream places(m[2].str());
    for (std::string p; places >> p;) layer.places.push_back(p);
    std::string list = m[3].str();
    if (list != "nothing of ours") {
      std::istringstream items(list);
      for (std::string item; std::getline(items, item, ',');) {
        item.erase(0, item.find_first_not_of(' '));
        item.erase(item.find_last_not_of(' ') + 1);
        uses[layer.name].push_back(item);
      }
    }
    layers[layer.name] = layer;
  }
  for (auto& [name, layer] : layers) {
    for (const std::string& u : uses[name]) {
      if (layers.count(u) != 0) layer.allowed.insert(u);
    }
  }
  return layers;
}

// The layer a path from the root belongs to: the longest place it starts with.
std::string LayerOf(const std::map<std::string, Layer>& layers, const std::string& path) {
  std::string best;
  std::size_t best_length = 0;
  for (const auto& [name, layer] : layers) {
    for (const std::string& place : layer.places) {
      if (path.rfind(place, 0) == 0 && place.size() > best_length) {
        best = name;
        best_length = place.size();
      }
    }
  }
  return best;
}

class LayersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    layers_ = DocumentedLayers(&error);
    ASSERT_TRUE(error.empty()) << error;
    ASSERT_GE(layers_.size(), 10u) << "docs/architecture.md: too few layer lines parsed";
  }
  std::map<std::string, Layer> layers_;
};

// What a header path names, from the root: "core/x.h" as it is, a public
// header ("proctape/x.h", "proctape.h") under include/; "" for a system or
// generated header.
std::string IncludedPath(const std::string& spelled) {
  const fs::path root = test::SourceDir();
  if (fs::exists(root / spelled)) return spelled;
  if (fs::exists(root / "include" / spelled)) return "include/" + spelled;
  return "";
}

TEST_F(LayersTest, EveryIncludeOfAnotherLayerIsOneItsLineAllows) {
  const fs::path root = test::SourceDir();
  static const std::regex include(R"(^\s*#\s*include\s+"([^"]+)\")");
  std::vector<std::string> found;
  std::size_t files = 0;
  for (const auto& [name, layer] : layers_) {
    for (const std::string& place : layer.places) {
      const fs::path top = root / place;
      std::vector<fs::path> paths;
      if (fs::is_directory(top)) {
        for (const auto& e : fs::recursive_directory_iterator(top)) {
          const auto ext = e.path().extension();
          if (e.is_regular_file() && (ext == ".cc" || ext == ".h" || ext == ".c"))
            paths.push_back(e.path());
        }
      } else if (fs::is_regular_file(top)) {
        paths.push_back(top);
      }
      for (const fs::path& p : paths) {
        const std::string rel = fs::relative(p, root).generic_string();
        if (LayerOf(layers_, rel) != name) continue;  // a sub-layer's own file (analyze/sql/)
        ++files;
        std::istringstream text(ReadFile(p));
        int number = 0;
        for (std::string l; std::getline(text, l);) {
          ++number;
          std::smatch m;
          if (!std::regex_search(l, m, include)) continue;
          const std::string target = IncludedPath(m[1].str());
          if (target.empty()) continue;
          const std::string used = LayerOf(layers_, target);
          if (used.empty() || used == name || layer.allowed.count(used) != 0) continue;
          found.push_back(rel + ":" + std::to_string(number) + ": " + name + " includes " +
                          m[1].str() + " (layer " + used + ")");
        }
      }
    }
  }
  EXPECT_GT(files, 200u) << "the layers' places hold too few sources: a place misspelled?";
  std::string all;
  for (const auto& f : found) all += "\n  " + f;
  EXPECT_TRUE(found.empty()) << "not allowed by docs/architecture.md, \"Layers\":" << all;
}

TEST_F(LayersTest, EveryLibraryALayerLinksIsOneItsLineAllowsAndEveryLayerHasALine) {
  const fs::path root = test::SourceDir();
  // proctape_library(NAME SOURCES ... DEPS ...) and target_link_libraries(NAME ...).
  static const std::regex call(
      R"((proctape_library|target_link_libraries)\s*\(\s*proctape_(\w+)([^)]*)\))");
  static const std::regex used(R"(\bproctape_(\w+))");
  std::vector<std::string> found;
  std::set<std::string> defined;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const std::string rel = fs::relative(e.path(), root).generic_string();
    if (rel.rfind("build", 0) == 0 || rel.rfind(".git", 0) == 0 || rel.rfind("tests/", 0) == 0 ||
        rel.rfind("bench/", 0) == 0) {
      continue;
    }
    if (e.path().filename() != "CMakeLists.txt") continue;
    const std::string text = ReadFile(e.path());
    for (std::sregex_iterator it(text.begin(), text.end(), call), end; it != end; ++it) {
      const std::string self = (*it)[2].str();
      if ((*it)[1].str() == "proctape_library") defined.insert(self);
      if (layers_.count(self) == 0) continue;
      const std::string rest = (*it)[3].str();
      for (std::sregex_iterator u(rest.begin(), rest.end(), used), uend; u != uend; ++u) {
        const std::string dep = (*u)[1].str();
        if (dep == self || layers_.count(dep) == 0) continue;
        if (layers_.at(self).allowed.count(dep) == 0) {
          found.push_back(rel + ": proctape_" + self + " links proctape_" + dep);
        }
      }
    }
  }
  for (const std::string& d : defined) {
    if (layers_.count(d) == 0)
      found.push_back("proctape_" + d + " is a layer library with no line");
  }
  EXPECT_GE(defined.size(), 10u) << "too few proctape_library calls found";
  std::string all;
  for (const auto& f : found) all += "\n  " + f;
  EXPECT_TRUE(found.empty()) << "not allowed by docs/architecture.md, \"Layers\":" << all;
}

TEST_F(LayersTest, TheAllowedGraphHasNoCycle) {
  std::map<std::string, int> state;  // 0 unseen, 1 on the path, 2 done
  std::vector<std::string> path;
  std::string cycle;
  std::function<void(const std::string&)> visit = [&](const std::string& n) {
    if (!cycle.empty() || state[n] == 2) return;
    if (state[n] == 1) {
      for (auto it = std::find(path.begin(), path.end(), n); it != path.end(); ++it)
        cycle += *it + " -> ";
      cycle += n;
      return;
    }
    state[n] = 1;
    path.push_back(n);
    for (const std::string& u : layers_.at(n).allowed) visit(u);
    path.pop_back();
    state[n] = 2;
  };
  for (const auto& [name, layer] : layers_) visit(name);
  EXPECT_TRUE(cycle.empty()) << "docs/architecture.md allows a cycle: " << cycle;
}

}  // namespace
}  // namespace proctape
