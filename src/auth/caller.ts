/** The authenticated principal behind a request. */
import type { Grant } from "./grants";

export interface Caller {
  /** Stable identity recorded with changes: "admin", "local", or a token's name. */
  id: string;
  kind: "admin" | "local" | "token";
  /** The API token's id (kind "token" only); names can be reused after a revocation, ids cannot. */
  tokenId?: string;
  /** What the caller may do, context by context (src/auth/grants.ts). */
  grants: readonly Grant[];
}

/**
 * The caller's stable id, recorded in history beside its name (CallMeta.callerId):
 * a token's id, else "admin" or "local".
 */
export const callerIdOf = (caller: Caller): string => caller.tokenId ?? caller.kind;

/** The key the caller's own state (its active context) is stored under. */
export const callerKey = (caller: Caller): string => (caller.tokenId ? `token:${caller.tokenId}` : caller.kind);

/** The administrator and open local mode may use the admin API. */
export const isAdmin = (caller: Caller): boolean => caller.kind === "admin" || caller.kind === "local";
