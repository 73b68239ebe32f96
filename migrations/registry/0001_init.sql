-- The Registry: one per deployment. Tokens, contexts, each caller's active
-- context and the admin audit log. Times are milliseconds since the Unix epoch.

-- API tokens. Only the SHA-256 of a token is kept; the token itself is shown once.
CREATE TABLE tokens (
  id           TEXT    PRIMARY KEY,          -- "tok_<hex>", public: listed and revoked by it
  name         TEXT    NOT NULL,             -- who the token is for; recorded with changes
  hash         TEXT    NOT NULL UNIQUE,      -- hex SHA-256 of the token
  grants       TEXT    NOT NULL,             -- JSON array of {context, role, create?}
  created_at   INTEGER NOT NULL,
  last_used_at INTEGER,                      -- updated when a Worker looks the token up
  revoked_at   INTEGER
);

-- A name identifies one live token at a time, so the audit log and CallMeta stay unambiguous.
CREATE UNIQUE INDEX tokens_live_name ON tokens (name) WHERE revoked_at IS NULL;

-- Memory contexts. A context's data lives in its own MemoryContext object;
-- this row says it exists and how it may be used.
CREATE TABLE contexts (
  name        TEXT    PRIMARY KEY,
  description TEXT    NOT NULL DEFAULT '',
  read_only   INTEGER NOT NULL DEFAULT 0,
  capacity    TEXT,                          -- JSON, reserved for the priority feature
  created_at  INTEGER NOT NULL,
  created_by  TEXT    NOT NULL,
  removed_at  INTEGER                        -- unregistered; the data is kept until a purge
);

-- The context each caller's /mcp calls use when none is named.
CREATE TABLE active_contexts (
  caller     TEXT    PRIMARY KEY,            -- "admin", "local" or "token:<id>"
  context    TEXT    NOT NULL,
  updated_at INTEGER NOT NULL
);

-- Every administrative action: who, what, when.
CREATE TABLE audit_log (
  id     INTEGER PRIMARY KEY,
  at     INTEGER NOT NULL,
  actor  TEXT    NOT NULL,
  action TEXT    NOT NULL,                   -- e.g. "token.create", "context.purge"
  target TEXT    NOT NULL,
  detail TEXT                                -- JSON, never a secret
);
