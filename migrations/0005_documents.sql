-- Working memory (src/documents/): a tree of markdown documents per context,
-- grown from one root by [[id]] links. Times are milliseconds since the epoch.
--
-- documents: one row per document.
--   seq        stable integer rowid for the FTS index (content_rowid)
--   id         the document id, [a-zA-Z0-9_-]{1,128}; 'root' is the root
--   parent_id  the one document whose content links this one; NULL for root.
--              Invariant: d.parent_id = p.id exactly when p.content links [[d.id]].
--   title      first non-blank line of content without leading '#' (derived)
--   search_cjk CJK bigrams of content, so Japanese, Chinese and Korean text
--              can be searched by substring (derived; unicode61 keeps a whole
--              CJK run as one token)
-- The root row is created lazily with the configured ROOT_TEMPLATE by the
-- first documents call, so the deployment's template wins over any default.

CREATE TABLE documents (
  seq        INTEGER PRIMARY KEY,
  id         TEXT    NOT NULL UNIQUE,
  parent_id  TEXT    REFERENCES documents(id),
  title      TEXT    NOT NULL,
  content    TEXT    NOT NULL,
  search_cjk TEXT    NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE INDEX documents_by_parent ON documents (parent_id);

-- Full-text index over documents, with the graph search's tokenizer. External
-- content: the text lives once, in `documents`; the triggers keep the index
-- in the same transaction as every write, whichever code path makes it.
CREATE VIRTUAL TABLE documents_fts USING fts5(
  title, content, search_cjk,
  content = 'documents', content_rowid = 'seq',
  tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER documents_fts_insert AFTER INSERT ON documents BEGIN
  INSERT INTO documents_fts (rowid, title, content, search_cjk) VALUES (new.seq, new.title, new.content, new.search_cjk);
END;

CREATE TRIGGER documents_fts_delete AFTER DELETE ON documents BEGIN
  INSERT INTO documents_fts (documents_fts, rowid, title, content, search_cjk)
  VALUES ('delete', old.seq, old.title, old.content, old.search_cjk);
END;

CREATE TRIGGER documents_fts_update AFTER UPDATE ON documents BEGIN
  INSERT INTO documents_fts (documents_fts, rowid, title, content, search_cjk)
  VALUES ('delete', old.seq, old.title, old.content, old.search_cjk);
  INSERT INTO documents_fts (rowid, title, content, search_cjk) VALUES (new.seq, new.title, new.content, new.search_cjk);
END;
