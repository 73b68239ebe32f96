-- Foundation schema: the knowledge graph of one memory context.
-- Times are milliseconds since the Unix epoch.

CREATE TABLE entities (
  id               INTEGER PRIMARY KEY,
  name             TEXT    NOT NULL UNIQUE,
  entity_type      TEXT    NOT NULL,
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL,
  last_accessed_at INTEGER,
  access_count     INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE observations (
  id         INTEGER PRIMARY KEY,
  entity_id  INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  content    TEXT    NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (entity_id, content)
);

CREATE TABLE relations (
  id            INTEGER PRIMARY KEY,
  from_id       INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  to_id         INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  relation_type TEXT    NOT NULL,
  created_at    INTEGER NOT NULL,
  UNIQUE (from_id, to_id, relation_type)
);

-- UNIQUE (from_id, ...) already serves lookups by from_id; graph walks in
-- the other direction need this one.
CREATE INDEX relations_by_to ON relations (to_id);
