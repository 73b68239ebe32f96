/**
 * The access hook: the one place every tool call reports the memory items it
 * returned to the agent or wrote. Items are keyed by kind and name so later
 * features can relate them across kinds:
 *
 *   entity:<name>   file:<path>   doc:<id>
 *
 * Called by MemoryContext inside the same transaction as the read or write,
 * once per call with the whole batch. It keeps the entities' access
 * statistics and feeds co-visitation (src/covisit), which answers with the
 * items related to what was retrieved; access-based priority hooks in here
 * too, so no tool has to remember to call them.
 *
 * Items that disappear or change key are reported here too
 * (`recordRemoval`, `recordRename`), so what hangs off this hook stays true.
 */
import { covisit, covisitForget, covisitRename, type Move, type RelatedItem } from "../covisit";
import { chunksFor, placeholders, type Db } from "./sql";
import type { Settings } from "../settings";
import type { CallMeta } from "./meta";

export type AccessKind = "open" | "search" | "view" | "write";

export interface Access {
  /** `entity:<name>`, `file:<path>` or `doc:<id>`. */
  item: string;
  kind: AccessKind;
}

/** What one call did to items: for `reportEffects`. */
export interface ItemEffects {
  accesses: Access[];
  /** Keys of items that no longer exist. */
  removed: string[];
  /** Items that now live under another key. */
  moved: Move[];
}

export type { Move, RelatedItem };

export const itemKey = {
  entity: (name: string) => `entity:${name}`,
  file: (path: string) => `file:${path}`,
  doc: (id: string) => `doc:${id}`,
};

/** Deployment settings the hook needs (MemoryContext passes its own). */
export interface AccessOptions {
  /** COVIS_SESSION_IDLE_MINUTES in milliseconds. */
  sessionIdleMs: number;
  /** MEMORY_COVIS_MAX_RECOMMENDATIONS. */
  maxRelated: number;
}

export const DEFAULT_ACCESS_OPTIONS: AccessOptions = { sessionIdleMs: 30 * 60_000, maxRelated: 3 };

/** The options a deployment's settings give. */
export const accessOptions = (s: Settings): AccessOptions => ({
  sessionIdleMs: s.COVIS_SESSION_IDLE_MINUTES * 60_000,
  maxRelated: s.MEMORY_COVIS_MAX_RECOMMENDATIONS,
});

/** Retrievals that count as a use of the item (a write is not a retrieval). */
const RETRIEVALS: ReadonlySet<AccessKind> = new Set(["open", "search", "view"]);
/** Accesses that relate items to each other. A search result list is not a use of each hit. */
const COVISITS: ReadonlySet<AccessKind> = new Set(["open", "view", "write"]);
/** Retrievals that are answered with related items. */
const RECOMMENDS: ReadonlySet<AccessKind> = new Set(["open", "view"]);

/**
 * Records `accesses`; returns the items related to those opened or viewed
 * (empty when none were), for the call to show the agent.
 */
export function recordAccess(
  db: Db,
  accesses: readonly Access[],
  now: number,
  meta: CallMeta,
  options: AccessOptions = DEFAULT_ACCESS_OPTIONS,
): RelatedItem[] {
  const entityNames = accesses
    .filter((a) => RETRIEVALS.has(a.kind) && a.item.startsWith("entity:"))
    .map((a) => a.item.slice("entity:".length));
  for (const chunk of chunksFor([...new Set(entityNames)])) {
    db.run(
      `UPDATE entities SET access_count = access_count + 1, last_accessed_at = ? WHERE name IN (${placeholders(chunk.length)})`,
      now,
      ...chunk,
    );
  }
  const used = accesses.filter((a) => COVISITS.has(a.kind)).map((a) => a.item);
  const retrieved = accesses.filter((a) => RECOMMENDS.has(a.kind)).map((a) => a.item);
  if (used.length === 0 && retrieved.length === 0) return [];
  return covisit(db, meta, used, retrieved, now, options);
}

/** Items deleted by a call: nothing that hangs off this hook may point at them any more. */
export function recordRemoval(db: Db, items: readonly string[]): void {
  covisitForget(db, items);
}

/** Items a call renamed: what hangs off this hook follows them. */
export function recordRename(db: Db, moves: readonly Move[]): void {
  covisitRename(db, moves);
}

/** Reports everything a call did to items, renames and removals first; returns what is related to its retrievals. */
export function reportEffects(db: Db, effects: ItemEffects, now: number, meta: CallMeta, options?: AccessOptions): RelatedItem[] {
  recordRemoval(db, effects.removed);
  recordRename(db, effects.moved);
  return recordAccess(db, effects.accesses, now, meta, options);
}
