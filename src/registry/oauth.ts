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
 * client on a new consent.
 */
import { DomainError } from "../errors";
// upward: the Registry stores grants in the shape auth defines and checks (type only)
import type { Grant } from "../auth/grants";
import type { Db } from "../storage/sql";
import type { NewOAuthGrant, OAuthGrantInfo, OAuthPrincipal } from "./types";

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
};

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
});

/** Records a consent; the user's earlier live grant to the same client ends (the provider has replaced it). */
export function insertOAuthGrant(db: Db, g: NewOAuthGrant, now: number): { grant: OAuthGrantInfo; replaced: OAuthGrantInfo[] } {
  const earlier = db.all<GrantRow>("SELECT * FROM oauth_grants WHERE user_id = ? AND client_id = ? AND revoked_at IS NULL", g.userId, g.clientId);
  db.run("UPDATE oauth_grants SET revoked_at = ? WHERE user_id = ? AND client_id = ? AND revoked_at IS NULL", now, g.userId, g.clientId);
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
  const grant: OAuthGrantInfo = { ...g, createdAt: now, lastUsedAt: null, revokedAt: null };
  return { grant, replaced: earlier.map((r) => info({ ...r, revoked_at: now })) };
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

/** Revokes grant `id` (a no-op on one already revoked). */
export function revokeOAuthGrant(db: Db, id: string, now: number): OAuthGrantInfo {
  const row = db.one<GrantRow>("SELECT * FROM oauth_grants WHERE id = ?", id);
  if (!row) throw new DomainError("NotFound", `No OAuth grant has the id ${JSON.stringify(id)}. GET /api/oauth/grants lists them.`);
  if (row.revoked_at !== null) return info(row);
  db.run("UPDATE oauth_grants SET revoked_at = ? WHERE id = ?", now, id);
  return info({ ...row, revoked_at: now });
}

/** Revokes every live grant the API token `tokenId` consented to; returns them. */
export function revokeOAuthGrantsOfToken(db: Db, tokenId: string, now: number): OAuthGrantInfo[] {
  const rows = db.all<GrantRow>("SELECT * FROM oauth_grants WHERE token_id = ? AND revoked_at IS NULL", tokenId);
  db.run("UPDATE oauth_grants SET revoked_at = ? WHERE token_id = ? AND revoked_at IS NULL", now, tokenId);
  return rows.map((r) => info({ ...r, revoked_at: now }));
}
