-- The documents' full-text index is rebuilt for a row only when its indexed
-- text changes. 0005's trigger fired on an UPDATE of any column, so every
-- read_document (access tracking updates the priority columns, 0006) deleted
-- and re-inserted the document in documents_fts.
DROP TRIGGER documents_fts_update;
CREATE TRIGGER documents_fts_update AFTER UPDATE OF seq, title, content, search_cjk ON documents BEGIN
  INSERT INTO documents_fts (documents_fts, rowid, title, content, search_cjk)
  VALUES ('delete', old.seq, old.title, old.content, old.search_cjk);
  INSERT INTO documents_fts (rowid, title, content, search_cjk) VALUES (new.seq, new.title, new.content, new.search_cjk);
END;
