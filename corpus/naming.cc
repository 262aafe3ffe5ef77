// What names an entry: the scenario of a lab recording, the file's name,
// the capture's UTC time and command line.
#include <cstring>
#include <ctime>
#include <filesystem>

#include "corpus/corpus.h"
#include "corpus/corpus_internal.h"

namespace proctape {

using corpus_internal::IsNameByte;

std::string CapturedUtc(std::int64_t realtime_ns) {
  if (realtime_ns <= 0) return "";
  std::time_t seconds = static_cast<std::time_t>(realtime_ns / 1'000'000'000);
  std::tm tm{};
  char buf[32];
  if (::gmtime_r(&seconds, &tm) == nullptr ||
      std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) {
    return "";
  }
  return buf;
}

std::string ScenarioOf(const v1::Header& header) {
  std::string out;
  for (int i = 1; i < header.command_line_size(); ++i) {
    const std::string& arg = header.command_line(i);
    bool plain = !arg.empty();
    for (char c : arg) plain &= IsNameByte(c) || std::strchr("/:=,+@%", c) != nullptr;
    if (!out.empty()) out += ' ';
    if (plain) {
      out += arg;
      continue;
    }
    out += '\'';
    for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

std::string SanitizeName(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (out.size() == 64) break;
    char k = IsNameByte(c) ? c : '-';
    bool alnum = k != '.' && k != '_' && k != '-';
    if (out.empty() && !alnum) continue;
    out += k;
  }
  return out.empty() ? "entry" : out;
}

LabRecording LabRecordingOf(const v1::Header& header) {
  LabRecording out;
  const auto& args = header.command_line();
  if (args.size() < 2 || args[1] != "lab") return out;
  // `proctape lab [OPTIONS] SCENARIO [OPTIONS]`: the options of cli/lab_command.cc
  // that take a value are skipped with it.
  out.sandbox = "unshare";
  for (int i = 2; i < args.size(); ++i) {
    const std::string& a = args[i];
    bool valued = a == "--sandbox" || a == "--record" || a == "--deadline-ms";
    if (a == "--sandbox" && i + 1 < args.size()) out.sandbox = args[i + 1];
    if (a.rfind("--sandbox=", 0) == 0) out.sandbox = a.substr(10);
    if (valued) {
      ++i;
    } else if (out.scenario.empty() && !a.empty() && a[0] != '-') {
      out.scenario = a;
    }
  }
  return out;
}

std::string DefaultEntryName(const v1::Header& header, const std::string& path) {
  const LabRecording lab = LabRecordingOf(header);
  if (!lab.scenario.empty()) return SanitizeName(lab.scenario + "-" + lab.sandbox);
  if (path == "-") return "stdin";
  std::string base = std::filesystem::path(path).filename().string();
  if (base.size() > 6 && base.ends_with(".ptape")) base.resize(base.size() - 6);
  return SanitizeName(base);
}

}  // namespace proctape
