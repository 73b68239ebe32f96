/**
 * An item row's priority columns as one value, for the inverse ops that put
 * a deleted entity, file or document back (src/graph/writes.ts,
 * src/files/store.ts, src/documents/rows.ts): undoing a delete restores the
 * item's use, category, mark and tier with it.
 *
 * Ops recorded before these columns existed carry no `stats`; restoring one
 * gives the columns' migration defaults, as for a row that predates them.
 */
import type { Json } from "../history";
import type { PriorityInput } from "./model";

/** The priority columns of one row, camel-cased (created_at stays with each domain's own times). */
export interface ItemStats {
  [key: string]: Json;
  accessCount: number;
  lastAccessedAt: number | null;
  category: string;
  important: boolean;
  baseRelevance: number;
  tier: string;
  uses: number;
  clusterSize: number;
}

/** The columns as a SELECT list (each table has them all, migrations/0006_priority.sql). */
export const STATS_COLUMNS = "access_count, last_accessed_at, category, important, base_relevance, tier, uses, cluster_size";

export interface StatsRow {
  access_count: number;
  last_accessed_at: number | null;
  category: string;
  important: number;
  base_relevance: number;
  tier: string;
  uses: number;
  cluster_size: number;
}

export const statsOf = (r: StatsRow): ItemStats => ({
  accessCount: r.access_count,
  lastAccessedAt: r.last_accessed_at,
  category: r.category,
  important: r.important === 1,
  baseRelevance: r.base_relevance,
  tier: r.tier,
  uses: r.uses,
  clusterSize: r.cluster_size,
});

/** The values to insert for STATS_COLUMNS, in order: the prior's, else a new item's (category given). */
export function statsValues(stats: Partial<ItemStats> | undefined, category: string): (string | number | null)[] {
  return [
    stats?.accessCount ?? 0,
    stats?.lastAccessedAt ?? null,
    stats?.category ?? category,
    stats?.important ? 1 : 0,
    stats?.baseRelevance ?? 1,
    stats?.tier ?? "short",
    stats?.uses ?? 0,
    stats?.clusterSize ?? 0,
  ];
}

/** What the priority model reads of a row that has the priority columns and its creation time. */
export const priorityInputOf = (
  r: Pick<StatsRow, "uses" | "last_accessed_at" | "category" | "important" | "cluster_size" | "base_relevance"> & { created_at: number },
): PriorityInput => ({
  uses: r.uses,
  createdAt: r.created_at,
  lastAccessedAt: r.last_accessed_at,
  category: r.category,
  important: r.important === 1,
  clusterSize: r.cluster_size,
  baseRelevance: r.base_relevance,
});
