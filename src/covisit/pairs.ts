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
 *   it pairs with every item the session already holds (session.ts decides
 *   "first").
 * - Renaming an item moves its counts to the new key (adding to any the new
 *   key already had); forgetting an item deletes every row naming it.
 */
import { chunksFor, placeholders, type Db } from "../context/sql";

const BUMP = "ON CONFLICT (item, other) DO UPDATE SET count = count + excluded.count, updated_at = excluded.updated_at";

/** Counts one co-visit of `item` with every other item the session holds, both directions. */
export function pairWithSession(db: Db, sessionId: number, item: string, now: number): void {
  db.run(
    `INSERT INTO covisit_pairs (item, other, count, updated_at)
     SELECT ?1, item, 1, ?2 FROM covisit_session_items WHERE session_id = ?3 AND item <> ?1 ${BUMP}`,
    item,
    now,
    sessionId,
  );
  db.run(
    `INSERT INTO covisit_pairs (item, other, count, updated_at)
     SELECT item, ?1, 1, ?2 FROM covisit_session_items WHERE session_id = ?3 AND item <> ?1 ${BUMP}`,
    item,
    now,
    sessionId,
  );
}

export interface Move {
  from: string;
  to: string;
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
