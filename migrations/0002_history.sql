-- Change history: one row per write call, with who made it and how to undo it.
-- Written only through src/history (the recorder), in the same transaction as
-- the change itself.

-- seq is AUTOINCREMENT so a number is never reused, even after retention
-- trims every row: an undo or a note naming "#42" can never point at a
-- different change later.
CREATE TABLE changes (
  seq       INTEGER PRIMARY KEY AUTOINCREMENT,
  at        INTEGER NOT NULL,
  caller    TEXT    NOT NULL,
  session   TEXT,
  tool      TEXT    NOT NULL,
  summary   TEXT    NOT NULL,
  -- The undo change that reverted this one, while that undo is in effect.
  undone_by INTEGER,
  -- For an undo change: JSON array of the seqs it reverted.
  undoes    TEXT
);
CREATE INDEX changes_by_caller ON changes (caller, seq);
CREATE INDEX changes_by_at ON changes (at);

-- The items a change touched (`entity:<name>`, later `file:<path>`, `doc:<id>`).
CREATE TABLE change_items (
  item TEXT    NOT NULL,
  seq  INTEGER NOT NULL,
  PRIMARY KEY (item, seq)
) WITHOUT ROWID;
CREATE INDEX change_items_by_seq ON change_items (seq);

-- The inverse of a change: a JSON array of inverse ops per part, parts in
-- write order. Split in parts because one change (deleting a large entity)
-- can outgrow the 2 MB row limit.
CREATE TABLE change_inverse (
  seq  INTEGER NOT NULL,
  part INTEGER NOT NULL,
  ops  TEXT    NOT NULL,
  PRIMARY KEY (seq, part)
) WITHOUT ROWID;
