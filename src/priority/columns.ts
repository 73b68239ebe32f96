/**
 * What the priority model reads of an item row: its statistics columns
 * (src/items/stats.ts) and its creation time.
 */
import type { StatsRow } from "../items";
import type { PriorityInput } from "./model";

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
