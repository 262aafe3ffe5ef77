// SPDX-License-Identifier: Apache-2.0
// `proctape resolve --record FILE` on a real PID-namespace sandbox
// (`docs/format.md` section 6): a secret in the sandbox's environment is in no
// decompressed byte of the recording, while the token entry is kept verbatim
// where it was read. Every process a test starts is ended by its pid
// (sandbox.h).
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "format/reader.h"
#include "tests/live/files.h"
#include "tests/live/record_live_fixture.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::DecompressedChunks;
using live::Describe;
using live::FileBytes;
using live::kSecretVar;
using live::RecordLiveTest;

using live::Proctape;

// Redaction (`docs/format.md` section 6) for recordings: the secret in the
// sandbox's environment (the shell's, the sandbox tool's and the sleep's, all
// in the frames; the sleep's in the tape too) is in no decompressed byte of the
// file.
TEST_P(RecordLiveTest, NoDecompressedByteOfTheRecordingHoldsTheSandboxSecret) {
  const std::string file = dir_.File("secret.ptape");
  CommandResult r =
      Proctape({"resolve", "--root", Root(), "--token", sandbox_->token(), "--record", file});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out.find(secret_), std::string::npos);
  EXPECT_EQ(r.err.find(secret_), std::string::npos);

  FormatError err;
  std::vector<std::string> chunks = DecompressedChunks(file, &err);
  ASSERT_TRUE(err.ok()) << err.message;
  // Header, frame 0 (one part or more), tape, frame 1, resolution, footer.
  ASSERT_GE(chunks.size(), 6u);
  const std::string starred = std::string(kSecretVar) + "=" + std::string(secret_.size(), '*');
  std::size_t starred_chunks = 0;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_EQ(chunks[i].find(secret_), std::string::npos) << "secret in chunk " << i;
    if (chunks[i].find(starred) != std::string::npos) ++starred_chunks;
  }
  // Frame 0 and the tape hold the variable, value starred (frame 1 may refer
  // to frame 0's copy of an identical environ).
  EXPECT_GE(starred_chunks, 2u);
  EXPECT_EQ(FileBytes(file).find(secret_), std::string::npos);

  // The token, by contrast, is kept verbatim where it was read.
  Snapshot snap;
  ASSERT_TRUE(ReadSnapshot(file, &snap).ok());
  bool token_in_tape = false;
  for (const v1::Observation& o : snap.observations) {
    if (o.has_read_file() && o.read_file().file() == v1::PROC_FILE_ENVIRON &&
        o.read_file().result().data().find(TokenEntry()) != std::string::npos) {
      token_in_tape = true;
    }
  }
  EXPECT_TRUE(token_in_tape);
}
}  // namespace
}  // namespace proctape
