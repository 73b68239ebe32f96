-- The size of each archive row's payload in bytes, written when the row is,
-- so memory_stats and the archive listing sum a column instead of reading
-- every payload (src/priority/stats.ts). Existing rows are measured once here.
ALTER TABLE archive ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
UPDATE archive SET bytes = length(CAST(payload AS BLOB));
