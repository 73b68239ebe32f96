/** The Connected apps tab's data (DOM-free): an OAuth grant as GET /api/oauth/grants lists it (docs/oauth.md). */
export interface GrantRow {
  id: string;
  clientName: string;
  tokenName: string;
  grants: { context: string; role: string }[];
  /** ISO 8601 times, as the admin API gives them (src/api/times.ts). */
  createdAt: string;
  lastUsedAt: string | null;
  /** Set when the grant ended: revoked, its refresh token reused, revoked by the client... (revokedReason). */
  revokedAt: string | null;
  revokedReason: string | null;
}

/** "team-a=write, notes=read": what a grant may do, in one line. */
export const grantSummary = (g: GrantRow): string => g.grants.map((x) => `${x.context}=${x.role}`).join(", ");

/** Live grants first, then the ended ones, most recently ended first. */
export const byLiveness = (a: GrantRow, b: GrantRow): number =>
  a.revokedAt === null || b.revokedAt === null ? Number(a.revokedAt !== null) - Number(b.revokedAt !== null) : Date.parse(b.revokedAt) - Date.parse(a.revokedAt);
