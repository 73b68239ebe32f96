/**
 * The access hook: the one place every tool call reports the memory items it
 * returned to the agent or wrote. Items are keyed by kind and name so later
 * features can relate them across kinds:
 *
 *   entity:<name>   file:<path>   doc:<id>
 *
 * Called by MemoryContext inside the same transaction as the read or write,
 * once per call with the whole batch. Today it keeps the entities' access
 * statistics; co-visitation (which items are used together) and access-based
 * priority hook in here too, so no tool has to remember to call them.
 */
import { chunksFor, placeholders, type Db } from "./sql";
import type { CallMeta } from "./MemoryContext";

export type AccessKind = "open" | "search" | "view" | "write";

export interface Access {
  /** `entity:<name>`, `file:<path>` or `doc:<id>`. */
  item: string;
  kind: AccessKind;
}

export const itemKey = {
  entity: (name: string) => `entity:${name}`,
  file: (path: string) => `file:${path}`,
  doc: (id: string) => `doc:${id}`,
};

/** Retrievals that count as a use of the item (a write is not a retrieval). */
const RETRIEVALS: ReadonlySet<AccessKind> = new Set(["open", "search", "view"]);

export function recordAccess(db: Db, accesses: readonly Access[], now: number, _meta: CallMeta): void {
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
}
