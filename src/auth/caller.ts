/** The authenticated principal behind a request. */
import type { Grant } from "./grants";

export interface Caller {
  /** Stable identity recorded with changes: "admin", "local", a token's name, or "<token name> via <client name>". */
  id: string;
  /** "oauth": an OAuth access token, acting with the grants consented to (src/auth/oauth.ts). */
  kind: "admin" | "local" | "token" | "oauth";
  /** The API token's id (kind "token", and "oauth" when a token consented); names can be reused after a revocation, ids cannot. */
  tokenId?: string;
  /** The OAuth grant's id (kind "oauth" only): its active context and history attribution are its own. */
  oauthGrant?: string;
  /** What the caller may do, context by context (src/auth/grants.ts). */
  grants: readonly Grant[];
}

/**
 * The caller's stable id, recorded in history beside its name (CallMeta.callerId):
 * an OAuth grant's id, else a token's id, else "admin" or "local".
 */
export const callerIdOf = (caller: Caller): string => caller.oauthGrant ?? caller.tokenId ?? caller.kind;

/** The key the caller's own state (its active context) is stored under: one per OAuth grant, token, or built-in caller. */
export const callerKey = (caller: Caller): string => (caller.oauthGrant ? `oauth:${caller.oauthGrant}` : caller.tokenId ? `token:${caller.tokenId}` : caller.kind);

/** The administrator and open local mode may use the admin API. */
export const isAdmin = (caller: Caller): boolean => caller.kind === "admin" || caller.kind === "local";
