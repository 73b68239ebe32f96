/**
 * Who is calling and from where: what every MemoryContext RPC method is
 * given with its arguments. History records it with each change
 * (src/history), and co-visitation derives a call's session from it
 * (src/covisit/session.ts).
 */
export interface CallMeta {
  /** The caller's name as history shows it: "admin", "local", "system" or a token's name. */
  caller: string;
  /**
   * The caller's stable id: a token's id ("tok_..."), else "admin", "local"
   * or "system". A token's name passes to a new token after a revocation, its
   * id never does; history keeps it so "my changes" means this token's.
   */
  callerId: string;
  /**
   * The API token behind the call: the token's id, or the consenting token's
   * for an OAuth grant; absent for admin and local. It is who "your last look"
   * means in the brief, and history keeps it with each change.
   */
  tokenId?: string;
  /** The tool (or API route) that made the call. */
  tool: string;
  /** Session key, when the client has one: Mcp-Memory-Session, else Mcp-Session-Id (src/covisit/session.ts). */
  session?: string;
  /** The client's name (MCP clientInfo, else User-Agent), which identifies a session when there is no key. */
  client?: string;
}
