-- Ranking computes each entity's factor (connection × recency × √priority,
-- src/search/score.ts) only for entities that could still enter a result:
-- the others are excluded by an upper bound of the factor over the whole
-- context (src/search/rank.ts). These two indexes make that bound one
-- lookup each: the largest degree, and the largest time-free priority bound
-- (src/priority/model.ts PRIORITY_BOUND_SQL; a test holds this text to it).
-- The degree index also serves the walk's hubs (src/search/walk.ts), so the
-- partial index that did (0010) goes: one index on degree, not two.
DROP INDEX search_hubs;
CREATE INDEX search_degree ON search_entity_stats (degree);
CREATE INDEX search_priority_bound ON entities ((1.0 + max(0, uses)) * (CASE WHEN important = 1 THEN 2.0 ELSE 1.0 END) * (CASE WHEN last_accessed_at IS NULL THEN 1.0 ELSE 1.5 END) * (CASE WHEN cluster_size >= 1 THEN 1.25 ELSE 1.0 END) * min(2.0, max(0.0, base_relevance)));
