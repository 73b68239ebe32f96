-- Search indexes (src/search/). Two FTS5 indexes over entity names, types and
-- observations. One FTS row per indexed document:
--   rowid = observation id   for an observation,
--   rowid = -entity id       for an entity's name and type.
--
-- search_words: porter-stemmed words (unicode61, diacritics removed),
--   contentless (the text lives in entities and observations). Columns:
--     text  the name and type, or the observation
--     alt   what unicode61 cannot derive by itself: camelCase parts,
--           joined compounds ("docker-compose" -> "dockercompose") and
--           bigrams of CJK runs (src/search/indexer.ts)
-- search_grams: trigrams of entity names and types, for substrings.
--
-- search_entity_stats: observation count, degree and last update per entity.
--
-- Keeping them current, in the same transaction as the rows (the object runs
-- src/search/indexer.ts at the end of every transaction):
-- - new rows are found by id above the watermarks in search_state, so
--   appending rows costs no trigger work;
-- - updates, deletes and inserts at or below a watermark (undo restores rows
--   under their old ids) are queued in search_dirty by the triggers below,
--   which also lower a watermark when the table's highest row is deleted,
--   since SQLite then hands that id out again.
-- FTS5 is written with a few multi-row statements per transaction, never from
-- triggers: it flushes its buffer at every nested statement savepoint, which
-- measured several times slower.

CREATE VIRTUAL TABLE search_words USING fts5(
  text, alt, content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE VIRTUAL TABLE search_grams USING fts5(
  text, content = '', contentless_delete = 1,
  tokenize = 'trigram remove_diacritics 1'
);

-- The graph walk reads relations by to_id for (to_id, from_id) pairs; this
-- index answers that without a table lookup per relation.
CREATE INDEX search_relations_by_to ON relations (to_id, from_id);

-- Rows with ids up to these are indexed and counted. They start at 0, so in
-- an existing context the object indexes and counts everything already
-- stored right after migrating.
CREATE TABLE search_state (
  entity_wm      INTEGER NOT NULL,
  observation_wm INTEGER NOT NULL,
  relation_wm    INTEGER NOT NULL
);
INSERT INTO search_state (entity_wm, observation_wm, relation_wm) VALUES (0, 0, 0);

-- doc: the document's rowid in both indexes. indexed = 1 when the index holds
-- a version of it that must be removed first.
CREATE TABLE search_dirty (doc INTEGER PRIMARY KEY, indexed INTEGER NOT NULL);

-- What the score reads per candidate entity, so a search reads one small row
-- instead of counting observations and relations (counting observations walks
-- an index that holds their whole text). degree counts relation ends: a
-- relation to itself counts twice.
CREATE TABLE search_entity_stats (
  entity_id    INTEGER PRIMARY KEY,
  observations INTEGER NOT NULL,
  degree       INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
);

-- Rows inserted at or below a watermark (undo restores rows under their old
-- ids) are queued like updates; rows above it cost no trigger work.
CREATE TRIGGER search_entity_insert AFTER INSERT ON entities
WHEN new.id <= (SELECT entity_wm FROM search_state) BEGIN
  INSERT INTO search_dirty (doc, indexed) VALUES (-new.id, 0) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER search_entity_update AFTER UPDATE OF name, entity_type ON entities BEGIN
  INSERT INTO search_dirty (doc, indexed)
  SELECT -old.id, old.id <= entity_wm FROM search_state WHERE true ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER search_entity_touch AFTER UPDATE OF updated_at ON entities BEGIN
  UPDATE search_entity_stats SET updated_at = new.updated_at WHERE entity_id = new.id;
END;
CREATE TRIGGER search_entity_delete AFTER DELETE ON entities BEGIN
  INSERT INTO search_dirty (doc, indexed)
  SELECT -old.id, old.id <= entity_wm FROM search_state WHERE true ON CONFLICT DO NOTHING;
  DELETE FROM search_entity_stats WHERE entity_id = old.id;
  UPDATE search_state SET entity_wm = old.id - 1
  WHERE entity_wm >= old.id AND NOT EXISTS (SELECT 1 FROM entities WHERE id > old.id);
END;

CREATE TRIGGER search_observation_insert AFTER INSERT ON observations
WHEN new.id <= (SELECT observation_wm FROM search_state) BEGIN
  INSERT INTO search_dirty (doc, indexed) VALUES (new.id, 0) ON CONFLICT DO NOTHING;
  UPDATE search_entity_stats SET observations = observations + 1 WHERE entity_id = new.entity_id;
END;
CREATE TRIGGER search_observation_update AFTER UPDATE OF content, entity_id ON observations BEGIN
  INSERT INTO search_dirty (doc, indexed)
  SELECT old.id, old.id <= observation_wm FROM search_state WHERE true ON CONFLICT DO NOTHING;
  UPDATE search_entity_stats SET observations = observations - 1
  WHERE entity_id = old.entity_id AND old.id <= (SELECT observation_wm FROM search_state);
  UPDATE search_entity_stats SET observations = observations + 1
  WHERE entity_id = new.entity_id AND old.id <= (SELECT observation_wm FROM search_state);
END;
CREATE TRIGGER search_observation_delete AFTER DELETE ON observations BEGIN
  INSERT INTO search_dirty (doc, indexed)
  SELECT old.id, old.id <= observation_wm FROM search_state WHERE true ON CONFLICT DO NOTHING;
  UPDATE search_entity_stats SET observations = observations - 1
  WHERE entity_id = old.entity_id AND old.id <= (SELECT observation_wm FROM search_state);
  UPDATE search_state SET observation_wm = old.id - 1
  WHERE observation_wm >= old.id AND NOT EXISTS (SELECT 1 FROM observations WHERE id > old.id);
END;

CREATE TRIGGER search_relation_insert AFTER INSERT ON relations
WHEN new.id <= (SELECT relation_wm FROM search_state) BEGIN
  UPDATE search_entity_stats SET degree = degree + 1 WHERE entity_id IN (new.from_id, new.to_id);
  UPDATE search_entity_stats SET degree = degree + 1 WHERE entity_id = new.from_id AND new.from_id = new.to_id;
END;
CREATE TRIGGER search_relation_update AFTER UPDATE OF from_id, to_id ON relations
WHEN old.id <= (SELECT relation_wm FROM search_state) BEGIN
  UPDATE search_entity_stats SET degree = degree - 1 WHERE entity_id = old.from_id;
  UPDATE search_entity_stats SET degree = degree - 1 WHERE entity_id = old.to_id;
  UPDATE search_entity_stats SET degree = degree + 1 WHERE entity_id = new.from_id;
  UPDATE search_entity_stats SET degree = degree + 1 WHERE entity_id = new.to_id;
END;
CREATE TRIGGER search_relation_delete AFTER DELETE ON relations BEGIN
  UPDATE search_entity_stats SET degree = degree - 1
  WHERE entity_id IN (old.from_id, old.to_id) AND old.id <= (SELECT relation_wm FROM search_state);
  UPDATE search_entity_stats SET degree = degree - 1
  WHERE entity_id = old.from_id AND old.from_id = old.to_id AND old.id <= (SELECT relation_wm FROM search_state);
  UPDATE search_state SET relation_wm = old.id - 1
  WHERE relation_wm >= old.id AND NOT EXISTS (SELECT 1 FROM relations WHERE id > old.id);
END;
