-- Refresh-token rotation with reuse detection (docs/oauth.md): the hash of every refresh
-- token the OAuth provider issues for a grant, in issue order, and when it was presented.
-- A token presented after its rotation (used before, or superseded by a newer one) is reuse,
-- which ends the grant; a grant's rows go when it ends.
CREATE TABLE oauth_refresh_tokens (
  seq       INTEGER PRIMARY KEY,               -- issue order
  hash      TEXT    NOT NULL UNIQUE,           -- SHA-256 hex of the refresh token
  grant_id  TEXT    NOT NULL,                  -- oauth_grants.id
  issued_at INTEGER NOT NULL,
  used_at   INTEGER                            -- when it was exchanged for the next one
);

CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens (grant_id, seq);

-- Why a grant ended (set with revoked_at): "revoked", "token revoked", "replaced", "refresh token reused",
-- "ADMIN_TOKEN changed", "revoked by the client", "authorization code replayed", "expired".
ALTER TABLE oauth_grants ADD COLUMN revoked_reason TEXT;

CREATE INDEX oauth_grants_provider ON oauth_grants (provider_id, user_id);
