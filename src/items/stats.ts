/**
 * Every item's statistics: the priority columns that each item table has
 * (migrations/0006_priority.sql), on the item's own row so they follow
 * renames and go away with the row. Their names, their order and their
 * values for a new or a restored row are defined here once; a domain that
 * writes an item row (src/graph/writes.ts, src/files/store.ts,
 * src/documents/rows.ts) or puts one back (src/priority/archive.ts) lists
 * them with STATS_COLUMNS, binds them with statsPlaceholders and fills them
 * with statsValues, so no statement counts its `?` by hand.
 *
 * Ops recorded before these columns existed carry no `stats`; restoring one
 * gives the columns' migration defaults, as for a row that predates them.
 */
import type { Json } from "../storage/json";
import { placeholders } from "../storage/sql";

export const CATEGORIES = ["personal", "technical", "project", "casual", "general"] as const;
/** What an item is about (its `category` column): the classifier (./classify.ts) decides it from the item's text. */
export type Category = (typeof CATEGORIES)[number];

export const isCategory = (c: string): c is Category => (CATEGORIES as readonly string[]).includes(c);

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

const STATS_COLUMN_NAMES = ["access_count", "last_accessed_at", "category", "important", "base_relevance", "tier", "uses", "cluster_size"] as const;

/** The columns as a column list, in statsValues' order. */
export const STATS_COLUMNS = STATS_COLUMN_NAMES.join(", ");

/** One placeholder per statistics column: "?, ?, …", or numbered from `first` ("?7, ?8, …") in a statement that numbers its parameters. */
export const statsPlaceholders = (first?: number): string => placeholders(STATS_COLUMN_NAMES.length, first);

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
