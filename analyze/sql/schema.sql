-- SPDX-License-Identifier: Apache-2.0
-- The tables of `proctape sql` (docs/sql.md, "Tables"): one
-- database for one or many .ptape files. Raw /proc bytes are BLOBs exactly as
-- recorded; the *_text columns are the same bytes escaped as every view
-- escapes them (a byte outside printable ASCII as \xNN).
CREATE TABLE files (
  file_id INTEGER PRIMARY KEY,   -- 1, 2, ... in the order given
  path TEXT NOT NULL,            -- as given on the command line, escaped
  sha256 TEXT,                   -- of the file's bytes (NULL: read from standard input)
  entry TEXT,                    -- the corpus entry naming it in the MANIFEST beside it
  scenario TEXT,                 -- that entry's scenario: how it was captured
  command_line TEXT,             -- the header's: the command that wrote it, escaped
  format_version INTEGER,
  tool_version TEXT,
  hostname TEXT, kernel TEXT,
  boot_id TEXT,                  -- as read, without its newline
  capture_start_mono_ns INTEGER, capture_start_realtime_ns INTEGER,
  capture_end_mono_ns INTEGER,   -- the footer's (NULL: no footer)
  environ_redacted INTEGER,      -- 1: environ values stored as '*'
  bytes INTEGER,                 -- bytes of the file read
  damage TEXT                    -- NULL: intact; else the first damage, as verify says it
);
CREATE TABLE frames (
  file_id INTEGER NOT NULL REFERENCES files,
  frame INTEGER NOT NULL,        -- its index, from 0
  scan_start_mono_ns INTEGER, scan_end_mono_ns INTEGER,
  complete INTEGER, cut_by_bounds INTEGER,
  processes INTEGER
);
CREATE TABLE processes (
  file_id INTEGER NOT NULL REFERENCES files,
  frame INTEGER NOT NULL,
  pid INTEGER NOT NULL,          -- the /proc directory's name
  ppid INTEGER, pgrp INTEGER, sid INTEGER,   -- stat fields 4-6 (NULL: stat did not parse)
  start_ticks INTEGER,           -- stat field 22
  state TEXT,                    -- stat field 3
  comm TEXT,                     -- stat field 2, escaped
  uid INTEGER,                   -- status Uid: (real)
  nspid TEXT,                    -- status NSpid:, its pids space-separated ("4103 7": host, then each inner namespace)
  threads INTEGER,               -- status Threads:
  exe_dev INTEGER, exe_ino INTEGER, exe_err INTEGER,
  pid_ns_inode INTEGER,
  argv TEXT,                     -- cmdline's elements escaped, joined by one space
  cmdline BLOB, environ BLOB, stat BLOB, status BLOB, cgroup BLOB,  -- as recorded
  cgroup_text TEXT,
  stat_err INTEGER, cmdline_err INTEGER, environ_err INTEGER, status_err INTEGER, cgroup_err INTEGER,
  cmdline_truncated INTEGER, environ_truncated INTEGER
);
CREATE TABLE observations (
  file_id INTEGER NOT NULL REFERENCES files,
  idx INTEGER NOT NULL,          -- position in the tape, from 0
  call TEXT NOT NULL,            -- list_pids, read_file, exe_identity, path_identity, now, sleep_until
  pid INTEGER, file TEXT,        -- read_file, exe_identity
  err INTEGER, bytes INTEGER, truncated INTEGER,
  mono_ns INTEGER                -- when the call returned
);
CREATE TABLE resolutions (
  file_id INTEGER NOT NULL REFERENCES files,
  idx INTEGER NOT NULL,          -- the recorded check, from 0
  kind TEXT NOT NULL,            -- resolve, liveness
  root_pid INTEGER, root_start_ticks INTEGER, argv TEXT, token_var TEXT,   -- resolve's request
  exe_path TEXT, exe_dev INTEGER, exe_ino INTEGER,   -- the executable it expects, by identity
  liveness_pid INTEGER, liveness_start_ticks INTEGER,
  status TEXT,                   -- RESOLVED, NO_MATCH, ...; ALIVE, DEAD, ERROR
  reason TEXT,                   -- a liveness ERROR's
  pid INTEGER, start_ticks INTEGER,          -- RESOLVED's identity
  subject_pid INTEGER,           -- a failure's (NULL: it names none)
  attempts INTEGER, bytes_read INTEGER,
  detail TEXT,
  first_observation INTEGER, observation_count INTEGER,
  start_mono_ns INTEGER, end_mono_ns INTEGER
);
-- The errno numbers of the columns above and their names (this C library's):
-- what errno_name(N) says, for a tool that reads a saved database without it.
CREATE TABLE errnos (
  err INTEGER PRIMARY KEY,
  name TEXT NOT NULL             -- ENOENT, ESRCH, EACCES, ...
);
-- One process, by (pid, start tick), across the frames that hold it.
CREATE VIEW process_lifetimes AS
  SELECT file_id, pid, start_ticks, MIN(frame) AS first_frame, MAX(frame) AS last_frame,
         COUNT(*) AS frames
  FROM processes WHERE start_ticks IS NOT NULL GROUP BY file_id, pid, start_ticks;
-- A pid held by two processes: the earlier one and the one that took it.
CREATE VIEW pid_reuse AS
  SELECT a.file_id, a.pid, a.start_ticks AS earlier_start_ticks, a.last_frame AS earlier_last_frame,
         b.start_ticks AS later_start_ticks, b.first_frame AS later_first_frame
  FROM process_lifetimes a JOIN process_lifetimes b
    ON a.file_id = b.file_id AND a.pid = b.pid AND b.start_ticks > a.start_ticks;
-- Parent -> child, per frame: ppid as stat gives it (0 for pid 1 and the
-- kernel's threads; a parent the frame does not hold when the scan did not
-- reach it).
CREATE VIEW tree_edges AS
  SELECT file_id, frame, ppid AS parent, pid AS child FROM processes WHERE ppid IS NOT NULL;
-- @indexes: created once every file is loaded (building an index once is
-- faster than keeping it up row by row). Each says what is unique.
CREATE UNIQUE INDEX frames_key ON frames (file_id, frame);
CREATE INDEX processes_by_pid ON processes (file_id, pid, start_ticks);
CREATE UNIQUE INDEX observations_key ON observations (file_id, idx);
CREATE UNIQUE INDEX resolutions_key ON resolutions (file_id, idx);
