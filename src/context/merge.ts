/**
 * merge_entities as one recorded change: the graph's part (src/graph/merge.ts:
 * observations, relations, aliases, statistics) and then co-visitation's
 * (src/covisit/merge.ts), each source's counts moving to the target. The
 * call reports no accesses, so the change record holds every row it touched
 * and an undo puts the context back exactly.
 */
import { aliasInverse } from "../graph/aliases";
import { mergeCovisit, covisitInverse } from "../covisit/merge";
import { mergeEntities as mergeGraph, mergeInverse, type MergeResult } from "../graph/merge";
import type { RecordingScope } from "../history";
import { itemKey } from "../items";

export type { MergeResult };

/** The merge's own inverse kinds (aliases, statistics, co-visitation), joined in INVERSES (./inverses.ts). */
export const mergeInverses = { ...aliasInverse, ...mergeInverse, ...covisitInverse };

export function mergeEntities(w: RecordingScope, target: string, sources: readonly string[]): MergeResult & { change: number } {
  const result = mergeGraph(w, target, sources);
  for (const source of result.merged) mergeCovisit(w, itemKey.entity(source), itemKey.entity(target));
  return { ...result, change: w.rec.seq() };
}
