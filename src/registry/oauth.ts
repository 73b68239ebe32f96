/**
 * OAuth grant rows: one per consent given on the authorization page
 * (src/ui/consent.tsx). The OAuth provider keeps the grant's tokens in KV;
 * a row here is what makes the grant usable, so it is checked on every use
 * (src/auth/oauth.ts, cached per isolate) and ended with the API token that
 * consented to it.
 *
 * Invariants: a grant is live only while its row is unrevoked and its
 * consenting token (when it has one) is live; at most one live row per user
 * and client, as the provider replaces a user's earlier grant to the same
 * client on a new consent. An ended grant keeps its row, with when and why
 * it ended (`revoked_reason`), and never comes back.
 *
 * ## Refresh-token rotation
 * `oauth_refresh_tokens` holds the hash of every refresh token issued for a
 * live grant, in issue order. Each token may be exchanged once: a token
 * presented after its rotation (already used, or superseded by a newer one)
 * is reuse (RFC 9700 §4.14.2), and reuse ends the grant. There is no grace
 * for a retry: a client whose token response was lost authorizes again.
 */
import { DomainError } from "../errors";
// upward: the Registry stores grants in the shape auth defines and checks (type only)
import type { Grant } from "../auth/grants";
import type { Db } from "../storage/sql";
import type { NewOAuthGrant, OAuthGrantInfo, OAuthPrincipal, RefreshVerdict } from "./types";

/** An OAuth grant's public id: this prefix and 16 hex digits. */
export const OAUTH_GRANT_PREFIX = "oag_";

type GrantRow = {
  id: string;
  provider_id: string;
  user_id: string;
  token_id: string | null;
  token_name: string;
  client_id: string;
  client_name: string;
  grants: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  revoked_reason: string | null;
};

/** Why a grant ended, as `revokedReason` says it. */
export const OAUTH_END_REASONS = {
  revoked: "revoked",
  tokenRevoked: "token revoked",
  replaced: "replaced",
  reused: "refresh token reused",
  adminChanged: "ADMIN_TOKEN changed",
  clientRevoked: "revoked by the client",
  codeReplayed: "authorization code replayed",
  expired: "expired",
} as const;
export type OAuthEndReason = (typeof OAUTH_END_REASONS)[keyof typeof OAUTH_END_REASONS];

type RefreshRow = { seq: number; hash: string; grant_id: string; issued_at: number; used_at: number | null };

const info = (r: GrantRow): OAuthGrantInfo => ({
  id: r.id,
  providerId: r.provider_id,
  userId: r.user_id,
  tokenId: r.token_id,
  tokenName: r.token_name,
  clientId: r.client_id,
  clientName: r.client_name,
  grants: JSON.parse(r.grants) as Grant[],
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
  revokedReason: r.revoked_reason,
});

/** Ends grant `id` for `reason` and forgets its refresh tokens. */
function end(db: Db, id: string, reason: OAuthEndReason, now: number): void {
  db.run("UPDATE oauth_grants SET revoked_at = ?, revoked_reason = ? WHERE id = ? AND revoked_at IS NULL", now, reason, id);
  db.run("DELETE FROM oauth_refresh_tokens WHERE grant_id = ?", id);
}

/** Records a consent; the user's earlier live grant to the same client ends (the provider has replaced it). */
export function insertOAuthGrant(db: Db, g: NewOAuthGrant, now: number): { grant: OAuthGrantInfo; replaced: OAuthGrantInfo[] } {
  const earlier = db.all<GrantRow>("SELECT * FROM oauth_grants WHERE user_id = ? AND client_id = ? AND revoked_at IS NULL", g.userId, g.clientId);
  for (const r of earlier) end(db, r.id, OAUTH_END_REASONS.replaced, now);
  db.run(
    "INSERT INTO oauth_grants (id, provider_id, user_id, token_id, token_name, client_id, client_name, grants, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    g.id,
    g.providerId,
    g.userId,
    g.tokenId,
    g.tokenName,
    g.clientId,
    g.clientName,
    JSON.stringify(g.grants),
    now,
  );
  const grant: OAuthGrantInfo = { ...g, createdAt: now, lastUsedAt: null, revokedAt: null, revokedReason: null };
  return { grant, replaced: earlier.map((r) => info({ ...r, revoked_at: now, revoked_reason: OAUTH_END_REASONS.replaced })) };
}

/** The live grant `id` (its consenting token live too), marking it used; undefined otherwise. */
export function useOAuthGrant(db: Db, id: string, now: number): OAuthPrincipal | undefined {
  const row = db.one<GrantRow>(
    `SELECT g.* FROM oauth_grants g LEFT JOIN tokens t ON t.id = g.token_id
     WHERE g.id = ? AND g.revoked_at IS NULL AND (g.token_id IS NULL OR (t.id IS NOT NULL AND t.revoked_at IS NULL))`,
    id,
  );
  if (!row) return undefined;
  db.run("UPDATE oauth_grants SET last_used_at = ? WHERE id = ?", now, id);
  return { id: row.id, tokenId: row.token_id, tokenName: row.token_name, clientName: row.client_name, grants: JSON.parse(row.grants) as Grant[] };
}

/** Grants, oldest first: all of them, or those one user (a token id, "admin" or "local") consented to. */
export function listOAuthGrants(db: Db, includeRevoked: boolean, userId?: string): OAuthGrantInfo[] {
  const where = [includeRevoked ? "" : "revoked_at IS NULL", userId === undefined ? "" : "user_id = ?"].filter(Boolean);
  const sql = `SELECT * FROM oauth_grants ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at, id`;
  return db.all<GrantRow>(sql, ...(userId === undefined ? [] : [userId])).map(info);
}

export function findOAuthGrant(db: Db, id: string): OAuthGrantInfo | undefined {
  const row = db.one<GrantRow>("SELECT * FROM oauth_grants WHERE id = ?", id);
  return row ? info(row) : undefined;
}

/** Revokes grant `id` for `reason` (a no-op on one already revoked). */
export function revokeOAuthGrant(db: Db, id: string, now: number, reason: OAuthEndReason = OAUTH_END_REASONS.revoked): OAuthGrantInfo {
  const row = db.one<GrantRow>("SELECT * FROM oauth_grants WHERE id = ?", id);
  if (!row) throw new DomainError("NotFound", `No OAuth grant has the id ${JSON.stringify(id)}. GET /api/oauth/grants lists them.`);
  if (row.revoked_at !== null) return info(row);
  end(db, id, reason, now);
  return info({ ...row, revoked_at: now, revoked_reason: reason });
}

/** Revokes every live grant the API token `tokenId` consented to; returns them. */
export function revokeOAuthGrantsOfToken(db: Db, tokenId: string, now: number): OAuthGrantInfo[] {
  const rows = db.all<GrantRow>("SELECT * FROM oauth_grants WHERE token_id = ? AND revoked_at IS NULL", tokenId);
  for (const r of rows) end(db, r.id, OAUTH_END_REASONS.tokenRevoked, now);
  return rows.map((r) => info({ ...r, revoked_at: now, revoked_reason: OAUTH_END_REASONS.tokenRevoked }));
}

/** The grant the provider knows as `providerId` of `userId` (ended or not). */
export function findProviderGrant(db: Db, providerId: string, userId: string): OAuthGrantInfo | undefined {
  const row = db.one<GrantRow>("SELECT * FROM oauth_grants WHERE provider_id = ? AND user_id = ?", providerId, userId);
  return row ? info(row) : undefined;
}

/**
 * Records a refresh the provider has just answered: `presented` (absent for a
 * code exchange) is exchanged, `issued` is the grant's new refresh token.
 * Refused when the grant is unknown or ended; a presented token already used
 * or superseded is reuse, which ends the grant.
 */
export function rotateRefreshToken(db: Db, t: { providerId: string; userId: string; presented?: string; issued: string }, now: number): RefreshVerdict {
  const g = findProviderGrant(db, t.providerId, t.userId);
  if (!g) return { allowed: false };
  if (g.revokedAt !== null) return { allowed: false, grant: g.id };
  if (t.presented !== undefined && !exchange(db, g.id, t.presented, now)) {
    end(db, g.id, OAUTH_END_REASONS.reused, now);
    return { allowed: false, grant: g.id, reused: true };
  }
  db.run("INSERT INTO oauth_refresh_tokens (hash, grant_id, issued_at) VALUES (?, ?, ?)", t.issued, g.id, now);
  return { allowed: true, grant: g.id };
}

/** Marks `hash` of grant `grantId` used, or says false when that is reuse. */
function exchange(db: Db, grantId: string, hash: string, now: number): boolean {
  const row = db.one<RefreshRow>("SELECT * FROM oauth_refresh_tokens WHERE hash = ?", hash);
  if (!row) {
    // Every token issued since rotation was recorded is here; an unknown one the provider accepted predates that.
    const recorded = db.one<{ n: number }>("SELECT count(*) AS n FROM oauth_refresh_tokens WHERE grant_id = ?", grantId);
    if ((recorded?.n ?? 0) > 0) return false;
    db.run("INSERT INTO oauth_refresh_tokens (hash, grant_id, issued_at, used_at) VALUES (?, ?, ?, ?)", hash, grantId, now, now);
    return true;
  }
  if (row.grant_id !== grantId || rotatedOut(db, row)) return false;
  db.run("UPDATE oauth_refresh_tokens SET used_at = ? WHERE seq = ?", now, row.seq);
  return true;
}

/** Whether a recorded token may no longer be exchanged: used already, or a newer one was issued. */
function rotatedOut(db: Db, row: RefreshRow): boolean {
  if (row.used_at !== null) return true;
  return db.one<{ seq: number }>("SELECT seq FROM oauth_refresh_tokens WHERE grant_id = ? AND seq > ? LIMIT 1", row.grant_id, row.seq) !== undefined;
}

/**
 * A refresh the provider refused: when `presented` is a recorded token of a
 * live grant that was rotated out, that is reuse and ends the grant (its id
 * comes back). The current token refused (the grant expired at the
 * provider, another client presenting it) ends nothing here.
 */
export function refusedRefreshToken(db: Db, t: { providerId: string; userId: string; presented: string }, now: number): string | undefined {
  const g = findProviderGrant(db, t.providerId, t.userId);
  if (!g || g.revokedAt !== null) return undefined;
  const row = db.one<RefreshRow>("SELECT * FROM oauth_refresh_tokens WHERE hash = ? AND grant_id = ?", t.presented, g.id);
  if (!row || !rotatedOut(db, row)) return undefined;
  end(db, g.id, OAUTH_END_REASONS.reused, now);
  return g.id;
}
