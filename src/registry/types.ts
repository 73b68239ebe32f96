/** Values the Registry object hands across RPC. Plain data, no methods. */
// upward: the Registry stores grants in the shape auth defines and checks (type only)
import type { Grant } from "../auth/grants";

/** A context's capacity settings: named scalar limits, stored as JSON (reserved for the priority feature). */
export type Capacity = { [key: string]: string | number | boolean | null };

/** A token as admins see it: never the token or its hash. */
export interface TokenInfo {
  id: string;
  name: string;
  grants: Grant[];
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** What authentication needs from a live token. */
export interface TokenPrincipal {
  id: string;
  name: string;
  grants: Grant[];
}

export interface ContextInfo {
  name: string;
  description: string;
  readOnly: boolean;
  /** Reserved for the priority feature; stored and returned as given. */
  capacity: Capacity | null;
  createdAt: number;
  createdBy: string;
  /** Set when the context was removed (unregistered); its data is kept until a purge. */
  removedAt: number | null;
}

export interface NewContext {
  name: string;
  description?: string;
  readOnly?: boolean;
  capacity?: Capacity | null;
}

export type ContextPatch = Omit<NewContext, "name">;

export interface AuditEntry {
  id: number;
  at: number;
  actor: string;
  action: string;
  target: string;
  /** JSON text of a small object (never a secret); the API parses it for display. */
  detail: string | null;
}

/** The caller's active context as calls use it. */
export interface ActiveContext {
  name: string;
  /** The stored active context, when it was removed and `name` fell back to the default. */
  fellBackFrom?: string;
}

/** An OAuth grant as admins and its owner see it (src/registry/oauth.ts): never a token. */
export interface OAuthGrantInfo {
  id: string;
  /** The OAuth provider's id for the grant, which revoking its tokens needs. */
  providerId: string;
  /** The provider's user: the consenting token's id, "admin" or "local". */
  userId: string;
  tokenId: string | null;
  tokenName: string;
  clientId: string;
  clientName: string;
  /** What was consented: the consenting token's grants or fewer. */
  grants: Grant[];
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
  /** Why the grant ended (set with revokedAt): one of OAUTH_END_REASONS in src/registry/oauth.ts. */
  revokedReason: string | null;
}

export type NewOAuthGrant = Omit<OAuthGrantInfo, "createdAt" | "lastUsedAt" | "revokedAt" | "revokedReason">;

/** What the Registry says of a refresh the OAuth provider answered: whether its new tokens may stand, and the grant's id. */
export interface RefreshVerdict {
  allowed: boolean;
  /** The Registry's grant, when the provider's grant has one. */
  grant?: string;
  /** Set when the refresh was reuse of a rotated-out token, which has just ended the grant. */
  reused?: true;
}

/** What a request made with an OAuth access token needs from a live grant. */
export interface OAuthPrincipal {
  id: string;
  tokenId: string | null;
  tokenName: string;
  clientName: string;
  grants: Grant[];
}
