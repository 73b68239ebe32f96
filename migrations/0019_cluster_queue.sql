-- Entities whose relations a bulk write changed, waiting for their cluster
-- to be counted again (src/priority/queue.ts, issue 27: loading a million
-- entities). A write call that changes the relations of more entities than
-- CLUSTER_INLINE_MAX appends their ids here, up to CLUSTER_SLICE per row (n
-- of them, as a JSON array), instead of counting each end's cluster in its
-- own transaction; the alarm counts them in bounded slices once writes
-- pause (or the oldest row has waited CLUSTER_MAX_LAG_MS), each entity once
-- however many rows name it. AUTOINCREMENT: a pass covers the rows up to the last seq it saw, so a
-- seq is never used twice.
CREATE TABLE cluster_queue (
  seq   INTEGER PRIMARY KEY AUTOINCREMENT,
  at    INTEGER NOT NULL,
  n     INTEGER NOT NULL,
  ids   TEXT    NOT NULL
);
