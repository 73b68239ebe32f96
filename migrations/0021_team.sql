-- A team's memory (docs/team.md): who wrote each observation, whose token
-- made each change, what each reader saw last, and the webhooks.
--
-- `written_by` is the writer's attribution as memory_history shows it (a
-- token's name, "<token> via <client>" for OAuth, admin, local or system);
-- the time is the row's `created_at`. Rows written before this migration
-- keep NULL: reads then look the writer up in history (src/graph/provenance.ts).
ALTER TABLE observations ADD COLUMN written_by TEXT;
ALTER TABLE superseded_observations ADD COLUMN written_by TEXT;

-- The API token behind a change: the token's id, also for a change made
-- through an OAuth grant (its consenting token). NULL for admin, local,
-- system and changes made before this column. "Changed since your last
-- look" leaves out a reader's own changes by it.
ALTER TABLE changes ADD COLUMN token_id TEXT;

-- Per reader (a token's id, else admin or local): the last seq it saw in
-- memory://brief or the brief prompt.
CREATE TABLE brief_seen (
  reader TEXT PRIMARY KEY,
  seq    INTEGER NOT NULL
) STRICT;

-- Webhooks (src/history/webhooks.ts): each delivers every change after
-- `delivered_seq`, in seq order, as `context` (the name it was added under).
-- `secret` is kept raw: an HMAC needs it.
-- `failing_since` is the first failed attempt of the current streak;
-- `failing` is set once that streak passed the give-up window, and then
-- nothing more is delivered.
CREATE TABLE webhooks (
  id            TEXT    PRIMARY KEY,
  context       TEXT    NOT NULL,
  url           TEXT    NOT NULL,
  secret        TEXT    NOT NULL,
  created_at    INTEGER NOT NULL,
  delivered_seq INTEGER NOT NULL,
  attempts      INTEGER NOT NULL DEFAULT 0,
  next_at       INTEGER,
  failing_since INTEGER,
  failing       INTEGER NOT NULL DEFAULT 0 CHECK (failing IN (0, 1)),
  failures      INTEGER NOT NULL DEFAULT 0,
  last_status   TEXT,
  last_at       INTEGER
) STRICT;
