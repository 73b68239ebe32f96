-- Search indexes (src/search/). Two FTS5 indexes over entity names, types and
-- observations. One FTS row per indexed document:
--   rowid = observation id   for an observation,
--   rowid = -entity id       for an entity's name and type.
--
-- search_words: porter-stemmed words (unicode61, diacritics removed). Columns:
--   name, type  the entity's name and type (name rows only)
--   body        the observation's text (observation rows only)
--   alt         the row's text with '-' and '_' removed, so "docker-compose"
--               is also found as "dockercompose" (only when the text has them)
--   cjk         overlapping bigrams of CJK runs (Han, kana, Hangul), which
--               unicode61 would otherwise keep as one long token
--   eid         the entity id (not indexed)
-- search_grams: trigrams of names and observations, for substrings.
--
-- Keeping them current: triggers on entities and observations record the
-- changed documents in search_dirty, and the object applies that queue to
-- both indexes at the end of the same transaction (src/search/indexer.ts).
-- FTS5 is written once per transaction instead of once per row because it
-- flushes its buffer at every statement savepoint, so writing it from per-row
-- triggers costs several times more (measured with 50,000 observations).

CREATE TABLE search_seq (n INTEGER PRIMARY KEY);
WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 16384)
INSERT INTO search_seq (n) SELECT n FROM s;

CREATE VIRTUAL TABLE search_words USING fts5(
  name, type, body, alt, cjk, eid UNINDEXED,
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
