-- Who made a change, as a stable id beside the name in `caller`: a token's id
-- (tok_...), else admin, local or system. A token name can be given to a new
-- token once the old one is revoked; an id never is, so "my changes" (undo{}
-- without a change number) means the changes with the caller's id.

ALTER TABLE changes ADD COLUMN caller_id TEXT;

-- The built-in callers' names are their ids (token names may not be admin,
-- local or system). A row a token wrote before this column existed keeps NULL:
-- which token of that name made it is not known, so it is no caller's own, and
-- an undo reaches it by its number.
UPDATE changes SET caller_id = caller WHERE caller IN ('admin', 'local', 'system');

CREATE INDEX changes_by_caller_id ON changes (caller_id, seq);
