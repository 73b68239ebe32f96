/**
 * The item kinds co-visitation knows, and how to tell whether an item of a
 * kind still exists, so a deleted item is never recommended however it was
 * deleted (a tool, an import, an undo).
 *
 * KINDS covers every kind of src/items, so a new kind of memory cannot
 * compile until it says here how to find its items; a stored row naming a
 * kind that is not one of them is skipped and logged (./recommend.ts).
 */
import { parentsOf } from "../documents/rows";
import { existingFiles } from "../files/store";
import { idsByName } from "../graph/rows";
import { byKind, itemKey, type ItemKind, type ItemRef } from "../items";
import type { Db } from "../storage/sql";

type Exists = (db: Db, names: readonly string[]) => Set<string>;

const KINDS: Readonly<Record<ItemKind, Exists>> = {
  entity: (db, names) => new Set(idsByName(db, names).keys()),
  file: existingFiles,
  doc: (db, ids) => new Set(parentsOf(db, ids).keys()),
};

/** The keys of the items of `refs` that exist now. */
export function existing(db: Db, refs: readonly ItemRef[]): Set<string> {
  const out = new Set<string>();
  for (const [kind, ofKind] of byKind(refs)) {
    const names = ofKind.map((r) => r.name);
    for (const name of KINDS[kind](db, names)) out.add(itemKey[kind](name));
  }
  return out;
}
