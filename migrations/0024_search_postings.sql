-- Ranking walks every document holding a query word and needs each one's
-- entity and length (src/search/rank.ts). Read from observations, that is a
-- lookup into rows that carry the whole text; this index holds just the
-- three values, so the walk reads a few small pages instead (measured about
-- 2.5 times faster per posting, docs/performance.md).
CREATE INDEX search_observation_owner ON observations (id, entity_id, length(content));
