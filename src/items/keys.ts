/**
 * What a memory item is, in one place: its kind, its key and the table that
 * holds its row. Every domain names items the same way:
 *
 *   entity:<name>   file:<path>   doc:<id>
 *
 * History notes changes under these keys, the access hook and co-visitation
 * relate them, the priority model scores their rows. A new kind of memory
 * adds one entry to ITEM_KINDS, ITEM_TABLES and itemKey; the type checker
 * then points at every table of kinds (co-visitation's existence checks,
 * the statistics' counts) that must learn it too.
 */

export const ITEM_KINDS = ["entity", "file", "doc"] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

/** The key of an item of each kind. */
export const itemKey: Readonly<Record<ItemKind, (name: string) => string>> = {
  entity: (name) => `entity:${name}`,
  file: (path) => `file:${path}`,
  doc: (id) => `doc:${id}`,
};

export interface ItemTable {
  kind: ItemKind;
  /** The table holding the item's row. */
  table: "entities" | "files" | "documents";
  /** The column the key's name part matches. */
  keyColumn: "name" | "path" | "id";
}

/** Where each kind keeps its rows (and on them the statistics of ./stats.ts). */
export const ITEM_TABLES: Readonly<Record<ItemKind, ItemTable>> = {
  entity: { kind: "entity", table: "entities", keyColumn: "name" },
  file: { kind: "file", table: "files", keyColumn: "path" },
  doc: { kind: "doc", table: "documents", keyColumn: "id" },
};

export const isItemKind = (kind: string): kind is ItemKind => (ITEM_KINDS as readonly string[]).includes(kind);

/** A key split at its first colon, whatever its kind. */
export interface ParsedKey {
  kind: string;
  name: string;
}

/** `file:notes/a.md` → { kind: "file", name: "notes/a.md" }; undefined for a malformed key. The kind may be unknown. */
export function parseKey(key: string): ParsedKey | undefined {
  const colon = key.indexOf(":");
  if (colon <= 0 || colon === key.length - 1) return undefined;
  return { kind: key.slice(0, colon), name: key.slice(colon + 1) };
}

export interface ItemRef {
  key: string;
  kind: ItemKind;
  /** The name part of the key: the entity's name, the file's path or the document's id. */
  name: string;
}

/** Parses an item key; undefined for a malformed key or an unknown kind. */
export function itemRef(key: string): ItemRef | undefined {
  const parsed = parseKey(key);
  if (!parsed || !isItemKind(parsed.kind)) return undefined;
  return { key, kind: parsed.kind, name: parsed.name };
}

/** Groups items (refs or parsed keys) by kind, keeping their order. */
export function byKind<T extends { kind: string }>(items: readonly T[]): Map<T["kind"], T[]> {
  const out = new Map<T["kind"], T[]>();
  for (const item of items) {
    const group = out.get(item.kind);
    if (group) group.push(item);
    else out.set(item.kind, [item]);
  }
  return out;
}
