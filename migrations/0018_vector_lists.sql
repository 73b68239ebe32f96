-- An inverted-file (IVF) index over the semantic vectors of 0015, so a query
-- reads a few lists near it instead of every vector (src/search/semantic/ivf.ts).
--
-- vector_lists: one row per list of one model. centroid = float32
--   components (a BLOB of 4 × dimensions bytes), the mean direction of the
--   list's vectors when it was trained or split. size = how many vectors of
--   `embeddings` name this list. A small row: the triggers below update it on
--   every change to a member, and SQLite rewrites a whole row to do so.
-- vector_blocks: a list's block, a copy of its members in one row, so a
--   query hands one BLOB to JavaScript per list instead of one per vector
--   (a table of its own, so the counters' updates never rewrite it):
--   ids = float64 rowids of `embeddings`, scales =
--   float32, vecs = the int8 vectors end to end, all in rowid order, up to
--   rowid block_max. fresh = 1 while the block holds exactly the list's
--   members up to block_max as they are; any change to a member (delete, new
--   vector, moved to or from the list) sets it to 0 in the same transaction,
--   and a query then reads that list's rows instead. A new vector (a new row,
--   so a rowid above every block_max: a lower one would reuse a deleted
--   member's, whose list is stale already) leaves the block fresh and counts
--   in `tail`: a query reads the block and the members above block_max.
--   So a block can be late, never wrong; the alarm rebuilds it (a long tail too).
-- embeddings.list: the list a vector belongs to; NULL until the index has
--   lists (a context below the training threshold, a vector stored before
--   the lists were trained, an existing context's vectors before the alarm
--   assigns them). A query scans the NULL ones exactly.
--
-- Renames only change embeddings.key: the list and its block stay valid
-- (blocks name rowids, resolved to keys after the search).

ALTER TABLE embeddings ADD COLUMN list INTEGER;
CREATE INDEX embeddings_by_list ON embeddings (list);

CREATE TABLE vector_lists (
  id        INTEGER PRIMARY KEY,
  model     TEXT    NOT NULL,
  size      INTEGER NOT NULL DEFAULT 0,
  fresh     INTEGER NOT NULL DEFAULT 0,
  block_max INTEGER NOT NULL DEFAULT 0,
  tail      INTEGER NOT NULL DEFAULT 0,
  centroid  BLOB    NOT NULL
);

CREATE TABLE vector_blocks (
  list   INTEGER PRIMARY KEY,
  ids    BLOB NOT NULL,
  scales BLOB NOT NULL,
  vecs   BLOB NOT NULL
);

CREATE TRIGGER vector_list_drop AFTER DELETE ON vector_lists BEGIN
  DELETE FROM vector_blocks WHERE list = old.id;
END;
CREATE TRIGGER vector_list_insert AFTER INSERT ON embeddings
WHEN new.list IS NOT NULL BEGIN
  UPDATE vector_lists SET size = size + 1, tail = tail + 1 WHERE id = new.list;
END;
CREATE TRIGGER vector_list_delete AFTER DELETE ON embeddings
WHEN old.list IS NOT NULL BEGIN
  UPDATE vector_lists SET size = size - 1, fresh = 0 WHERE id = old.list;
END;
CREATE TRIGGER vector_list_update AFTER UPDATE OF vec, scale, list ON embeddings
WHEN old.list IS NOT NULL OR new.list IS NOT NULL BEGIN
  UPDATE vector_lists SET size = size - 1, fresh = 0 WHERE id = old.list;
  UPDATE vector_lists SET size = size + 1, fresh = 0 WHERE id = new.list;
END;
