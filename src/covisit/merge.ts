/**
 * Co-visitation of merged items (merge_entities): the source's pair counts
 * and session entries move to the target, adding to the target's
 * (renameItems), as a recorded write whose undo puts every row naming
 * either item back as it was.
 *
 * ## Inverse op
 * `{kind:"covisit", items, pairs, sessionItems}`: every `covisit_pairs` row
 * naming one of `items` (as item or other) and every
 * `covisit_session_items` row of them, before the write. An item keeps at
 * most about MAX_ASSOCIATIONS_PER_ITEM pairs in each direction
 * (./maintenance.ts), so the op stays small.
 */
import type { InverseKind, Phrase, WriteScope } from "../history";
import type { Db } from "../storage/sql";
import { renameItems } from "./pairs";

type PairRow = [item: string, other: string, count: number, updatedAt: number];
type SessionItemRow = [sessionId: number, item: string, seq: number];

type CovisitOp = { kind: "covisit"; items: string[]; pairs: PairRow[]; sessionItems: SessionItemRow[] };

function snapshot(db: Db, items: readonly string[]): CovisitOp {
  const list = JSON.stringify(items);
  const pairs = db.tuples<PairRow>(
    ["item", "other", "count", "updated_at"],
    `SELECT item, other, count, updated_at FROM covisit_pairs WHERE item IN (SELECT value FROM json_each(?1))
     UNION SELECT item, other, count, updated_at FROM covisit_pairs WHERE other IN (SELECT value FROM json_each(?1))`,
    [list],
    "item, other",
  );
  const sessionItems = db.tuples<SessionItemRow>(
    ["session_id", "item", "seq"],
    "SELECT session_id, item, seq FROM covisit_session_items WHERE item IN (SELECT value FROM json_each(?1))",
    [list],
    "session_id, item",
  );
  return { kind: "covisit", items: [...items], pairs, sessionItems };
}

/** Writes `rows` back as the only rows naming `items`, noting what was there. */
function replaceRows(w: WriteScope, op: CovisitOp): void {
  w.rec.note([], snapshot(w.db, op.items));
  const list = JSON.stringify(op.items);
  w.db.run("DELETE FROM covisit_pairs WHERE item IN (SELECT value FROM json_each(?1)) OR other IN (SELECT value FROM json_each(?1))", list);
  w.db.run("DELETE FROM covisit_session_items WHERE item IN (SELECT value FROM json_each(?1))", list);
  if (op.pairs.length > 0) {
    w.db.run(
      "INSERT INTO covisit_pairs (item, other, count, updated_at) SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?)",
      JSON.stringify(op.pairs),
    );
  }
  if (op.sessionItems.length > 0) {
    w.db.run(
      "INSERT INTO covisit_session_items (session_id, item, seq) SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?)",
      JSON.stringify(op.sessionItems),
    );
  }
}

/** Moves `from`'s counts and session entries to `to` (adding to `to`'s), noting how to put both back. */
export function mergeCovisit(w: WriteScope, from: string, to: string): void {
  const prior = snapshot(w.db, [from, to]);
  if (prior.pairs.length === 0 && prior.sessionItems.length === 0) return;
  w.rec.note([], prior);
  renameItems(w.db, [{ from, to }]);
}

const covisit: InverseKind<CovisitOp> = {
  apply: (w, op) => replaceRows(w, op),
  describe: (op): Phrase => ({ action: "~", noun: "covisit", name: op.items.join(" + ") }),
};

export const covisitInverse = { covisit };
