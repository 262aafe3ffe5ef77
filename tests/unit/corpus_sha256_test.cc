// SPDX-License-Identifier: Apache-2.0
// SHA-256 (corpus/sha256.h, nettle underneath) against the FIPS 180-4 example vectors published
// by NIST, lengths around the 56- and 64-byte padding boundaries (digests
// from an independent implementation: sha256sum), and streaming in pieces.
#include "corpus/sha256.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <optional>
#include <string>

namespace proctape {
namespace {

TEST(CorpusSha256, NistVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // The 448-bit message: two blocks once padded.
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1'000'000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(CorpusSha256, LengthsAroundThePaddingBoundaries) {
  const std::pair<std::size_t, const char*> cases[] = {
      {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
      {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
      {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
      {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
      {65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
      {119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
      {120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
  };
  for (auto [n, digest] : cases) EXPECT_EQ(Sha256Hex(std::string(n, 'a')), digest) << n;
}

// Every byte value, fed in pieces of every size from 1 to 130: the same
// digest as in one piece.
TEST(CorpusSha256, PiecesGiveTheDigestOfTheWhole) {
  std::string all;
  for (int r = 0; r < 3; ++r) {
    for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  }
  const std::string whole = "f3a25aa93aa2fbba28d79260535bbd6a5eb0fc1c24a8b0f04e12b484c1dfe363";
  ASSERT_EQ(Sha256Hex(all), whole);
  for (std::size_t piece = 1; piece <= 130; ++piece) {
    Sha256 h;
    for (std::size_t at = 0; at < all.size(); at += piece) {
      h.Update(std::string_view(all).substr(at, piece));
    }
    EXPECT_EQ(h.Hex(), whole) << "pieces of " << piece;
  }
}

TEST(CorpusSha256, FileDigestAndItsErrors) {
  char path[] = "/tmp/proctape-sha-XXXXXX";
  int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  std::string data(200'000, 'a');  // several 64 KiB reads
  std::ofstream(path, std::ios::binary) << data;
  Failure failure;
  std::optional<std::string> hex = Sha256File(path, &failure);
  EXPECT_TRUE(hex) << failure.message;
  EXPECT_EQ(hex, Sha256Hex(data));
  ::unlink(path);
  EXPECT_FALSE(Sha256File(path, &failure));
  EXPECT_EQ(failure.message, "cannot open: No such file or directory");
  EXPECT_EQ(failure.kind, FailureKind::kIo);
  EXPECT_EQ(failure.sys_errno, ENOENT);
}

// A directory is said as what it is, in the words of every .ptape reader,
// so `corpus add DIR` and `show DIR` say the same.
TEST(Sha256Test, ADirectoryIsSaidAsEveryReaderSaysIt) {
  char dir[] = "/tmp/proctape-sha-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  Failure failure;
  EXPECT_FALSE(Sha256File(dir, &failure));
  EXPECT_EQ(failure.message, "is a directory, not a .ptape file");
  EXPECT_EQ(failure.kind, FailureKind::kIo);
  ::rmdir(dir);
}

}  // namespace
}  // namespace proctape
