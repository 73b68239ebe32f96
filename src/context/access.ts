/**
 * The access hook: the one place every tool call reports the memory items it
 * returned to the agent or wrote. Items are keyed by kind and name
 * (src/items) so later features can relate them across kinds.
 *
 * Called by MemoryContext inside the same transaction as the read or write,
 * once per call with the whole batch. It keeps every item's access
 * statistics, tier and relevance (src/priority/track.ts) and feeds
 * co-visitation (src/covisit), which answers with the items related to what
 * was retrieved, so no tool has to remember to call them.
 *
 * Items that disappear or change key are reported here too
 * (`recordRemoval`, `recordRename`), so what hangs off this hook stays true.
 */
import { covisit, covisitForget, covisitRename, type RelatedItem } from "../covisit";
import type { Access, AccessKind, ItemEffects, ItemSink, Move } from "../items";
import { DEFAULT_MODEL, type AccessWeightKind, type ModelOptions } from "../priority/model";
import { trackRetrievals } from "../priority/track";
import { modelOptions } from "../priority/weights";
import type { Db } from "../storage/sql";
import type { Settings } from "../settings";
import type { CallMeta } from "../storage/meta";

export type { Access, ItemEffects, RelatedItem };

/** Deployment settings the hook needs (MemoryContext passes its own). */
export interface AccessOptions {
  /** COVIS_SESSION_IDLE_MINUTES in milliseconds. */
  sessionIdleMs: number;
  /** MEMORY_COVIS_MAX_RECOMMENDATIONS. */
  maxRelated: number;
  /** The priority model (MEMORY_CATEGORY_WEIGHTS): it decides tiers. */
  model: ModelOptions;
}

export const DEFAULT_ACCESS_OPTIONS: AccessOptions = { sessionIdleMs: 30 * 60_000, maxRelated: 3, model: DEFAULT_MODEL };

/** The options a deployment's settings give. */
export const accessOptions = (s: Settings): AccessOptions => ({
  sessionIdleMs: s.COVIS_SESSION_IDLE_MINUTES * 60_000,
  maxRelated: s.MEMORY_COVIS_MAX_RECOMMENDATIONS,
  model: modelOptions(s),
});

/**
 * Retrievals: they count as a use of the item, with the weight the priority
 * model gives them (src/priority/model.ts ACCESS_WEIGHTS). A write is not a
 * retrieval; a search hit is a lighter one.
 */
const RETRIEVALS: ReadonlyMap<AccessKind, AccessWeightKind> = new Map([
  ["open", "direct"],
  ["view", "direct"],
  ["search", "search"],
] as const);
/** Accesses that relate items to each other. A search result list is not a use of each hit. */
const COVISITS: ReadonlySet<AccessKind> = new Set(["open", "view", "write"]);
/** Retrievals that are answered with related items. */
const RECOMMENDS: ReadonlySet<AccessKind> = new Set(["open", "view"]);

/**
 * Records `accesses`; returns the items related to those opened or viewed
 * (empty when none were), for the call to show the agent.
 */
export function recordAccess(db: Db, accesses: readonly Access[], now: number, meta: CallMeta, options: AccessOptions = DEFAULT_ACCESS_OPTIONS): RelatedItem[] {
  trackRetrievals(
    db,
    accesses.flatMap((a) => {
      const weight = RETRIEVALS.get(a.kind);
      return weight === undefined ? [] : [{ item: a.item, weight }];
    }),
    now,
    options.model,
  );
  const used = accesses.filter((a) => COVISITS.has(a.kind)).map((a) => a.item);
  const retrieved = accesses.filter((a) => RECOMMENDS.has(a.kind)).map((a) => a.item);
  if (used.length === 0 && retrieved.length === 0) return [];
  return covisit(db, meta, used, retrieved, now, options);
}

/** Items deleted by a call: nothing that hangs off this hook may point at them any more. */
function recordRemoval(db: Db, items: readonly string[]): void {
  covisitForget(db, items);
}

/** Items a call renamed: what hangs off this hook follows them. */
function recordRename(db: Db, moves: readonly Move[]): void {
  covisitRename(db, moves);
}

/** The item sink of a write scope: removals and renames reach the hook as the write makes them. */
export const itemSink = (db: Db): ItemSink => ({
  removed: (keys) => recordRemoval(db, keys),
  moved: (moves) => recordRename(db, moves),
});

/** Reports everything a call did to items, renames and removals first; returns what is related to its retrievals. */
export function reportEffects(db: Db, effects: ItemEffects, now: number, meta: CallMeta, options?: AccessOptions): RelatedItem[] {
  recordRemoval(db, effects.removed);
  recordRename(db, effects.moved);
  return recordAccess(db, effects.accesses, now, meta, options);
}
