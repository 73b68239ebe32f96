-- OAuth grants (docs/oauth.md): one row per consent given on the authorization page.
-- The OAuth provider keeps the grant's tokens in KV (hashed); this row is what the
-- Worker checks on each use (cached per isolate), lists, and revokes, so revoking
-- the consenting API token ends its OAuth grants in the same transaction.
CREATE TABLE oauth_grants (
  id           TEXT    PRIMARY KEY,          -- "oag_<hex>", carried in the grant's props
  provider_id  TEXT    NOT NULL,             -- the OAuth provider's grant id (for revoking its tokens)
  user_id      TEXT    NOT NULL,             -- the provider's user: the token id, "admin" or "local"
  token_id     TEXT,                         -- the consenting API token (NULL for admin and local)
  token_name   TEXT    NOT NULL,             -- the consenting token's name, "admin" or "local"
  client_id    TEXT    NOT NULL,
  client_name  TEXT    NOT NULL,
  grants       TEXT    NOT NULL,             -- JSON array of {context, role, create?}: what was consented
  created_at   INTEGER NOT NULL,
  last_used_at INTEGER,                      -- updated when a Worker looks the grant up
  revoked_at   INTEGER
);

CREATE INDEX oauth_grants_token ON oauth_grants (token_id) WHERE revoked_at IS NULL;
CREATE INDEX oauth_grants_user_client ON oauth_grants (user_id, client_id) WHERE revoked_at IS NULL;
