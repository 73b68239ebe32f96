/**
 * The item kinds co-visitation knows, and how to tell whether an item of a
 * kind still exists, so a deleted item is never recommended however it was
 * deleted (a tool, an import, an undo).
 *
 * A new kind of memory adds one line here; until it does, rows naming it
 * are skipped and logged rather than recommended unchecked.
 */
import type { Db } from "../storage/sql";
import { parentsOf } from "../documents/rows";
import { existingFiles } from "../files/store";
import { idsByName } from "../graph/rows";

type Exists = (db: Db, names: readonly string[]) => Set<string>;

const KINDS: Readonly<Record<string, Exists>> = {
  entity: (db, names) => new Set(idsByName(db, names).keys()),
  file: existingFiles,
  doc: (db, ids) => new Set(parentsOf(db, ids).keys()),
};

export interface ParsedKey {
  kind: string;
  name: string;
}

/** `file:notes/a.md` → { kind: "file", name: "notes/a.md" }; undefined for a malformed key. */
export function parseKey(key: string): ParsedKey | undefined {
  const colon = key.indexOf(":");
  if (colon <= 0 || colon === key.length - 1) return undefined;
  return { kind: key.slice(0, colon), name: key.slice(colon + 1) };
}

export const knownKind = (kind: string): boolean => Object.hasOwn(KINDS, kind);

/** The subset of `keys` (all of known kinds) whose items exist now. */
export function existing(db: Db, keys: readonly ParsedKey[]): Set<string> {
  const byKind = new Map<string, string[]>();
  for (const k of keys) byKind.set(k.kind, [...(byKind.get(k.kind) ?? []), k.name]);
  const out = new Set<string>();
  for (const [kind, names] of byKind) {
    const exists = KINDS[kind];
    if (!exists) continue;
    for (const name of exists(db, names)) out.add(`${kind}:${name}`);
  }
  return out;
}
