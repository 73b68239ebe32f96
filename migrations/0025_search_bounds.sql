-- Ranking computes each entity's priority part of the factor (√priority,
-- src/search/score.ts) only for entities that could still enter a result:
-- the others are excluded by their connection × recency times an upper
-- bound of √priority over the whole context (src/search/rank.ts). This index
-- makes that bound one lookup: the largest time-free priority bound
-- (src/priority/model.ts PRIORITY_BOUND_SQL; a test holds this text to it).
CREATE INDEX search_priority_bound ON entities ((1.0 + max(0, uses)) * (CASE WHEN important = 1 THEN 2.0 ELSE 1.0 END) * (CASE WHEN last_accessed_at IS NULL THEN 1.0 ELSE 1.5 END) * (CASE WHEN cluster_size >= 1 THEN 1.25 ELSE 1.0 END) * min(2.0, max(0.0, base_relevance)));
