/**
 * What one call did to items, as a domain reports it to the access hook
 * (src/context/access.ts): which it read or wrote, which are gone, which
 * now live under another key.
 */

export type AccessKind = "open" | "search" | "view" | "write";

export interface Access {
  /** `entity:<name>`, `file:<path>` or `doc:<id>`. */
  item: string;
  kind: AccessKind;
}

/** An item that now lives under another key. */
export interface Move {
  from: string;
  to: string;
}

/**
 * Where a write reports, as it goes, the items it removed or re-keyed
 * (an undo's appliers, pruning), so that what hangs off items (the access
 * hook's co-visitation, src/context/access.ts) follows them in the same
 * transaction. The runner of recorded writes supplies it.
 */
export interface ItemSink {
  removed(keys: readonly string[]): void;
  moved(moves: readonly Move[]): void;
}

export interface ItemEffects {
  accesses: Access[];
  /** Keys of items that no longer exist. */
  removed: string[];
  /** Items that now live under another key. */
  moved: Move[];
}

/** A domain call's value and what it did to items. */
export interface WithEffects<T> {
  value: T;
  effects: ItemEffects;
}

/** Effects of a call that accessed `items` in one way and removed or moved none. */
export const accessed = (items: readonly string[], kind: AccessKind): ItemEffects => ({ accesses: items.map((item) => ({ item, kind })), removed: [], moved: [] });
