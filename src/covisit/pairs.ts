/**
 * Pair counts: how many sessions used two items together.
 *
 * ## Storage layout
 * `covisit_pairs(item, other, count, updated_at)`, primary key (item, other),
 * indexed by other. Every pair is stored in both directions with the same
 * count, so "what goes with X" is one index range.
 *
 * ## Invariants
 * - A pair is counted once per session: when an item first enters a session
 *   it pairs with the session's PAIR_WINDOW most recently used items
 *   (session.ts decides "first" and "recent"), not with all of them. Items
 *   used close together are the associations worth learning; pairing with
 *   every item a long session remembers would cost up to 2 x 100 upserts per
 *   new item, much of an open_nodes, for links that say little that far
 *   apart in a session.
 * - Renaming an item moves its counts to the new key (adding to any the new
 *   key already had); forgetting an item deletes every row naming it.
 */
import type { Move } from "../items";
import { chunksFor, placeholders, type Db } from "../storage/sql";

/** How many of the session's most recently used items a newly used item pairs with. */
export const PAIR_WINDOW = 24;

const BUMP = "ON CONFLICT (item, other) DO UPDATE SET count = count + excluded.count, updated_at = excluded.updated_at";

/** The session's PAIR_WINDOW most recent items other than ?1 (session ?3), newest first. */
const RECENT = `SELECT item FROM covisit_session_items WHERE session_id = ?3 AND item <> ?1 ORDER BY seq DESC LIMIT ${PAIR_WINDOW}`;

/** Counts one co-visit of `item` with the session's PAIR_WINDOW most recent other items, both directions. */
export function pairWithSession(db: Db, sessionId: number, item: string, now: number): void {
  // `WHERE true` lets SQLite parse the upsert after a SELECT (its documented workaround).
  db.run(
    `INSERT INTO covisit_pairs (item, other, count, updated_at)
     SELECT ?1, item, 1, ?2 FROM (${RECENT}) WHERE true ${BUMP}`,
    item,
    now,
    sessionId,
  );
  db.run(
    `INSERT INTO covisit_pairs (item, other, count, updated_at)
     SELECT item, ?1, 1, ?2 FROM (${RECENT}) WHERE true ${BUMP}`,
    item,
    now,
    sessionId,
  );
}

/** Moves every count and session entry of `from` to `to`. */
export function renameItems(db: Db, moves: readonly Move[]): void {
  for (const { from, to } of moves) {
    if (from === to) continue;
    db.run(
      `INSERT INTO covisit_pairs (item, other, count, updated_at)
       SELECT ?1, other, count, updated_at FROM covisit_pairs WHERE item = ?2 AND other <> ?1 ${BUMP}`,
      to,
      from,
    );
    db.run(
      `INSERT INTO covisit_pairs (item, other, count, updated_at)
       SELECT item, ?1, count, updated_at FROM covisit_pairs WHERE other = ?2 AND item <> ?1 ${BUMP}`,
      to,
      from,
    );
    db.run("DELETE FROM covisit_pairs WHERE item = ?1 OR other = ?1", from);
    db.run("UPDATE OR REPLACE covisit_session_items SET item = ? WHERE item = ?", to, from);
  }
}

/** Deletes every count and session entry naming one of `items`. */
export function forgetItems(db: Db, items: readonly string[]): void {
  for (const chunk of chunksFor([...new Set(items)])) {
    const list = placeholders(chunk.length);
    db.run(`DELETE FROM covisit_pairs WHERE item IN (${list})`, ...chunk);
    db.run(`DELETE FROM covisit_pairs WHERE other IN (${list})`, ...chunk);
    db.run(`DELETE FROM covisit_session_items WHERE item IN (${list})`, ...chunk);
  }
}
