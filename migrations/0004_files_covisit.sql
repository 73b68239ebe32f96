-- File-style memory and the co-visitation index (issue 4).
-- Times are milliseconds since the Unix epoch. Item keys are "<kind>:<name>":
-- entity:<name>, file:<path>, doc:<id>.

-- One row per file. Directories are implicit: a directory exists while a
-- file lies under it. Paths are normalised (src/files/path.ts): no leading,
-- trailing or repeated "/", no "." or ".." segments; "" is the root.
CREATE TABLE files (
  id         INTEGER PRIMARY KEY,
  path       TEXT    NOT NULL UNIQUE,
  content    TEXT    NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

-- A session: one caller's run of accesses under one key with no idle gap
-- longer than COVIS_SESSION_IDLE_MINUTES (src/covisit/session.ts).
CREATE TABLE covisit_sessions (
  id           INTEGER PRIMARY KEY,
  key          TEXT    NOT NULL UNIQUE,
  started_at   INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  accesses     INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX covisit_sessions_by_last_seen ON covisit_sessions (last_seen_at);

-- The items a session has touched (its last 100), in access order (seq).
CREATE TABLE covisit_session_items (
  session_id INTEGER NOT NULL,
  item       TEXT    NOT NULL,
  seq        INTEGER NOT NULL,
  PRIMARY KEY (session_id, item)
) STRICT, WITHOUT ROWID;
CREATE INDEX covisit_session_items_by_seq ON covisit_session_items (session_id, seq);
CREATE INDEX covisit_session_items_by_item ON covisit_session_items (item);

-- How many sessions used `item` and `other` together. Both directions are
-- stored, so "what goes with X" is one index range on item.
CREATE TABLE covisit_pairs (
  item       TEXT    NOT NULL,
  other      TEXT    NOT NULL,
  count      INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (item, other)
) STRICT, WITHOUT ROWID;
CREATE INDEX covisit_pairs_by_other ON covisit_pairs (other);
