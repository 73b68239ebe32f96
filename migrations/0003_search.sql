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
-- Keeping them current: triggers on entities and observations record the
-- changed documents in search_dirty, and the object applies that queue to
-- both indexes at the end of the same transaction (src/search/indexer.ts).
-- FTS5 is written with a few multi-row statements per transaction instead of
-- from per-row triggers, which measured several times slower (FTS5 flushes
-- its buffer at every nested statement savepoint).

CREATE VIRTUAL TABLE search_words USING fts5(
  text, alt, content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE VIRTUAL TABLE search_grams USING fts5(
  text, content = '', contentless_delete = 1,
  tokenize = 'trigram remove_diacritics 1'
);

-- doc: the document's rowid in both indexes. indexed = 1 when the index may
-- hold an older version of it that must be removed first.
CREATE TABLE search_dirty (doc INTEGER PRIMARY KEY, indexed INTEGER NOT NULL);

CREATE TRIGGER search_entity_insert AFTER INSERT ON entities BEGIN
  INSERT INTO search_dirty (doc, indexed) VALUES (-new.id, 0) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER search_entity_update AFTER UPDATE OF name, entity_type ON entities BEGIN
  INSERT INTO search_dirty (doc, indexed) VALUES (-old.id, 1) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER search_entity_delete AFTER DELETE ON entities BEGIN
  INSERT INTO search_dirty (doc, indexed) VALUES (-old.id, 1) ON CONFLICT DO NOTHING;
END;

CREATE TRIGGER search_observation_insert AFTER INSERT ON observations BEGIN
  INSERT INTO search_dirty (doc, indexed) VALUES (new.id, 0) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER search_observation_update AFTER UPDATE OF content, entity_id ON observations BEGIN
  INSERT INTO search_dirty (doc, indexed) VALUES (old.id, 1) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER search_observation_delete AFTER DELETE ON observations BEGIN
  INSERT INTO search_dirty (doc, indexed) VALUES (old.id, 1) ON CONFLICT DO NOTHING;
END;

-- Backfill: queue everything the context already holds; the object indexes
-- the queue right after migrating.
INSERT INTO search_dirty (doc, indexed) SELECT -id, 0 FROM entities;
INSERT INTO search_dirty (doc, indexed) SELECT id, 0 FROM observations;
