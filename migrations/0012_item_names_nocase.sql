-- Completion (completion/complete) and the brief (memory://brief).
--
-- Completion matches an item's name, path or id by prefix, ignoring ASCII
-- case: a range scan on these NOCASE indexes (src/priority/complete.ts), so
-- a prefix never reads the whole table.
CREATE INDEX entities_by_name_nocase ON entities (name COLLATE NOCASE);
CREATE INDEX files_by_path_nocase ON files (path COLLATE NOCASE);
CREATE INDEX documents_by_id_nocase ON documents (id COLLATE NOCASE);

-- The brief lists the items marked important first: few rows, found without
-- a scan. Partial, so the marks cost nothing on the unmarked majority.
CREATE INDEX entities_important ON entities (uses) WHERE important = 1;
CREATE INDEX files_important ON files (uses) WHERE important = 1;
CREATE INDEX documents_important ON documents (uses) WHERE important = 1;
