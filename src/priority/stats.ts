/**
 * memory_stats' numbers: items by tier, category and kind, capacity and use
 * per limit, the archive's size and newest rows, the last evaluation, and
 * the top items by priority. Counting uses the (tier, category) indexes; the
 * top items stream through a bounded heap (./scan.ts), so nothing here holds
 * more than a few rows whatever the context's size. Reading stats is not an
 * access: nothing here writes.
 */
import type { Db } from "../storage/sql";
import { hasLimits, limitUse, readCapacity, usage, type CapacityLimits, type LimitUse } from "./capacity";
import { lastEvaluation, nextEvaluation, type Evaluation, type EvaluationOptions } from "./evaluate";
import { ITEM_TABLES, type ItemKind } from "../items";
import { CATEGORIES } from "../items";
import { topItems } from "./scan";

export const TOP_ITEMS = 10;
const NEWEST_ARCHIVED = 5;

interface TopItem {
  item: string;
  priority: number;
  tier: string;
  category: string;
  important: boolean;
  accessCount: number;
}

export interface MemoryStats {
  total: number;
  byTier: Record<string, number>;
  byCategory: Record<string, number>;
  byKind: Record<ItemKind, number>;
  capacity: CapacityLimits | null;
  limits: LimitUse[];
  archive: { items: number; bytes: number; newest: { id: number; item: string; archivedAt: number }[] };
  lastEvaluation: Evaluation | null;
  nextEvaluation: number | null;
  top: TopItem[];
}

/** What memory_stats shows without its scans. */
export type PriorityOverview = Omit<MemoryStats, "top" | "byCategory" | "byKind" | "byTier" | "total">;

/** Counts, capacity and the archive: cheap, for the contexts API's stats too. */
export function priorityOverview(db: Db): PriorityOverview {
  const capacity = readCapacity(db);
  const a = db.one<{ n: number; bytes: number | null }>("SELECT COUNT(*) AS n, SUM(bytes) AS bytes FROM archive");
  const newest = db
    .all<{ id: number; item: string; archived_at: number }>(`SELECT id, item, archived_at FROM archive ORDER BY id DESC LIMIT ${NEWEST_ARCHIVED}`)
    .map((r) => ({ id: r.id, item: r.item, archivedAt: r.archived_at }));
  return {
    capacity: hasLimits(capacity) ? capacity : null,
    limits: hasLimits(capacity) ? limitUse(capacity, usage(db)) : [],
    archive: { items: a?.n ?? 0, bytes: a?.bytes ?? 0, newest },
    lastEvaluation: lastEvaluation(db),
    nextEvaluation: hasLimits(capacity) ? nextEvaluation(db) : null,
  };
}

export function memoryStats(db: Db, now: number, opts: EvaluationOptions): MemoryStats {
  const byTier: Record<string, number> = { short: 0, mid: 0, long: 0 };
  const byCategory: Record<string, number> = Object.fromEntries(CATEGORIES.map((c) => [c, 0]));
  const byKind: Record<ItemKind, number> = { entity: 0, file: 0, doc: 0 };
  for (const t of Object.values(ITEM_TABLES)) {
    for (const r of db.all<{ tier: string; category: string; n: number }>(`SELECT tier, category, COUNT(*) AS n FROM ${t.table} GROUP BY tier, category`)) {
      byTier[r.tier] = (byTier[r.tier] ?? 0) + r.n;
      byCategory[r.category] = (byCategory[r.category] ?? 0) + r.n;
      byKind[t.kind] += r.n;
    }
  }
  const top = topItems(db, TOP_ITEMS, now, opts.model).map((i) => ({
    item: i.key,
    priority: i.priority,
    tier: i.tier,
    category: i.category,
    important: i.important,
    accessCount: i.accessCount,
  }));
  const total = byKind.entity + byKind.file + byKind.doc;
  return { total, byTier, byCategory, byKind, ...priorityOverview(db), top };
}
