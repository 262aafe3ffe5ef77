// SPDX-License-Identifier: Apache-2.0
// Where `proctape sql`'s database keeps what it holds (analyze/sql/database.h,
// docs/security.md "SQLite"): its temporary storage in memory (the jail
// refuses SQLite's own files in /var/tmp, so an index over many rows once
// failed), and no database but its own, neither attached nor vacuumed into.
// The same from the binary, on a file of 100,000 records and with --db:
// tests/live/sql_storage_cli_test.cc.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <memory>
#include <string>

#include "analyze/sql/database.h"
#include "analyze/sql/statement.h"

namespace proctape {
namespace {

std::unique_ptr<sql::Database> Open() {
  Failure failure;
  std::unique_ptr<sql::Database> d = sql::Database::Open(&failure);
  EXPECT_NE(d, nullptr) << failure.message;
  return d;
}

TEST(SqlStorage, TemporaryStorageIsInMemory) {
  std::unique_ptr<sql::Database> d = Open();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(sql::SelectCount(d->get(), "PRAGMA temp_store"), 2u) << "2 is MEMORY";
}

TEST(SqlStorage, NoOtherDatabaseIsAttachedEvenInMemory) {
  std::unique_ptr<sql::Database> d = Open();
  ASSERT_NE(d, nullptr);
  // While it loads, as after: ATTACH of any database, a file or none.
  EXPECT_NE(sql::Exec(d->get(), "ATTACH ':memory:' AS other"), "");
  ASSERT_EQ(d->ReadOnly(), "");
  const std::string attach = sql::Exec(d->get(), "ATTACH ':memory:' AS other");
  EXPECT_NE(attach.find("not authorized"), std::string::npos) << attach;
  const std::string vacuum = sql::Exec(d->get(), "VACUUM INTO ':memory:'");
  EXPECT_NE(vacuum, "");
}

}  // namespace
}  // namespace proctape
