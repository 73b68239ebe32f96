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

/**
 * A token's public id: this prefix and 16 hex digits. Token names may not
 * start with it (case aside), so a reference to a token is an id exactly when
 * it starts with the prefix.
 */
export const TOKEN_ID_PREFIX = "tok_";

/** Whether a token reference names an id rather than a name (see TOKEN_ID_PREFIX). */
const isTokenIdRef = (ref: string): boolean => ref.startsWith(TOKEN_ID_PREFIX);

/** Why `name` cannot name a token because of the id prefix, or undefined. */
export const reservedNameProblem = (name: string): string | undefined =>
  name.toLowerCase().startsWith(TOKEN_ID_PREFIX)
    ? `name must not start with "${TOKEN_ID_PREFIX}": that prefix is reserved for token ids, so a name can never be mistaken for one`
    : undefined;

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
  const reserved = reservedNameProblem(t.name);
  if (reserved) throw new DomainError("Invalid", reserved);
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

/** How a revocation names its token: by id, by the name of a live token, or either, told apart by the id prefix. */
export type TokenRefKind = "id" | "name";

/**
 * Revokes a token. `by` says how `ref` names it; without it a ref starting
 * with "tok_" is an id and anything else the name of a live token (names may
 * not start with "tok_"). A live token named like an id before that rule
 * existed makes such a ref ambiguous: refused, naming both, until `by` says.
 */
export function revokeToken(db: Db, ref: string, now: number, by?: TokenRefKind): TokenInfo {
  const q = JSON.stringify(ref);
  const byId = () => db.one<TokenRow>("SELECT * FROM tokens WHERE id = ?", ref);
  const byName = () => db.one<TokenRow>("SELECT * FROM tokens WHERE name = ? AND revoked_at IS NULL", ref);
  let row: TokenRow | undefined;
  if (by === "name" || (by === undefined && !isTokenIdRef(ref))) {
    row = byName();
    if (!row) throw new DomainError("NotFound", `No live token is named ${q}. GET /api/tokens lists the live tokens with their ids.`);
  } else {
    row = byId();
    const named = by === undefined ? byName() : undefined;
    if (named && named.id !== row?.id) {
      const legacy = `the name of live token ${named.id} (named before "${TOKEN_ID_PREFIX}" was reserved for ids)`;
      throw new DomainError(
        "Conflict",
        row
          ? `${q} is the id of token ${JSON.stringify(row.name)} and ${legacy}. Say which you mean with ?by=id or ?by=name (npm run admin: --by id|name); nothing was revoked.`
          : `${q} is no token's id but ${legacy}. To revoke that token, say ?by=name (npm run admin: --by name) or give its id; nothing was revoked.`,
      );
    }
    if (!row) throw new DomainError("NotFound", `No token has the id ${q}. GET /api/tokens?revoked=true lists every token with its id.`);
  }
  if (row.revoked_at !== null) return info(row);
  db.run("UPDATE tokens SET revoked_at = ? WHERE id = ?", now, row.id);
  return info({ ...row, revoked_at: now });
}
