-- Superseded facts and as-of reads (docs/graph.md, docs/history.md).
--
-- An observation's validity: it holds from `observations.created_at` (the
-- time it was added, which every row has had since 0001) until it is
-- superseded by update_observation. A superseded observation moves here, out
-- of `observations`, keeping its id, text and added time plus the time it
-- stopped holding. So every reader of `observations` (search index, counts,
-- export, read_graph) keeps seeing only what holds now, with no filter, and
-- one text can be superseded more than once ("Paris" -> "Berlin" -> "Paris"
-- -> "Rome" keeps two superseded "Paris" rows).
CREATE TABLE superseded_observations (
  id            INTEGER PRIMARY KEY,
  entity_id     INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  content       TEXT    NOT NULL,
  created_at    INTEGER NOT NULL,
  superseded_at INTEGER NOT NULL
);
CREATE INDEX superseded_observations_by_entity ON superseded_observations (entity_id, superseded_at);

-- How far back the change log reaches: the time of the newest change that
-- retention trimmed (src/history/retention.ts). An as-of read earlier than
-- this cannot be reconstructed and is refused. One row; NULL while nothing
-- was trimmed. A context that had already lost changes to retention before
-- this migration starts from its oldest kept change (the trimmed ones' times
-- are gone), which is conservative: reads back to it are exact.
CREATE TABLE history_horizon (at INTEGER);
INSERT INTO history_horizon (at)
  SELECT CASE WHEN (SELECT MIN(seq) FROM changes) > 1 THEN (SELECT MIN(at) FROM changes) END;
