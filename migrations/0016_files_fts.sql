-- Full-text index over files (issue 22: recall ranks files beside entities
-- and documents), with the graph search's tokenizer. External content: the
-- text lives once, in `files`; the triggers keep the index in the same
-- transaction as every write, whichever code path makes it (writes, moves,
-- deletes, undo, import, restore). Paths are indexed too: unicode61 splits
-- "notes/billing-plan.md" into notes, billing, plan, md.
CREATE VIRTUAL TABLE files_fts USING fts5(
  path, content,
  content = 'files', content_rowid = 'id',
  tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER files_fts_insert AFTER INSERT ON files BEGIN
  INSERT INTO files_fts (rowid, path, content) VALUES (new.id, new.path, new.content);
END;

CREATE TRIGGER files_fts_delete AFTER DELETE ON files BEGIN
  INSERT INTO files_fts (files_fts, rowid, path, content) VALUES ('delete', old.id, old.path, old.content);
END;

-- Only when the indexed text changes: reads update the priority columns.
CREATE TRIGGER files_fts_update AFTER UPDATE OF id, path, content ON files BEGIN
  INSERT INTO files_fts (files_fts, rowid, path, content) VALUES ('delete', old.id, old.path, old.content);
  INSERT INTO files_fts (rowid, path, content) VALUES (new.id, new.path, new.content);
END;

-- The files stored before this migration.
INSERT INTO files_fts (files_fts) VALUES ('rebuild');
