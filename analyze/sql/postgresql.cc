// SPDX-License-Identifier: Apache-2.0
#include "analyze/sql/postgresql.h"

#include <cctype>
#include <string_view>

#include "analyze/sql/schema.h"

namespace proctape::sql {
namespace {

constexpr std::string_view kStaging = "proctape_staging";

bool WordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// `line` split at its comment ("--" outside a quoted string).
std::size_t CommentAt(std::string_view line) {
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\'') quoted = !quoted;
    if (!quoted && line.compare(i, 2, "--") == 0) return i;
  }
  return std::string_view::npos;
}

// schema.sql without its comments.
std::string CodeOf(std::string_view schema) {
  std::string out;
  while (!schema.empty()) {
    const std::size_t end = schema.find('\n');
    std::string_view line = schema.substr(0, end);
    out += line.substr(0, CommentAt(line));
    out += '\n';
    schema.remove_prefix(end == std::string_view::npos ? schema.size() : end + 1);
  }
  return out;
}

std::string Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

// A type of schema.sql in PostgreSQL's words; `staged`: as the staging
// table holds it (a BLOB is the CSV's escaped text there).
std::string TypeOf(const std::string& sqlite_type, bool staged) {
  if (sqlite_type == "INTEGER") return "bigint";
  if (sqlite_type == "BLOB") return staged ? "text" : "bytea";
  return "text";
}

// The code part of a line of schema.sql with its types translated (whole
// words, upper case, as schema.sql writes them).
std::string TranslateCode(std::string_view code) {
  std::string out;
  std::size_t i = 0;
  while (i < code.size()) {
    if (!WordChar(code[i])) {
      out += code[i++];
      continue;
    }
    std::size_t j = i;
    while (j < code.size() && WordChar(code[j])) ++j;
    const std::string word(code.substr(i, j - i));
    const bool type = word == "INTEGER" || word == "TEXT" || word == "BLOB";
    out += type ? TypeOf(word, /*staged=*/false) : word;
    i = j;
  }
  return out;
}

// schema.sql, line by line, its types translated and its comments kept; the
// comment of its indexes (built after a load in SQLite) said for PostgreSQL.
std::string TranslatedSchema() {
  std::string out;
  std::string_view schema = kSchema;
  bool indexes_comment = false;
  while (!schema.empty()) {
    const std::size_t end = schema.find('\n');
    const std::string_view line = schema.substr(0, end);
    schema.remove_prefix(end == std::string_view::npos ? schema.size() : end + 1);
    if (line.starts_with("-- SPDX")) continue;  // the output's own header says it
    if (line.starts_with("-- @indexes")) {
      indexes_comment = true;
      out +=
          "-- The indexes, kept up by each load (proctape_merge() below). Each says\n"
          "-- what is unique.\n";
      continue;
    }
    if (indexes_comment && line.starts_with("--")) continue;
    indexes_comment = false;
    const std::size_t comment = CommentAt(line);
    out += TranslateCode(line.substr(0, comment));
    if (comment != std::string_view::npos) out += line.substr(comment);
    out += '\n';
  }
  return out;
}

// What PostgreSQL adds to the tables: the key of a file across loads, and
// SQLite's functions of the worked queries (docs/sql.md) under their names.
constexpr const char* kAdditions = R"pg(
-- What PostgreSQL adds. A file's rows are keyed by its sha256: a second
-- load of the same file adds nothing, and loads from many hosts never
-- collide; file_id numbers the files of this database, as they come.
CREATE SEQUENCE files_file_id_seq OWNED BY files.file_id;
ALTER TABLE files ALTER COLUMN file_id SET DEFAULT nextval('files_file_id_seq');
CREATE UNIQUE INDEX files_sha256 ON files (sha256);

-- errno_name(N), as SQLite's in proctape sql: the name of an errno (ENOENT
-- for 2; NULL for none), from errnos.
CREATE FUNCTION errno_name(n bigint) RETURNS text
  LANGUAGE sql STABLE STRICT PARALLEL SAFE
  AS $$ SELECT name FROM errnos WHERE err = n $$;

-- group_concat(X [, SEP]), as SQLite's: the values that are not NULL, in
-- the order they come, SEP (',') between them.
CREATE FUNCTION proctape_concat(joined text, value text, sep text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT CASE WHEN value IS NULL THEN joined WHEN joined IS NULL THEN value
                    ELSE joined || sep || value END $$;
CREATE FUNCTION proctape_concat(joined text, value text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT proctape_concat(joined, value, ',') $$;
CREATE AGGREGATE group_concat(text) (SFUNC = proctape_concat, STYPE = text);
CREATE AGGREGATE group_concat(text, text) (SFUNC = proctape_concat, STYPE = text);

-- date(SECONDS, 'unixepoch'), as SQLite's: the UTC date, YYYY-MM-DD.
CREATE FUNCTION date(seconds bigint, modifier text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT CASE WHEN modifier = 'unixepoch'
                    THEN to_char(to_timestamp(seconds) AT TIME ZONE 'UTC', 'YYYY-MM-DD') END $$;

-- The bytes a CSV cell holds escaped (printable ASCII as is, every other
-- byte and '\' as \xNN): what a BLOB column of the CSV loads as. A cell of
-- bytes below 0x80 (nearly all of /proc) is read by PostgreSQL's JSON
-- parser (\xNN as \u00NN; a NUL, which JSON text cannot hold, and '\'
-- left to bytea's escape format as \000 and \\): ten times the speed of
-- the general case, a regular expression per escape.
CREATE FUNCTION proctape_ascii_bytes(escaped text) RETURNS bytea
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT decode(('"' || replace(replace(replace(replace(replace(
                         escaped, '"', '\u0022'), '\x', '\u00'),
                         '\u005c', '\\\\'), '\u005C', '\\\\'), '\u0000', '\\000') || '"')
                      ::json #>> '{}', 'escape') $$;
CREATE FUNCTION proctape_bytes(escaped text) RETURNS bytea
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT CASE
    WHEN escaped ~ '\\x[89a-fA-F]' THEN
      (SELECT coalesce(string_agg(CASE WHEN m[1] IS NULL THEN convert_to(m[2], 'UTF8')
                                       ELSE decode(m[1], 'hex') END, ''::bytea ORDER BY n),
                       ''::bytea)
       FROM regexp_matches(escaped, '\\x([0-9a-fA-F]{2})|([^\\]+)', 'g')
            WITH ORDINALITY AS r(m, n))
    ELSE proctape_ascii_bytes(escaped)
    END $$;
)pg";

// "a, b, c", or with `staged` each with its type in a staging table.
std::string ColumnList(const SchemaTable& t, bool staged) {
  std::string out;
  for (const SchemaColumn& c : t.columns) {
    if (!out.empty()) out += ", ";
    out += c.name;
    if (staged) {
      out += ' ';
      out += TypeOf(c.type, /*staged=*/true);
    }
  }
  return out;
}

bool KeyedByFile(const SchemaTable& t) {
  return !t.columns.empty() && t.columns.front().name == "file_id";
}

// The staging tables (the CSV's columns: a BLOB as its escaped text) and
// proctape_merge(), which moves their rows into the tables.
std::string Staging(const std::vector<SchemaTable>& tables) {
  std::string out =
      "\n-- The CSV of `export --format csv` (docs/sql.md, \"Into PostgreSQL: a fleet's\n"
      "-- captures in one database\") is copied into these, in one transaction\n"
      "-- with proctape_merge(), which moves the rows of every file not loaded yet\n"
      "-- into the tables above and empties them. A transaction sees only its own\n"
      "-- staged rows: loads may run side by side.\n"
      "CREATE SCHEMA " +
      std::string(kStaging) + ";\n";
  for (const SchemaTable& t : tables) {
    out += "CREATE UNLOGGED TABLE " + std::string(kStaging) + "." + t.name + " (" +
           ColumnList(t, /*staged=*/true) + ");\n";
  }
  out +=
      "\n-- Returns how many files it added. A file without sha256 (read from a pipe)\n"
      "-- cannot be keyed: refused, the transaction with it.\n"
      "CREATE FUNCTION proctape_merge() RETURNS bigint LANGUAGE plpgsql AS $$\n"
      "DECLARE\n  added bigint;\nBEGIN\n"
      "  IF EXISTS (SELECT FROM " +
      std::string(kStaging) +
      ".files WHERE sha256 IS NULL) THEN\n"
      "    RAISE EXCEPTION 'proctape_merge: a file without sha256 (read from a pipe) "
      "cannot be keyed';\n"
      "  END IF;\n"
      "  IF to_regclass('pg_temp.proctape_ids') IS NOT NULL THEN\n"
      "    DROP TABLE pg_temp.proctape_ids;  -- a merge before in this transaction\n"
      "  END IF;\n"
      "  -- Each file not loaded yet (the first of a sha256 staged twice): its file_id.\n"
      "  CREATE TEMP TABLE proctape_ids ON COMMIT DROP AS\n"
      "    SELECT staged, nextval('files_file_id_seq') AS file_id FROM (\n"
      "      SELECT DISTINCT ON (s.sha256) s.file_id AS staged FROM " +
      std::string(kStaging) +
      ".files s\n"
      "      WHERE NOT EXISTS (SELECT FROM files f WHERE f.sha256 = s.sha256)\n"
      "      ORDER BY s.sha256, s.file_id) n\n"
      "    ORDER BY staged;\n"
      "  added := (SELECT COUNT(*) FROM proctape_ids);\n";
  for (const SchemaTable& t : tables) {
    std::string values;
    for (const SchemaColumn& c : t.columns) {
      if (!values.empty()) values += ", ";
      if (c.name == "file_id" && KeyedByFile(t)) {
        values += "i.file_id";
      } else {
        values += c.type == "BLOB" ? "proctape_bytes(s." + c.name + ")" : "s." + c.name;
      }
    }
    out += "  INSERT INTO " + t.name + " (" + ColumnList(t, /*staged=*/false) + ")\n    SELECT " +
           values + "\n    FROM " + std::string(kStaging) + "." + t.name + " s" +
           (KeyedByFile(t) ? " JOIN proctape_ids i ON i.staged = s.file_id;\n"
                           : "\n    ON CONFLICT DO NOTHING;\n");
  }
  for (const SchemaTable& t : tables) {
    out += "  DELETE FROM " + std::string(kStaging) + "." + t.name + ";\n";
  }
  out += "  RETURN added;\nEND $$;\n";
  return out;
}

}  // namespace

std::vector<SchemaTable> SchemaTables() {
  std::vector<SchemaTable> out;
  const std::string code = CodeOf(kSchema);
  constexpr std::string_view kCreate = "CREATE TABLE ";
  for (std::size_t at = code.find(kCreate); at != std::string::npos;
       at = code.find(kCreate, at + 1)) {
    const std::size_t open = code.find('(', at);
    if (open == std::string::npos) break;
    SchemaTable t{
        Trim(std::string_view(code).substr(at + kCreate.size(), open - at - kCreate.size())), {}};
    int depth = 0;
    std::size_t piece = open + 1;
    for (std::size_t i = open; i < code.size(); ++i) {
      if (code[i] == '(') ++depth;
      const bool last = code[i] == ')' && --depth == 0;
      if (!last && !(code[i] == ',' && depth == 1)) continue;
      const std::string def = Trim(std::string_view(code).substr(piece, i - piece));
      piece = i + 1;
      const std::size_t space = def.find_first_of(" \t\n");
      const std::string name = def.substr(0, space);
      if (name != "PRIMARY" && name != "UNIQUE" && name != "FOREIGN" && name != "CHECK" &&
          name != "CONSTRAINT" && space != std::string::npos) {
        const std::string rest = Trim(std::string_view(def).substr(space));
        t.columns.push_back({name, rest.substr(0, rest.find_first_of(" \t\n"))});
      }
      if (last) break;
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::string SqliteSchema() { return kSchema; }

std::string PostgresqlSchema() {
  return "-- SPDX-License-Identifier: Apache-2.0\n"
         "-- analyze/sql/schema.sql in PostgreSQL's dialect (`proctape sql --schema\n"
         "-- postgresql`; docs/sql.md, \"Into PostgreSQL: a fleet's captures in one\n"
         "-- database\"): the same tables, columns, views and indexes; INTEGER is\n"
         "-- bigint, BLOB bytea (the same bytes).\n"
         "-- Run it once, in an empty database.\n\n" +
         TranslatedSchema() + kAdditions + Staging(SchemaTables());
}

}  // namespace proctape::sql
