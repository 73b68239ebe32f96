/**
 * Streams every item's priority columns (entities, files, documents) and
 * keeps only the few a caller asks for in a bounded heap: the lowest
 * priorities the evaluation may prune, or the top items memory_stats shows.
 * Rows are read through a cursor, never all at once, so memory stays flat at
 * 100,000 items; the priority itself comes from ./model.ts.
 */
import type { Db, SqlValue } from "../storage/sql";
import { BoundedHeap } from "./heap";
import { priorityInputOf } from "./columns";
import { ITEM_KINDS, ITEM_TABLES, type ItemKind } from "../items";
import { DAY_MS, priority, tierFor, type ModelOptions, type PriorityInput, type Tier } from "./model";

/** An item's stored priority columns and its priority now. */
export interface ScoredItem {
  key: string;
  kind: ItemKind;
  name: string;
  priority: number;
  tier: string;
  category: string;
  important: boolean;
  accessCount: number;
  input: PriorityInput;
}

export interface ItemRow extends Record<string, SqlStorageValue> {
  k: string;
  uses: number;
  created_at: number;
  last_accessed_at: number | null;
  category: string;
  important: number;
  cluster_size: number;
  base_relevance: number;
  access_count: number;
  tier: string;
}

export const COLUMNS = "uses, created_at, last_accessed_at, category, important, cluster_size, base_relevance, access_count, tier";

/** Items accessed this recently are never pruned (a restore counts as an access, so a restored item is safe). */
export const PRUNE_GRACE_MS = DAY_MS;

/** Not accessed since ?1 (the grace period's start). */
const RESTED = "(last_accessed_at IS NULL OR last_accessed_at < ?1)";

/**
 * Which items the evaluation may prune: never a marked one, nor one accessed
 * within PRUNE_GRACE_MS; never the root document or a document with children
 * (pruning it would orphan them). A mark also protects what hangs on it:
 * never a document whose parent is marked (pruning rewrites the parent's
 * link), nor an entity related to a marked entity (pruning removes the
 * relation from it).
 */
const PRUNABLE: Readonly<Record<ItemKind, string>> = {
  entity: `important = 0 AND ${RESTED}
    AND NOT EXISTS (SELECT 1 FROM relations r JOIN entities o ON o.id = r.to_id WHERE r.from_id = entities.id AND o.important = 1)
    AND NOT EXISTS (SELECT 1 FROM relations r JOIN entities o ON o.id = r.from_id WHERE r.to_id = entities.id AND o.important = 1)`,
  file: `important = 0 AND ${RESTED}`,
  doc: `important = 0 AND ${RESTED} AND parent_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM documents c WHERE c.parent_id = documents.id)
    AND NOT EXISTS (SELECT 1 FROM documents p WHERE p.id = documents.parent_id AND p.important = 1)`,
};

export function scored(kind: ItemKind, r: ItemRow, now: number, model: ModelOptions): ScoredItem {
  const input = priorityInputOf(r);
  return {
    key: `${kind}:${r.k}`,
    kind,
    name: r.k,
    priority: priority(input, now, model),
    tier: r.tier,
    category: r.category,
    important: r.important === 1,
    accessCount: r.access_count,
    input,
  };
}

function* rows(db: Db, kind: ItemKind, where: string, ...params: SqlValue[]): Generator<ItemRow> {
  const t = ITEM_TABLES[kind];
  yield* db.each<ItemRow>(`SELECT ${t.keyColumn} AS k, ${COLUMNS} FROM ${t.table}${where ? ` WHERE ${where}` : ""}`, ...params);
}

/** The `n` items with the highest priority now (marked ones included), best first. */
export function topItems(db: Db, n: number, now: number, model: ModelOptions): ScoredItem[] {
  const heap = new BoundedHeap<ScoredItem>(n, (a, b) => a.priority > b.priority || (a.priority === b.priority && a.key < b.key));
  for (const kind of ITEM_KINDS) for (const r of rows(db, kind, "")) heap.push(scored(kind, r, now, model));
  return heap.sorted();
}

/**
 * Up to `n` prunable items (PRUNABLE) below `threshold` in `tiers`, lowest
 * priority first: the evaluation's candidates.
 */
export function lowestPrunable(db: Db, n: number, threshold: number, tiers: ReadonlySet<Tier>, now: number, model: ModelOptions): ScoredItem[] {
  const heap = new BoundedHeap<ScoredItem>(n, (a, b) => a.priority < b.priority || (a.priority === b.priority && a.key < b.key));
  for (const kind of ITEM_KINDS) {
    for (const r of rows(db, kind, PRUNABLE[kind], now - PRUNE_GRACE_MS)) {
      if (!tiers.has(r.tier as Tier)) continue;
      const item = scored(kind, r, now, model);
      if (item.priority < threshold) heap.push(item);
    }
  }
  return heap.sorted();
}

/** The tier an item belongs in, given a fresh cluster size. */
export const freshTier = (item: ScoredItem, clusterSize: number, model: ModelOptions): Tier =>
  tierFor({ ...item.input, clusterSize, accessCount: item.accessCount, tier: item.tier }, model);
