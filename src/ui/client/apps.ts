/** The Connected apps tab's data (DOM-free): an OAuth grant as GET /api/oauth/grants lists it (docs/oauth.md). */
export interface GrantRow {
  id: string;
  clientName: string;
  tokenName: string;
  grants: { context: string; role: string }[];
  createdAt: number;
  lastUsedAt: number | null;
}

/** "team-a=write, notes=read": what a grant may do, in one line. */
export const grantSummary = (g: GrantRow): string => g.grants.map((x) => `${x.context}=${x.role}`).join(", ");
