// SPDX-License-Identifier: Apache-2.0
// The corpus MANIFEST (corpus/manifest.h, docs/corpus.md): the exact text it
// is written as, the round trip of every value (hostile bytes included:
// written escaped, so no raw newline or control byte ever reaches the file),
// and each parse error with the line it names.
#include "corpus/manifest.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "corpus/sha256.h"

namespace proctape {
namespace {

using namespace std::string_literals;

const std::string kShaA = Sha256Hex("a");  // ca978112ca1bbdca...
const std::string kShaB = Sha256Hex("b");  // 3e23e8160039594a...

ManifestEntry Entry(const std::string& name, const std::string& sha,
                    std::vector<std::string> expects) {
  ManifestEntry e;
  e.name = name;
  e.file = CorpusFileName(sha);
  e.sha256 = sha;
  e.expects = std::move(expects);
  return e;
}

TEST(CorpusManifest, WritesTheDocumentedText) {
  Manifest m;
  m.comments = {"# recordings of the lab"};
  ManifestEntry e = Entry("plain-unshare", kShaA, {"RESOLVED pid=4123 start=56789", "DEAD"});
  e.shows = "the plain scenario resolves";
  e.kernel = "6.1.0-18-amd64";
  e.captured = "2026-12-01T03:12:44Z";
  e.scenario = "lab plain --sandbox unshare";
  e.comments = {"# first"};
  m.entries = {e, Entry("z", kShaB, {"NO_MATCH"})};
  EXPECT_EQ(FormatManifest(m),
            "# proctape corpus manifest, format 1\n"
            "# recordings of the lab\n"
            "\n"
            "# first\n"
            "entry    plain-unshare\n"
            "file     ca978112ca1bbdca.ptape\n"
            "sha256   " +
                kShaA +
                "\n"
                "expect   RESOLVED pid=4123 start=56789\n"
                "expect   DEAD\n"
                "shows    the plain scenario resolves\n"
                "kernel   6.1.0-18-amd64\n"
                "captured 2026-12-01T03:12:44Z\n"
                "scenario lab plain --sandbox unshare\n"
                "\n"
                "entry    z\n"
                "file     3e23e8160039594a.ptape\n"
                "sha256   " +
                kShaB +
                "\n"
                "expect   NO_MATCH\n");
}

TEST(CorpusManifest, HostileValuesAreEscapedAndRoundTrip) {
  Manifest m;
  ManifestEntry e = Entry("hostile", kShaA, {"ERROR PID_REUSED"});
  e.shows = " leading and trailing space ";
  e.kernel = "6.1\nexpect   RESOLVED pid=1 start=1\n\x00\x7f\x1b[31m"s;
  e.captured = "back\\slash \\x41 not an escape";
  e.scenario = "lab caf\xc3\xa9 '\t' \xff";
  m.entries = {e};
  const std::string text = FormatManifest(m);
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    EXPECT_TRUE(c == '\n' || (u >= 0x20 && u < 0x7f)) << "raw byte " << int{u} << " in\n" << text;
  }
  EXPECT_NE(text.find("kernel   6.1\\x0aexpect   RESOLVED pid=1 start=1\\x0a\\x00\\x7f\\x1b[31m\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("shows    \\x20leading and trailing space\\x20\n"), std::string::npos);
  EXPECT_NE(text.find("captured back\\x5cslash \\x5cx41 not an escape\n"), std::string::npos);
  Manifest back;
  ManifestError error;
  ASSERT_TRUE(ParseManifest(text, &back, &error)) << error.line << ": " << error.message;
  ASSERT_EQ(back.entries.size(), 1u);
  const ManifestEntry& b = back.entries[0];
  EXPECT_EQ(b.shows, e.shows);
  EXPECT_EQ(b.kernel, e.kernel);
  EXPECT_EQ(b.captured, e.captured);
  EXPECT_EQ(b.scenario, e.scenario);
  EXPECT_EQ(b.expects, e.expects);
  EXPECT_EQ(FormatManifest(back), text);
}

TEST(CorpusManifest, ParsesCommentsTabsAndLineNumbers) {
  const std::string text =
      "# proctape corpus manifest, format 1\n"
      "# about this corpus\n"  // 2: free
      "\n"
      "# above a\n"  // 4: a's
      "entry\ta\n"   // 5
      "file     " +
      CorpusFileName(kShaA) +
      "\n"
      "# inside a\n"  // 7: a's
      "sha256   " +
      kShaA +
      "   \n"  // trailing blanks dropped
      "expect   RESOLVED pid=1 start=2\n"
      "shows    caf\xc3\xa9 \\x41\n"  // raw UTF-8 is read as is, \x41 is 'A'
      "\n"
      "# loose\n"  // 12: free, a blank line follows
      "\n"
      "entry    b\n"  // 14
      "file     " +
      CorpusFileName(kShaB) +
      "\n"
      "sha256   " +
      kShaB +
      "\n"
      "expect   DEAD\n";  // no blank line at the end, no final comment
  Manifest m;
  ManifestError error;
  ASSERT_TRUE(ParseManifest(text, &m, &error)) << error.line << ": " << error.message;
  EXPECT_EQ(m.comments, (std::vector<std::string>{"# about this corpus", "# loose"}));
  ASSERT_EQ(m.entries.size(), 2u);
  EXPECT_EQ(m.entries[0].name, "a");
  EXPECT_EQ(m.entries[0].line, 5);
  EXPECT_EQ(m.entries[0].comments, (std::vector<std::string>{"# above a", "# inside a"}));
  EXPECT_EQ(m.entries[0].sha256, kShaA);
  EXPECT_EQ(m.entries[0].shows, "caf\xc3\xa9 A");
  EXPECT_EQ(m.entries[1].line, 14);
  EXPECT_EQ(m.entries[1].expects, std::vector<std::string>{"DEAD"});
}

// Each error names its line, and says what is wrong.
TEST(CorpusManifest, EveryParseErrorNamesItsLine) {
  const std::string head = "# proctape corpus manifest, format 1\n\n";  // lines 1-2
  const std::string a = "entry    a\nfile     " + CorpusFileName(kShaA) + "\nsha256   " + kShaA +
                        "\nexpect   ALIVE\n";  // lines 3-6
  struct Case {
    std::string text;
    int line;
    std::string says;
  };
  const Case cases[] = {
      {"", 1, "the first line must be '# proctape corpus manifest, format 1'"},
      {"# proctape corpus manifest, format 2\n", 1, "not a corpus manifest"},
      {head + a + "shows    x\r\n", 7, "control byte \\x0d at column 11"},
      {head + a + "color    red\n", 7, "unknown key 'color'"},
      {head + "file     x.ptape\n", 3, "file outside an entry"},
      {head + a + "\nshows    x\n", 8, "shows outside an entry"},
      {head + a + "shows    x\nshows    y\n", 8, "entry a has a second shows line"},
      {head + a + "kernel\n", 7, "kernel has no value"},
      {head + a + "kernel   \n", 7, "kernel has no value"},
      {head + a + "kernel   6.1\\n\n", 7, "bad escape"},
      {head + a + "kernel   6.1\\x4\n", 7, "bad escape"},
      {head + a + " shows   x\n", 7, "a key begins its line"},
      {head + "entry    -a\n", 3, "entry name -a is not"},
      {head + "entry    " + std::string(65, 'n') + "\n", 3, "is not 1 to 64"},
      {head + "entry    a b\n", 3, "entry name a b is not"},
      {head + a + "\n" + a, 8, "entry a is already defined at line 3"},
      {head + a + "expect   RESOLVED\n", 7, "RESOLVED wants its identity"},
      {head + a + "expect   RESOLVED pid=01 start=2\n", 7, "RESOLVED wants its identity"},
      {head + a + "expect   ERROR RESOLVED\n", 7, "ERROR wants a reason"},
      {head + a + "expect   resolved\n", 7, "not an expected outcome"},
      {head + a + "expect   STATUS_UNSPECIFIED\n", 7, "not an expected outcome"},
      {head + "entry    a\nsha256   ABC\n", 4, "sha256 ABC is not 64 lowercase hex digits"},
      {head + "entry    a\nfile     " + CorpusFileName(kShaA) + "\nsha256   " + kShaA + "\n", 3,
       "entry a has no expect line"},
      {head + "entry    a\nsha256   " + kShaA + "\nexpect   DEAD\n", 3, "entry a has no file line"},
      {head + "entry    a\nfile     " + CorpusFileName(kShaA) + "\nexpect   DEAD\n", 3,
       "entry a has no sha256 line"},
      {head + "entry    a\nfile     ../etc.ptape\nsha256   " + kShaA + "\nexpect   DEAD\n", 3,
       "file ../etc.ptape is not named by its sha256 (ca978112ca1bbdca.ptape)"},
      {head + a + "\nentry    b\nfile     " + CorpusFileName(kShaA) + "\nsha256   " + kShaA +
           "\nexpect   DEAD\n",
       8, "entry b has the content (sha256) of entry a"},
  };
  for (const Case& c : cases) {
    Manifest m;
    ManifestError error;
    EXPECT_FALSE(ParseManifest(c.text, &m, &error)) << c.text;
    EXPECT_EQ(error.line, c.line) << c.text << "\n" << error.message;
    EXPECT_NE(error.message.find(c.says), std::string::npos)
        << "wanted: " << c.says << "\ngot: " << error.message;
    EXPECT_EQ(error.message.find('\n'), std::string::npos) << error.message;
  }
}

TEST(CorpusManifest, HeaderAloneIsAnEmptyManifest) {
  Manifest m;
  ManifestError error;
  ASSERT_TRUE(ParseManifest("# proctape corpus manifest, format 1\n", &m, &error)) << error.message;
  EXPECT_TRUE(m.entries.empty());
  EXPECT_EQ(FormatManifest(m), "# proctape corpus manifest, format 1\n");
}

TEST(CorpusManifest, EntryNamesAndFileNames) {
  for (const char* ok : {"a", "plain-unshare", "A.b_c-9", "9lives"})
    EXPECT_TRUE(IsEntryName(ok)) << ok;
  for (const char* bad : {"", "-a", ".hidden", "_x", "a/b", "a b", "caf\xc3\xa9", "a;b"}) {
    EXPECT_FALSE(IsEntryName(bad)) << bad;
  }
  EXPECT_TRUE(IsEntryName(std::string(64, 'x')));
  EXPECT_FALSE(IsEntryName(std::string(65, 'x')));
  EXPECT_EQ(CorpusFileName(kShaA), "ca978112ca1bbdca.ptape");
  EXPECT_EQ(EscapeValue(" "), "\\x20");
  EXPECT_EQ(EscapeValue("a\\b"), "a\\x5cb");
}

}  // namespace
}  // namespace proctape
