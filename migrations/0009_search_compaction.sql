-- Search index compaction (src/search/compact.ts): the alarm merges each FTS5
-- index's segments into one after a bulk write, in bounded steps.
-- compacting = 1 while a compaction is under way (it spans several alarm runs).
ALTER TABLE search_state ADD COLUMN compacting INTEGER NOT NULL DEFAULT 0;
