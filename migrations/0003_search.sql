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

-- What the score reads per candidate entity, kept by the triggers below so a
-- search reads one small row instead of counting observations and relations
-- (counting observations walks an index that holds their whole text).
-- degree counts relation ends: a relation to itself counts twice.
CREATE TABLE search_entity_stats (
  entity_id    INTEGER PRIMARY KEY,
  observations INTEGER NOT NULL,
  degree       INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
);

CREATE TRIGGER search_entity_insert AFTER INSERT ON entities BEGIN
  INSERT INTO search_dirty (doc, indexed) VALUES (-new.id, 0) ON CONFLICT DO NOTHING;
  INSERT INTO search_entity_stats (entity_id, observations, degree, updated_at) VALUES (new.id, 0, 0, new.updated_at)
    ON CONFLICT DO UPDATE SET observations = 0, degree = 0, updated_at = excluded.updated_at;
END;
CREATE TRIGGER search_entity_update AFTER UPDATE OF name, entity_type ON entities BEGIN
  INSERT INTO search_dirty (doc, indexed) VALUES (-old.id, 1) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER search_entity_touch AFTER UPDATE OF updated_at ON entities BEGIN
  UPDATE search_entity_stats SET updated_at = new.updated_at WHERE entity_id = new.id;
END;
CREATE TRIGGER search_entity_delete AFTER DELETE ON entities BEGIN
  INSERT INTO search_dirty (doc, indexed) VALUES (-old.id, 1) ON CONFLICT DO NOTHING;
  DELETE FROM search_entity_stats WHERE entity_id = old.id;
END;

CREATE TRIGGER search_observation_insert AFTER INSERT ON observations BEGIN
  INSERT INTO search_dirty (doc, indexed) VALUES (new.id, 0) ON CONFLICT DO NOTHING;
  UPDATE search_entity_stats SET observations = observations + 1 WHERE entity_id = new.entity_id;
END;
CREATE TRIGGER search_observation_update AFTER UPDATE OF content, entity_id ON observations BEGIN
  INSERT INTO search_dirty (doc, indexed) VALUES (old.id, 1) ON CONFLICT DO NOTHING;
  UPDATE search_entity_stats SET observations = observations - 1 WHERE entity_id = old.entity_id;
  UPDATE search_entity_stats SET observations = observations + 1 WHERE entity_id = new.entity_id;
END;
CREATE TRIGGER search_observation_delete AFTER DELETE ON observations BEGIN
  INSERT INTO search_dirty (doc, indexed) VALUES (old.id, 1) ON CONFLICT DO NOTHING;
  UPDATE search_entity_stats SET observations = observations - 1 WHERE entity_id = old.entity_id;
END;

CREATE TRIGGER search_relation_insert AFTER INSERT ON relations BEGIN
  UPDATE search_entity_stats SET degree = degree + 1 WHERE entity_id = new.from_id;
  UPDATE search_entity_stats SET degree = degree + 1 WHERE entity_id = new.to_id;
END;
CREATE TRIGGER search_relation_update AFTER UPDATE OF from_id, to_id ON relations BEGIN
  UPDATE search_entity_stats SET degree = degree - 1 WHERE entity_id = old.from_id;
  UPDATE search_entity_stats SET degree = degree - 1 WHERE entity_id = old.to_id;
  UPDATE search_entity_stats SET degree = degree + 1 WHERE entity_id = new.from_id;
  UPDATE search_entity_stats SET degree = degree + 1 WHERE entity_id = new.to_id;
END;
CREATE TRIGGER search_relation_delete AFTER DELETE ON relations BEGIN
  UPDATE search_entity_stats SET degree = degree - 1 WHERE entity_id = old.from_id;
  UPDATE search_entity_stats SET degree = degree - 1 WHERE entity_id = old.to_id;
END;

-- Backfill: count what the context already holds, and queue every document;
-- the object indexes the queue right after migrating.
INSERT INTO search_entity_stats (entity_id, observations, degree, updated_at)
SELECT e.id,
  (SELECT count(*) FROM observations o WHERE o.entity_id = e.id),
  (SELECT count(*) FROM relations r WHERE r.from_id = e.id) + (SELECT count(*) FROM relations r WHERE r.to_id = e.id),
  e.updated_at
FROM entities e;
INSERT INTO search_dirty (doc, indexed) SELECT -id, 0 FROM entities;
INSERT INTO search_dirty (doc, indexed) SELECT id, 0 FROM observations;
