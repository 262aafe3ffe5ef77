// A corpus manifest (DIR/MANIFEST, docs/corpus.md): text, one block of
// "key value" lines per entry, blocks separated by blank lines, '#' comments.
//
//   # proctape corpus manifest, format 1
//
//   entry    plain-unshare
//   file     3f2ac1d09e8b7a45.ptape
//   sha256   3f2ac1d09e8b7a45...(64 hex)
//   expect   RESOLVED pid=4123 start=56789
//   shows    the plain scenario resolves
//   kernel   6.1.0-18-amd64
//   captured 2026-12-01T03:12:44Z
//   scenario lab plain --sandbox unshare
//
// In memory values are raw bytes; in the file every value is written with
// EscapeBytes (printable ASCII as is, anything else and '\' as \xNN; a space
// that begins or ends a value as \x20), so a value never holds a raw newline
// or control byte, and parsing undoes exactly that.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace proctape {

inline constexpr char kManifestName[] = "MANIFEST";
inline constexpr char kManifestHeader[] = "# proctape corpus manifest, format 1";

struct ManifestEntry {
  std::string name;                   // [A-Za-z0-9][A-Za-z0-9._-]{0,63}, unique
  std::string file;                   // <first 16 hex of sha256>.ptape, in DIR
  std::string sha256;                 // 64 lowercase hex digits
  std::vector<std::string> expects;   // one per recorded resolution, in file order
  std::string shows;                  // what it shows (free text); "" = no line
  std::string kernel;                 // the capturing host's kernel release
  std::string captured;               // capture start, UTC, 2026-12-01T03:12:44Z
  std::string scenario;               // how it was captured: the command's arguments
  std::vector<std::string> comments;  // '#' lines directly above or inside its block
  int line = 0;                       // line of its `entry` key when parsed
};

struct Manifest {
  // '#' lines that belong to no entry (separated from the next entry by a
  // blank line), kept in order after the header line.
  std::vector<std::string> comments;
  std::vector<ManifestEntry> entries;  // in file order
};

struct ManifestError {
  int line = 0;         // 1-based; 0 for the file as a whole
  std::string message;  // one line
};

// Whether `name` may name an entry (and a ctest test).
bool IsEntryName(std::string_view name);
// `file` as the manifest must name it for `sha256`.
std::string CorpusFileName(std::string_view sha256);

// Parses manifest text. Every error names its line: a first line other than
// kManifestHeader, a control byte, an unknown key, a key outside an entry, a
// key given twice, an empty value, a bad \x escape, a name, file, sha256 or
// expect line of the wrong form, a name or content already in the manifest,
// an entry lacking file, sha256 or expect.
bool ParseManifest(std::string_view text, Manifest* out, ManifestError* error);

// The manifest as text: the header, the free comments, then each entry's
// comments and keys in the order shown above. ParseManifest(FormatManifest(m))
// gives m back (lines aside).
std::string FormatManifest(const Manifest& manifest);

// The value as written in the manifest (and in JSON and JUnit output).
std::string EscapeValue(std::string_view value);

}  // namespace proctape
