/**
 * Co-visitation sessions: which accesses belong together.
 *
 * ## What a session is
 * The 2026-07-28 transport is stateless, so a session is defined here, per
 * caller, by its stable id (CallMeta.callerId: a token's id, never its name,
 * which passes to a new token after a revocation; so one teammate, or one
 * token, never joins another's session):
 *   1. the client's own key, when it sends one: the `Mcp-Memory-Session`
 *      header (settable in any client's MCP config), else a 2025-era
 *      client's `Mcp-Session-Id` issued by a gateway in front (the ids
 *      Engram issues itself name live subscriptions only, and are left out);
 *   2. otherwise the client's name (MCP clientInfo, else User-Agent).
 * Either way a session ends after COVIS_SESSION_IDLE_MINUTES without an
 * access: the next access under that key starts a new session.
 *
 * ## Storage layout
 * `covisit_sessions(id, key UNIQUE, started_at, last_seen_at, accesses)`,
 * `covisit_session_items(session_id, item, seq)`: the items the session has
 * touched, `seq` being the session's access counter at the item's last use.
 *
 * ## Bounds
 * A session keeps its last SESSION_MAX_ITEMS items; sessions idle past the
 * gap are deleted by the object's alarm (maintenance.ts).
 */
import { chunksFor, placeholders, type Db } from "../storage/sql";

/** Items a session remembers; an item that falls out and comes back counts as new. */
export const SESSION_MAX_ITEMS = 100;

/** Who is accessing, as far as sessions care (MemoryContext's CallMeta satisfies it). */
export interface SessionIdentity {
  /** The caller's stable id: a token's or an OAuth grant's id, else "admin", "local" or "system". */
  callerId: string;
  /** The client's session key (Mcp-Memory-Session or Mcp-Session-Id). */
  session?: string;
  /** The client's name, for clients without a key. */
  client?: string;
}

/** The stored key of the session `who` is in; JSON so no caller, key or name can collide with another. */
export function sessionKey(who: SessionIdentity): string {
  return who.session !== undefined ? JSON.stringify(["key", who.callerId, who.session]) : JSON.stringify(["client", who.callerId, who.client ?? ""]);
}

/**
 * The id of the live session for `key` at `now`, touching it; starts a new
 * one when there is none or the last one went idle longer than `idleMs`.
 */
export function currentSession(db: Db, key: string, now: number, idleMs: number): number {
  const row = db.one<{ id: number; last_seen_at: number }>("SELECT id, last_seen_at FROM covisit_sessions WHERE key = ?", key);
  if (row && now - row.last_seen_at <= idleMs) {
    db.run("UPDATE covisit_sessions SET last_seen_at = MAX(last_seen_at, ?) WHERE id = ?", now, row.id);
    return row.id;
  }
  if (row) dropSessions(db, [row.id]);
  const created = db.one<{ id: number }>("INSERT INTO covisit_sessions (key, started_at, last_seen_at) VALUES (?, ?, ?) RETURNING id", key, now, now);
  if (!created) throw new Error("covisit: session insert returned no id");
  return created.id;
}

/** Deletes sessions and the items they remember. */
export function dropSessions(db: Db, ids: readonly number[]): void {
  for (const chunk of chunksFor(ids)) {
    const list = placeholders(chunk.length);
    db.run(`DELETE FROM covisit_session_items WHERE session_id IN (${list})`, ...chunk);
    db.run(`DELETE FROM covisit_sessions WHERE id IN (${list})`, ...chunk);
  }
}

/**
 * Adds `item` to the session. Returns true when the item is new to the
 * session (so its pairs with the session's other items must be counted),
 * false when the session already had it (it only becomes the most recent).
 */
export function touchItem(db: Db, sessionId: number, item: string): boolean {
  const seq = db.one<{ accesses: number }>("UPDATE covisit_sessions SET accesses = accesses + 1 WHERE id = ? RETURNING accesses", sessionId)?.accesses;
  if (seq === undefined) throw new Error(`covisit: session ${sessionId} vanished`);
  const updated = db.run("UPDATE covisit_session_items SET seq = ? WHERE session_id = ? AND item = ?", seq, sessionId, item);
  if (updated > 0) return false;
  db.run("INSERT INTO covisit_session_items (session_id, item, seq) VALUES (?, ?, ?)", sessionId, item, seq);
  return true;
}

/** Keeps only the session's last SESSION_MAX_ITEMS items. */
export function trimSession(db: Db, sessionId: number): void {
  db.run(
    `DELETE FROM covisit_session_items WHERE session_id = ?1 AND seq <= (
       SELECT seq FROM covisit_session_items WHERE session_id = ?1 ORDER BY seq DESC LIMIT 1 OFFSET ?2)`,
    sessionId,
    SESSION_MAX_ITEMS,
  );
}
