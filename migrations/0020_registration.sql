-- What this context's object was last told of its registration by the
-- Registry (src/storage/registration.ts): at most one row, none when
-- nothing was pushed. `status` is NULL while the context is registered,
-- else 'removed' or 'purged' with the `name` it had; `read_only` is 1 while
-- the Registry says the context is read-only. These facts move here from
-- two keys of priority_state ('registration' and 'read_only'), which holds
-- the priority evaluation's own state.
CREATE TABLE registration (
  id        INTEGER PRIMARY KEY CHECK (id = 1),
  name      TEXT,
  status    TEXT CHECK (status IN ('removed', 'purged')),
  read_only INTEGER NOT NULL DEFAULT 0 CHECK (read_only IN (0, 1))
) STRICT;

INSERT INTO registration (id, name, status, read_only)
SELECT 1,
       json_extract(r.value, '$.name'),
       json_extract(r.value, '$.status'),
       EXISTS (SELECT 1 FROM priority_state WHERE key = 'read_only' AND value = 'true')
FROM (SELECT 1) LEFT JOIN priority_state r ON r.key = 'registration'
WHERE EXISTS (SELECT 1 FROM priority_state WHERE key IN ('registration', 'read_only'));

DELETE FROM priority_state WHERE key IN ('registration', 'read_only');
