/**
 * Token rows. Only hashes are stored; lookups are by hash (a high-entropy
 * digest, so the index lookup reveals nothing useful through timing).
 *
 * Invariant: at most one live (unrevoked) token per name.
 */
import { DomainError } from "../errors";
// upward: the Registry stores grants in the shape auth defines and checks (type only)
import type { Grant } from "../auth/grants";
import type { Db } from "../storage/sql";
import type { TokenInfo, TokenPrincipal } from "./types";

type TokenRow = {
  id: string;
  name: string;
  hash: string;
  grants: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
};

const info = (r: TokenRow): TokenInfo => ({
  id: r.id,
  name: r.name,
  grants: JSON.parse(r.grants) as Grant[],
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

export function insertToken(db: Db, t: { id: string; name: string; hash: string; grants: Grant[] }, now: number): TokenInfo {
  if (db.one("SELECT 1 AS x FROM tokens WHERE name = ? AND revoked_at IS NULL", t.name)) {
    throw new DomainError("Conflict", `A live token is already named ${JSON.stringify(t.name)}; revoke it first or pick another name.`);
  }
  db.run("INSERT INTO tokens (id, name, hash, grants, created_at) VALUES (?, ?, ?, ?, ?)", t.id, t.name, t.hash, JSON.stringify(t.grants), now);
  return { id: t.id, name: t.name, grants: t.grants, createdAt: now, lastUsedAt: null, revokedAt: null };
}

/** The live token with this hash, marking it used; undefined when unknown or revoked. */
export function useToken(db: Db, hash: string, now: number): (TokenPrincipal & { hash: string }) | undefined {
  const row = db.one<TokenRow>("SELECT * FROM tokens WHERE hash = ? AND revoked_at IS NULL", hash);
  if (!row) return undefined;
  db.run("UPDATE tokens SET last_used_at = ? WHERE id = ?", now, row.id);
  return { id: row.id, name: row.name, grants: JSON.parse(row.grants) as Grant[], hash: row.hash };
}

export function listTokens(db: Db, includeRevoked: boolean): TokenInfo[] {
  const where = includeRevoked ? "" : "WHERE revoked_at IS NULL";
  return db.all<TokenRow>(`SELECT * FROM tokens ${where} ORDER BY created_at, id`).map(info);
}

/** Revokes a token by id ("tok_...") or by the name of a live token. */
export function revokeToken(db: Db, ref: string, now: number): TokenInfo {
  const row = ref.startsWith("tok_")
    ? db.one<TokenRow>("SELECT * FROM tokens WHERE id = ?", ref)
    : db.one<TokenRow>("SELECT * FROM tokens WHERE name = ? AND revoked_at IS NULL", ref);
  if (!row) throw new DomainError("NotFound", `No token ${JSON.stringify(ref)} (give a token id or the name of a live token).`);
  if (row.revoked_at !== null) return info(row);
  db.run("UPDATE tokens SET revoked_at = ? WHERE id = ?", now, row.id);
  return info({ ...row, revoked_at: now });
}
