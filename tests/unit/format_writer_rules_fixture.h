// SPDX-License-Identifier: Apache-2.0
// The fixture of the writer-rule tests (format_writer_rules_test.cc,
// format_writer_refusals_test.cc): one suite, so one class (GoogleTest
// refuses a suite whose tests use two), a fresh directory per test.
#pragma once

#include "tests/unit/format_bytes.h"

namespace proctape::test {

class FormatWriterRulesTest : public TempDirTest {};

}  // namespace proctape::test
