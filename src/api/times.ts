/**
 * How the admin routes show the Registry's records (tokens, OAuth grants,
 * contexts, audit entries): their times as ISO 8601 strings in UTC, as the
 * webhooks route, the history and every tool answer show times. The Registry
 * keeps epoch milliseconds; only the answer changes, at this edge.
 */
import type { AuditEntry, ContextInfo, TokenInfo } from "../registry/types";

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

/** A token or an OAuth grant: created, last used, revoked. */
export const shownCredential = <T extends Pick<TokenInfo, "createdAt" | "lastUsedAt" | "revokedAt">>(t: T) => ({
  ...t,
  createdAt: iso(t.createdAt),
  lastUsedAt: isoOrNull(t.lastUsedAt),
  revokedAt: isoOrNull(t.revokedAt),
});

export const shownContext = <T extends ContextInfo>(c: T) => ({ ...c, createdAt: iso(c.createdAt), removedAt: isoOrNull(c.removedAt) });

export const shownEntry = <T extends AuditEntry>(e: T) => ({ ...e, at: iso(e.at) });
