// SPDX-License-Identifier: Apache-2.0
#include "analyze/sql/database.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include "analyze/sql/fd_vfs.h"
#include "analyze/sql/query.h"
#include "analyze/sql/statement.h"
#include "core/proc_parse.h"
#include "corpus/corpus.h"
#include "corpus/sha256.h"

namespace proctape::sql {
namespace {

std::string DirectoryOf(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string BaseOf(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// errno_name(N): "ENOENT" for 2, NULL for NULL or a number with no name.
void ErrnoName(sqlite3_context* context, int, sqlite3_value** args) {
  if (sqlite3_value_type(args[0]) == SQLITE_NULL) return sqlite3_result_null(context);
  const sqlite3_int64 n = sqlite3_value_int64(args[0]);
  const char* name = n > 0 && n < 4096 ? ::strerrorname_np(static_cast<int>(n)) : nullptr;
  if (name == nullptr) return sqlite3_result_null(context);
  sqlite3_result_text(context, name, -1, SQLITE_STATIC);
}

}  // namespace

std::string ManifestBeside(const std::string& path) {
  return path == "-" ? "" : ManifestPath(DirectoryOf(path));
}

std::unique_ptr<Database> Database::Open(Failure* failure, int file_fd) {
  // SQLite's count of its own memory takes a mutex at every allocation:
  // off, before SQLite starts (process-wide; a no-op once it has started).
  static const bool configured = [] {
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return true;
  }();
  (void)configured;
  std::unique_ptr<Database> d(new Database());
  const bool in_file = file_fd >= 0;
  if (in_file) {
    struct stat st {};
    if (::fstat(file_fd, &st) != 0) {
      *failure = Failure(FailureKind::kInternal,
                         std::string("cannot open the database's file: ") + std::strerror(errno));
      return nullptr;
    }
    d->file_ = {st.st_dev, st.st_ino};
  }
  // One thread uses it: no mutex (SQLITE_OPEN_NOMUTEX).
  const std::string db_name = in_file ? FdDatabaseName(file_fd) : ":memory:";
  if (sqlite3_open_v2(db_name.c_str(), &d->db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      in_file ? kFdVfsName : nullptr) != SQLITE_OK) {
    *failure = Failure(FailureKind::kInternal,
                       d->db_ != nullptr ? sqlite3_errmsg(d->db_) : "cannot open the database");
    return nullptr;
  }
  // In a file: no journal (a load that fails is never committed: the
  // output's temporary is removed), nothing synced before the commit's
  // fsync, and at most kFileCacheKiB of pages held (docs/sql.md, "Memory").
  if (in_file) {
    for (const std::string& pragma :
         {std::string("PRAGMA journal_mode = OFF"), std::string("PRAGMA synchronous = OFF"),
          std::string("PRAGMA locking_mode = EXCLUSIVE"),
          "PRAGMA cache_size = -" + std::to_string(kFileCacheKiB)}) {
      if (std::string f = Exec(d->db_, pragma); !f.empty()) {
        *failure = Failure(FailureKind::kInternal, pragma + ": " + f);
        return nullptr;
      }
    }
  }
  // SQLite's temporary storage (the sorter that builds an index, a large
  // ORDER BY or GROUP BY) in memory, as the database is: never a file of
  // its own in /var/tmp, which the jail refuses. And no database but this
  // one: ATTACH (and VACUUM INTO, which attaches its target) would create
  // a file (docs/security.md, "SQLite").
  if (std::string f = Exec(d->db_, "PRAGMA temp_store = MEMORY"); !f.empty()) {
    *failure = Failure(FailureKind::kInternal, "temp_store: " + f);
    return nullptr;
  }
  sqlite3_limit(d->db_, SQLITE_LIMIT_ATTACHED, 0);
  if (sqlite3_create_function(d->db_, "errno_name", 1,
                              SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nullptr,
                              ErrnoName, nullptr, nullptr) != SQLITE_OK) {
    *failure =
        Failure(FailureKind::kInternal, std::string("errno_name: ") + sqlite3_errmsg(d->db_));
    return nullptr;
  }
  if (std::string f = CreateSchema(d->db_); !f.empty()) {
    *failure = Failure(FailureKind::kInternal, "the schema: " + f);
    return nullptr;
  }
  {
    Insert errno_row(d->db_, "INSERT INTO errnos VALUES (?, ?)");
    for (int err = 1; err < 4096 && errno_row.ok(); ++err) {
      if (const char* name = ::strerrorname_np(err)) {
        if (std::string f = errno_row.Int(err).Text(name).Row(); !f.empty()) {
          *failure = Failure(FailureKind::kInternal, "the errnos: " + f);
          return nullptr;
        }
      }
    }
  }
  return d;
}

Database::~Database() { sqlite3_close(db_); }

const ManifestEntry* Database::EntryOf(const std::string& path, std::string* warning) {
  if (path == "-") return nullptr;
  const std::string dir = DirectoryOf(path);
  auto it = manifests_.find(dir);
  if (it == manifests_.end()) {
    Entries entries;
    Failure failure;
    // None there: no corpus, no entries. One that is no regular file of
    // bounded size is not read (corpus/beside_file.h), said as a warning.
    if (std::optional<Manifest> loaded = LoadManifest(dir, /*missing_ok=*/true, &failure)) {
      entries.manifest = std::make_unique<Manifest>(std::move(*loaded));
      for (const ManifestEntry& e : entries.manifest->entries) {
        entries.by_file.emplace(e.file, &e);  // the first, as a scan finds it
      }
    } else {
      *warning = failure.message + ": its entries are not named (files.entry is NULL)";
    }
    it = manifests_.emplace(dir, std::move(entries)).first;
  }
  const auto found = it->second.by_file.find(BaseOf(path));
  return found == it->second.by_file.end() ? nullptr : found->second;
}

Loaded Database::Load(const std::string& path) {
  FileFacts facts;
  std::string warning;
  if (path != "-") {
    // A regular file only: a pipe or a FIFO holds its bytes for one read,
    // the load's (its sha256 is NULL, as standard input's).
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      Failure unread;  // the load says why
      facts.sha256 = Sha256File(path, &unread).value_or("");
    }
    if (const ManifestEntry* e = EntryOf(path, &warning)) {
      facts.entry = e->name;
      facts.scenario = e->scenario;
    }
  }
  Loaded out = LoadFile(db_, next_id_, path, facts);
  if (!out.refused && out.error.empty()) {
    ++next_id_;
    keeps_environ_ = keeps_environ_ || out.keeps_environ;
    tokens_.Add(out.tokens);
  }
  if (out.warning.empty()) out.warning = warning;
  return out;
}

std::string Database::Finish() { return CreateIndexes(db_); }

namespace {

// The authorizer of a read-only database: no ATTACH or DETACH; a PRAGMA may
// be read, or asked about a table (table_info(T), ...), never set -- `PRAGMA query_only = 0`
// would undo the read-only state itself; fts3_tokenizer() (which registers
// a function pointer) and load_extension() are refused.
int ReadOnlyAuthorizer(void*, int action, const char* arg1, const char* arg2, const char*,
                       const char*) {
  // No other database file, opened or made (SQLITE_LIMIT_ATTACHED is 0 too).
  if (action == SQLITE_ATTACH || action == SQLITE_DETACH) return SQLITE_DENY;
  if (action == SQLITE_FUNCTION) {
    for (const char* refused : {"fts3_tokenizer", "load_extension"}) {
      if (arg2 != nullptr && sqlite3_stricmp(arg2, refused) == 0) return SQLITE_DENY;
    }
    return SQLITE_OK;
  }
  if (action != SQLITE_PRAGMA || arg2 == nullptr) return SQLITE_OK;
  for (const char* asks :
       {"table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
        "foreign_key_list", "foreign_key_check", "integrity_check", "quick_check"}) {
    if (sqlite3_stricmp(arg1, asks) == 0) return SQLITE_OK;
  }
  return SQLITE_DENY;
}

}  // namespace

std::string Database::ReadOnly() {
  if (std::string f = Exec(db_, "PRAGMA query_only = 1"); !f.empty()) return f;
  // SQLite's defensive mode too: no write to its own schema, whatever asks.
  if (sqlite3_db_config(db_, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr) != SQLITE_OK ||
      sqlite3_set_authorizer(db_, ReadOnlyAuthorizer, nullptr) != SQLITE_OK) {
    return sqlite3_errmsg(db_);
  }
  return "";
}

std::string Database::SaveTo(OutputFile& out) {
  // Made in `out`'s own file: its pages written there, nothing to copy.
  if (file_) {
    struct stat st {};
    if (::fstat(out.fd(), &st) == 0 && st.st_dev == file_->first && st.st_ino == file_->second) {
      return sqlite3_db_cacheflush(db_) == SQLITE_OK ? "" : sqlite3_errmsg(db_);
    }
  }
  // The database's file image (sqlite3_serialize), written through the
  // output's open temporary: no path is opened again (cli/jail.h).
  sqlite3_int64 size = 0;
  unsigned char* image = sqlite3_serialize(db_, "main", &size, 0);
  // It fails only when the image cannot be allocated: out of memory, as
  // any allocation of the command (cli/main.cc), not an output's failure.
  if (image == nullptr) throw std::bad_alloc();
  MaybeFailure failed = out.Write(
      std::string_view(reinterpret_cast<const char*>(image), static_cast<std::size_t>(size)));
  sqlite3_free(image);
  return failed ? failed->message : "";
}

std::vector<std::string> Database::Tables() {
  std::vector<std::string> out;
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY rowid",
                         -1, &s, nullptr) != SQLITE_OK) {
    return out;
  }
  while (sqlite3_step(s) == SQLITE_ROW) {
    out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
  }
  sqlite3_finalize(s);
  return out;
}

std::uint64_t Database::ImageBytes() {
  return SelectCount(db_, "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size");
}

std::uint64_t Database::Count(const std::string& table) {
  return SelectCount(db_, "SELECT COUNT(*) FROM " + table);
}

std::string Database::WriteCsv(int dir_fd, bool owner_only, std::uint64_t* bytes) {
  for (const std::string& table : Tables()) {
    const std::string name = table + ".csv";
    const int fd = ::openat(dir_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                            owner_only ? 0600 : 0644);
    if (fd < 0) return name + ": cannot create: " + std::strerror(errno);
    FILE* out = ::fdopen(fd, "w");
    if (out == nullptr) {
      ::close(fd);
      return name + ": cannot write: " + std::strerror(errno);
    }
    std::string failed = Run(db_, "SELECT * FROM " + table, Format::kCsv, out);
    const bool flushed = std::fflush(out) == 0 && ::fsync(fd) == 0;
    const int flush_errno = errno;
    if (const long at = std::ftell(out); at > 0) *bytes += static_cast<std::uint64_t>(at);
    std::fclose(out);
    if (!failed.empty()) return name + ": " + failed;
    if (!flushed) return name + ": cannot write: " + std::strerror(flush_errno);
  }
  return "";
}

}  // namespace proctape::sql
