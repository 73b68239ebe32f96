/**
 * Pages through a context's items in a stable order (kind, then name, path
 * or id), for resources/list. Each page is a range on the key column's
 * UNIQUE index, so the thousandth page costs what the first does; the
 * cursor is where the last page ended.
 */
import type { Db } from "../storage/sql";
import { ITEM_KINDS, ITEM_TABLES, type ItemKind } from "./keys";

export interface ItemPosition {
  kind: ItemKind;
  name: string;
}

export interface ItemListing {
  items: ItemPosition[];
  /** Where the next page starts (after this item); absent on the last page. */
  next?: ItemPosition;
}

export function listItems(db: Db, kinds: readonly ItemKind[], after: ItemPosition | undefined, limit: number): ItemListing {
  const items: ItemPosition[] = [];
  const order = ITEM_KINDS.filter((k) => kinds.includes(k));
  const start = after ? order.indexOf(after.kind) : 0;
  if (start < 0) return { items };
  for (const kind of order.slice(start)) {
    const t = ITEM_TABLES[kind];
    const from = after && kind === after.kind ? after.name : undefined;
    const rows = db.all<{ k: string }>(
      `SELECT ${t.keyColumn} AS k FROM ${t.table}${from === undefined ? "" : ` WHERE ${t.keyColumn} > ?`} ORDER BY ${t.keyColumn} LIMIT ${limit - items.length + 1}`,
      ...(from === undefined ? [] : [from]),
    );
    for (const r of rows) {
      if (items.length === limit) return { items, next: items[items.length - 1] };
      items.push({ kind, name: r.k });
    }
  }
  return { items };
}
