/**
 * Co-visitation: an association index that learns which memories are used
 * together, across kinds (entities, files, documents).
 *
 * Called only from the access hook (src/context/access.ts), inside the
 * caller's transaction: every call that views, opens or writes items reports
 * them there, so no tool has to remember co-visitation.
 *
 * A failure in here never fails the call that did the access: it is logged
 * and the call proceeds without recommendations.
 */
import type { Db } from "../storage/sql";
import type { Move } from "../items";
import { forgetItems, pairWithSession, renameItems } from "./pairs";
import { relatedTo, type RelatedItem } from "./recommend";
import { currentSession, SESSION_MAX_ITEMS, sessionKey, touchItem, trimSession, type SessionIdentity } from "./session";

export { maintainCovisit, MAX_ASSOCIATIONS_PER_ITEM } from "./maintenance";
export { itemLabel, type RelatedItem } from "./recommend";
export { SESSION_MAX_ITEMS, type SessionIdentity } from "./session";
export { PAIR_WINDOW } from "./pairs";

export interface CovisitOptions {
  /** A session without an access for longer than this ends. */
  sessionIdleMs: number;
  /** Related items returned for a retrieval (0 = none). */
  maxRelated: number;
}

const logFailure = (what: string, error: unknown) => console.error(JSON.stringify({ event: "covisit_failed", what, error: String(error) }));

/**
 * Records that `who` used `used` (in order) and returns what is related to
 * `retrieved`. Recommendations are read first, so they reflect what earlier
 * accesses taught, not the access being recorded.
 */
export function covisit(db: Db, who: SessionIdentity, used: readonly string[], retrieved: readonly string[], now: number, opts: CovisitOptions): RelatedItem[] {
  let related: RelatedItem[] = [];
  try {
    related = relatedTo(db, retrieved, opts.maxRelated);
  } catch (error) {
    logFailure("recommend", error);
  }
  // A bulk call (open_nodes with 1,000 names) counts as its first items only: a session holds no more.
  const items = [...new Set(used)].slice(0, SESSION_MAX_ITEMS);
  if (items.length === 0) return related;
  try {
    const session = currentSession(db, sessionKey(who), now, opts.sessionIdleMs);
    for (const item of items) {
      if (touchItem(db, session, item)) pairWithSession(db, session, item, now);
    }
    trimSession(db, session);
  } catch (error) {
    logFailure("record", error);
  }
  return related;
}

/** Items that no longer exist: their counts and session entries go. */
export function covisitForget(db: Db, items: readonly string[]): void {
  if (items.length > 0) forgetItems(db, items);
}

/** Items that changed key (a file renamed): their counts follow them. */
export function covisitRename(db: Db, moves: readonly Move[]): void {
  if (moves.length > 0) renameItems(db, moves);
}
