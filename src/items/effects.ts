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

export interface ItemEffects {
  accesses: Access[];
  /** Keys of items that no longer exist. */
  removed: string[];
  /** Items that now live under another key. */
  moved: Move[];
}
