/**
 * The importance mark (mark_important): a recorded write on the items'
 * `important` column, and its undo.
 *
 * ## Rules
 * - Every key is checked before anything is written: a malformed key or an
 *   item that does not exist rejects the whole call, naming each one.
 * - Marking doubles the item's priority (src/priority/model.ts) and promotes
 *   it to long term; unmarking keeps the tier (tiers only go up) unless an
 *   undo takes back the mark that promoted it.
 * - An item already in the wanted state is not written and not recorded.
 *
 * ## Inverse op (history)
 * `{kind:"mark", item, prior:{important, tier}}`: undo puts the mark back as
 * it was and the tier to what the item would have without the undone mark
 * (its prior tier, raised by what its use and cluster earned since, under the
 * deployment's model: SEMANTIC_CLUSTER_THRESHOLD comes from the WriteScope's
 * `model`), through the same recorded write, so the undo can be undone too.
 */
import { DomainError, listNames } from "../errors";
import type { Db } from "../storage/sql";
import type { InverseKind, InverseKinds, Phrase, WriteScope } from "../history";
import { ROOT_ID } from "../documents/links";
import { ensureRoot } from "../documents/rows";
import { canonicalKey } from "../files/path";
import { ITEM_TABLES, byKind, itemKey, itemRef, type ItemRef } from "../items";
import { DEFAULT_MODEL, tierFor, type ModelOptions } from "./model";

export type MarkOp = { kind: "mark"; item: string; prior: { important: boolean; tier: string } };

interface MarkRow extends Record<string, SqlStorageValue> {
  k: string;
  important: number;
  tier: string;
  access_count: number;
  cluster_size: number;
}

/** The mark columns of each item that exists, by key. */
function markRows(db: Db, refs: readonly ItemRef[]): Map<string, MarkRow> {
  const out = new Map<string, MarkRow>();
  for (const [kind, ofKind] of byKind(refs)) {
    const { table, keyColumn } = ITEM_TABLES[kind];
    const names = [...new Set(ofKind.map((r) => r.name))];
    const rows = db.all<MarkRow>(
      `SELECT ${keyColumn} AS k, important, tier, access_count, cluster_size FROM ${table}
       WHERE ${keyColumn} IN (SELECT value FROM json_each(?))`,
      JSON.stringify(names),
    );
    for (const r of rows) out.set(`${kind}:${r.k}`, r);
  }
  return out;
}

const tierOf = (row: MarkRow, important: boolean, tier: string, model: ModelOptions) =>
  tierFor(
    {
      important,
      tier,
      accessCount: row.access_count,
      clusterSize: row.cluster_size,
    },
    model,
  );

/** Sets one item's mark and tier, noting the inverse. */
function setMark(w: WriteScope, ref: ItemRef, row: MarkRow, important: boolean, tier: string): void {
  const { table, keyColumn } = ITEM_TABLES[ref.kind];
  w.db.run(`UPDATE ${table} SET important = ?, tier = ? WHERE ${keyColumn} = ?`, important ? 1 : 0, tier, ref.name);
  w.rec.note(ref.key, { kind: "mark", item: ref.key, prior: { important: row.important === 1, tier: row.tier } } satisfies MarkOp);
}

export interface MarkResult {
  /** Items whose mark changed. */
  changed: string[];
  /** Items that already had the mark asked for. */
  unchanged: string[];
}

/** The canonical key of `key` (a file's path as stored: `file:/a.md` is `file:a.md`), or undefined when malformed. */
function canonical(key: string): ItemRef | undefined {
  try {
    return itemRef(canonicalKey(key));
  } catch {
    return undefined;
  }
}

/**
 * mark_important: validates every key, then marks (or unmarks) them as one recorded change. The root
 * document can be marked before its lazy creation (src/documents/store.ts): it exists from the start.
 */
export function markImportant(w: WriteScope, items: readonly string[], important: boolean, rootTemplate: string): MarkResult {
  if (items.includes(itemKey.doc(ROOT_ID))) ensureRoot(w.db, rootTemplate, w.now);
  const model = w.model ?? DEFAULT_MODEL;
  const malformed = [...new Set(items.filter((k) => canonical(k) === undefined))];
  const refs = [...new Map(items.flatMap((k) => canonical(k) ?? []).map((r) => [r.key, r])).values()];
  const rows = markRows(w.db, refs);
  const missing = refs.filter((r) => !rows.has(r.key)).map((r) => r.key);
  if (malformed.length > 0 || missing.length > 0) {
    const problems = [
      malformed.length > 0 ? `not an item key (write entity:<name>, file:<path> or doc:<id>): ${listNames(malformed)}` : "",
      missing.length > 0 ? `not found: ${listNames(missing)}` : "",
    ].filter(Boolean);
    throw new DomainError(malformed.length > 0 ? "Invalid" : "NotFound", `items: ${problems.join("; ")}. Nothing was marked.`);
  }
  const result: MarkResult = { changed: [], unchanged: [] };
  for (const ref of refs) {
    const row = rows.get(ref.key) as MarkRow;
    if ((row.important === 1) === important) {
      result.unchanged.push(ref.key);
      continue;
    }
    setMark(w, ref, row, important, tierOf(row, important, row.tier, model));
    result.changed.push(ref.key);
  }
  return result;
}

const mark: InverseKind<MarkOp> = {
  apply(w, op) {
    const ref = itemRef(op.item);
    const row = ref && markRows(w.db, [ref]).get(ref.key);
    if (!ref || !row) throw new DomainError("Conflict", `${op.item} no longer exists, so its importance mark cannot be undone; nothing was undone.`);
    if ((row.important === 1) === op.prior.important && row.tier === op.prior.tier) return;
    setMark(w, ref, row, op.prior.important, tierOf(row, op.prior.important, op.prior.tier, w.model ?? DEFAULT_MODEL));
  },
  describe: (op): Phrase => {
    // The forward change: a mark when the prior was unmarked.
    return { action: op.prior.important ? "-" : "+", noun: "important", name: op.item };
  },
};

/** Registered in INVERSES (src/context/inverses.ts). */
export const priorityInverses: InverseKinds<MarkOp> = { mark };
