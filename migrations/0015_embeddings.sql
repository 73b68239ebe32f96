-- Semantic search (src/search/semantic/): one vector per memory item, and a
-- queue of items to (re)embed.
--
-- embed_state.model: the embedding model this context's vectors come from,
--   NULL when the deployment has no model (lexical mode). The object sets it
--   when it starts (src/search/semantic/queue.ts configureEmbedding).
-- embed_state.entity_wm, observation_wm: entities and observations with ids
--   up to these are in the queue or embedded; rows above them are new, and
--   the alarm adds their entities to the queue before it embeds (as the
--   search indexes find new rows, migrations/0003_search.sql), so appending
--   costs a write no trigger work.
-- embeddings: key = the item's key (entity:<name>, file:<path>, doc:<id>);
--   vec = int8 components (a BLOB of `dimensions` bytes), scale = the float
--   one unit stands for: component i is vec[i] * scale, the whole vector of
--   unit length.
-- embed_queue: items written since their vector was made. version counts the
--   writes while an item waits, so a batch whose item changed during the
--   model call is not stored over the newer text; queued_at is the first of
--   them (the lag memory_stats reports).
--
-- Keeping them right, in the same transaction as every write, whichever code
-- path makes it (calls, undo, import, the archive): new entity and
-- observation rows are found above the watermarks; the triggers below queue
-- every other write to an item when a model is set (rows inserted at or
-- below a watermark, as undo restores them under their old ids, updates,
-- deletes, files and documents); a delete drops its vector
-- and its place in the queue, so a search never finds a deleted item; a
-- rename moves the vector to the new key (and queues it, its text changed).
-- The object's alarm embeds the queue in batches, after the writes are
-- acknowledged: a write never waits for the model.

CREATE TABLE embed_state (
  model          TEXT,
  entity_wm      INTEGER NOT NULL,
  observation_wm INTEGER NOT NULL
);
INSERT INTO embed_state (model, entity_wm, observation_wm) VALUES (NULL, 0, 0);

CREATE TABLE embeddings (
  key        TEXT    PRIMARY KEY,
  model      TEXT    NOT NULL,
  scale      REAL    NOT NULL,
  vec        BLOB    NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE embed_queue (
  key       TEXT    PRIMARY KEY,
  queued_at INTEGER NOT NULL,
  version   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX embed_queue_by_age ON embed_queue (queued_at);

-- Entities: their name, type and observations make one text. A new entity above the watermark is found by the alarm.
CREATE TRIGGER embed_entity_insert AFTER INSERT ON entities
WHEN new.id <= (SELECT entity_wm FROM embed_state WHERE model IS NOT NULL) BEGIN
  INSERT INTO embed_queue (key, queued_at) VALUES ('entity:' || new.name, CAST(unixepoch('subsec') * 1000 AS INTEGER))
  ON CONFLICT (key) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER embed_entity_rename AFTER UPDATE OF name ON entities
WHEN old.name IS NOT new.name BEGIN
  DELETE FROM embeddings WHERE key = 'entity:' || new.name;
  UPDATE embeddings SET key = 'entity:' || new.name WHERE key = 'entity:' || old.name;
  DELETE FROM embed_queue WHERE key = 'entity:' || old.name;
END;
CREATE TRIGGER embed_entity_update AFTER UPDATE OF name, entity_type ON entities
WHEN (SELECT model FROM embed_state) IS NOT NULL BEGIN
  INSERT INTO embed_queue (key, queued_at) VALUES ('entity:' || new.name, CAST(unixepoch('subsec') * 1000 AS INTEGER))
  ON CONFLICT (key) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER embed_entity_delete AFTER DELETE ON entities BEGIN
  DELETE FROM embeddings WHERE key = 'entity:' || old.name;
  DELETE FROM embed_queue WHERE key = 'entity:' || old.name;
END;

-- An observation's entity is queued when its observations change (not when the entity goes: it is gone by then).
-- A new observation above the watermark is found by the alarm instead.
CREATE TRIGGER embed_observation_insert AFTER INSERT ON observations
WHEN new.id <= (SELECT observation_wm FROM embed_state WHERE model IS NOT NULL) BEGIN
  INSERT INTO embed_queue (key, queued_at)
  SELECT 'entity:' || name, CAST(unixepoch('subsec') * 1000 AS INTEGER) FROM entities WHERE id = new.entity_id
  ON CONFLICT (key) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER embed_observation_update AFTER UPDATE ON observations
WHEN (SELECT model FROM embed_state) IS NOT NULL BEGIN
  INSERT INTO embed_queue (key, queued_at)
  SELECT 'entity:' || name, CAST(unixepoch('subsec') * 1000 AS INTEGER) FROM entities WHERE id IN (old.entity_id, new.entity_id)
  ON CONFLICT (key) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER embed_observation_delete AFTER DELETE ON observations
WHEN (SELECT model FROM embed_state) IS NOT NULL BEGIN
  INSERT INTO embed_queue (key, queued_at)
  SELECT 'entity:' || name, CAST(unixepoch('subsec') * 1000 AS INTEGER) FROM entities WHERE id = old.entity_id
  ON CONFLICT (key) DO UPDATE SET version = version + 1;
END;

-- Files: path and content.
CREATE TRIGGER embed_file_insert AFTER INSERT ON files
WHEN (SELECT model FROM embed_state) IS NOT NULL BEGIN
  INSERT INTO embed_queue (key, queued_at) VALUES ('file:' || new.path, CAST(unixepoch('subsec') * 1000 AS INTEGER))
  ON CONFLICT (key) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER embed_file_rename AFTER UPDATE OF path ON files
WHEN old.path IS NOT new.path BEGIN
  DELETE FROM embeddings WHERE key = 'file:' || new.path;
  UPDATE embeddings SET key = 'file:' || new.path WHERE key = 'file:' || old.path;
  DELETE FROM embed_queue WHERE key = 'file:' || old.path;
END;
CREATE TRIGGER embed_file_update AFTER UPDATE OF path, content ON files
WHEN (SELECT model FROM embed_state) IS NOT NULL BEGIN
  INSERT INTO embed_queue (key, queued_at) VALUES ('file:' || new.path, CAST(unixepoch('subsec') * 1000 AS INTEGER))
  ON CONFLICT (key) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER embed_file_delete AFTER DELETE ON files BEGIN
  DELETE FROM embeddings WHERE key = 'file:' || old.path;
  DELETE FROM embed_queue WHERE key = 'file:' || old.path;
END;

-- Documents: title and content (a document's id never changes).
CREATE TRIGGER embed_document_insert AFTER INSERT ON documents
WHEN (SELECT model FROM embed_state) IS NOT NULL BEGIN
  INSERT INTO embed_queue (key, queued_at) VALUES ('doc:' || new.id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
  ON CONFLICT (key) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER embed_document_update AFTER UPDATE OF title, content ON documents
WHEN (SELECT model FROM embed_state) IS NOT NULL BEGIN
  INSERT INTO embed_queue (key, queued_at) VALUES ('doc:' || new.id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
  ON CONFLICT (key) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER embed_document_delete AFTER DELETE ON documents BEGIN
  DELETE FROM embeddings WHERE key = 'doc:' || old.id;
  DELETE FROM embed_queue WHERE key = 'doc:' || old.id;
END;
