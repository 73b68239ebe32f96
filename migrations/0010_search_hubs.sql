-- The walk's hubs (src/search/walk.ts HUB_DEGREE): entities with more than 64
-- relations, in a partial index so a search reads them all (86 of 100,000 in
-- the bench's graph), with their degree, instead of looking up every
-- frontier node's degree.
-- The literal must match HUB_DEGREE: SQLite uses a partial index only for a
-- query whose WHERE implies the index's own.
CREATE INDEX search_hubs ON search_entity_stats (entity_id, degree) WHERE degree > 64;
