/**
 * Where each kind of item keeps its priority columns. Every item is named by
 * its key (`entity:<name>`, `file:<path>`, `doc:<id>`, as the access hook and
 * co-visitation name them); the columns (access_count, last_accessed_at,
 * created_at, category, important, base_relevance, tier, uses, cluster_size)
 * live on the item's own row (migrations/0006_priority.sql), so they follow
 * renames and go away with the row.
 */
import { parseKey } from "../covisit/kinds";
import { DomainError } from "../errors";
import { normalisePath } from "../files/path";

export const ITEM_KINDS = ["entity", "file", "doc"] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

export interface ItemTable {
  kind: ItemKind;
  /** The table holding the item's row. */
  table: "entities" | "files" | "documents";
  /** The column the key's name part matches. */
  keyColumn: "name" | "path" | "id";
}

export const ITEM_TABLES: Readonly<Record<ItemKind, ItemTable>> = {
  entity: { kind: "entity", table: "entities", keyColumn: "name" },
  file: { kind: "file", table: "files", keyColumn: "path" },
  doc: { kind: "doc", table: "documents", keyColumn: "id" },
};

export interface ItemRef {
  key: string;
  kind: ItemKind;
  /** The name part of the key: the entity's name, the file's path or the document's id. */
  name: string;
}

const isItemKind = (k: string): k is ItemKind => (ITEM_KINDS as readonly string[]).includes(k);

/** Parses an item key; undefined for a malformed key or an unknown kind. */
export function itemRef(key: string): ItemRef | undefined {
  const parsed = parseKey(key);
  if (!parsed || !isItemKind(parsed.kind)) return undefined;
  return { key, kind: parsed.kind, name: parsed.name };
}

/** Groups item references by kind, keeping their order. */
export function byKind(refs: readonly ItemRef[]): Map<ItemKind, ItemRef[]> {
  const out = new Map<ItemKind, ItemRef[]>();
  for (const r of refs) out.set(r.kind, [...(out.get(r.kind) ?? []), r]);
  return out;
}

/**
 * `key` as stored: a file's path in its canonical form (`file:/notes//a.md`
 * is `file:notes/a.md`, as every file tool spells it); other keys unchanged.
 * Throws DomainError("Invalid") naming the key when the path is not a path.
 */
export function canonicalKey(key: string): string {
  const ref = itemRef(key);
  if (ref?.kind !== "file") return key;
  const path = normalisePath(ref.name, `item ${key}:`);
  if (path === "") throw new DomainError("Invalid", `item ${key} names the memory root, not a file`);
  return `file:${path}`;
}
