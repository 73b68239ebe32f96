-- Access-based priority (src/priority/): every item (entity, file, document)
-- carries its use, category, importance mark, base relevance and tier;
-- pruned items move to `archive`, never a silent delete.
--
-- Existing rows keep what they had (entities' access_count and
-- last_accessed_at were already tracked) and start as category "general",
-- base relevance 1.0, not marked; their tier follows from their use.

-- uses: weighted retrievals (a direct read counts 1, a search hit less; see
-- src/priority/model.ts). access_count counts every retrieval.
-- cluster_size: related items (relations + co-visitation), refreshed when
-- the item is used and at each evaluation.
ALTER TABLE entities ADD COLUMN category TEXT NOT NULL DEFAULT 'general';
ALTER TABLE entities ADD COLUMN important INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entities ADD COLUMN base_relevance REAL NOT NULL DEFAULT 1.0;
ALTER TABLE entities ADD COLUMN tier TEXT NOT NULL DEFAULT 'short';
ALTER TABLE entities ADD COLUMN uses REAL NOT NULL DEFAULT 0;
ALTER TABLE entities ADD COLUMN cluster_size INTEGER NOT NULL DEFAULT 0;
UPDATE entities SET
  uses = access_count,
  tier = CASE WHEN access_count >= 5 THEN 'long' WHEN access_count > 0 THEN 'mid' ELSE 'short' END;
CREATE INDEX entities_by_tier_category ON entities (tier, category);

ALTER TABLE files ADD COLUMN access_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE files ADD COLUMN last_accessed_at INTEGER;
ALTER TABLE files ADD COLUMN category TEXT NOT NULL DEFAULT 'general';
ALTER TABLE files ADD COLUMN important INTEGER NOT NULL DEFAULT 0;
ALTER TABLE files ADD COLUMN base_relevance REAL NOT NULL DEFAULT 1.0;
ALTER TABLE files ADD COLUMN tier TEXT NOT NULL DEFAULT 'short';
ALTER TABLE files ADD COLUMN uses REAL NOT NULL DEFAULT 0;
ALTER TABLE files ADD COLUMN cluster_size INTEGER NOT NULL DEFAULT 0;
CREATE INDEX files_by_tier_category ON files (tier, category);

ALTER TABLE documents ADD COLUMN access_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN last_accessed_at INTEGER;
ALTER TABLE documents ADD COLUMN category TEXT NOT NULL DEFAULT 'general';
ALTER TABLE documents ADD COLUMN important INTEGER NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN base_relevance REAL NOT NULL DEFAULT 1.0;
ALTER TABLE documents ADD COLUMN tier TEXT NOT NULL DEFAULT 'short';
ALTER TABLE documents ADD COLUMN uses REAL NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN cluster_size INTEGER NOT NULL DEFAULT 0;
CREATE INDEX documents_by_tier_category ON documents (tier, category);

-- Items the evaluation pruned. `payload` is the JSON needed to bring the
-- item back whole (an entity with its observations and relations, a file
-- with its content, a document with its content and place in the tree).
CREATE TABLE archive (
  id          INTEGER PRIMARY KEY,
  item        TEXT    NOT NULL,          -- entity:<name>, file:<path> or doc:<id>
  payload     TEXT    NOT NULL,
  priority    REAL    NOT NULL,          -- the priority it had when pruned
  reason      TEXT    NOT NULL,
  archived_at INTEGER NOT NULL
) STRICT;
CREATE INDEX archive_by_item ON archive (item);

-- This context's priority settings and state, one JSON value per key:
-- "capacity" (limits per tier and total, set through the contexts API) and
-- "last_evaluation" (when it ran, what it found and pruned).
CREATE TABLE priority_state (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT, WITHOUT ROWID;
