/**
 * Completion of item names (completion/complete): the entities, files or
 * documents whose name, path or id starts with a prefix, ignoring ASCII case
 * (SQLite's NOCASE), best priority first.
 *
 * The prefix is a range on the NOCASE index of migrations/0012, so a lookup
 * reads only the matching rows, and at most CANDIDATES of them (in name
 * order) are scored: a one-letter prefix at 100,000 entities stays as fast
 * as a long one. `total` counts the matches read; `hasMore` says there were
 * more than were returned.
 */
import { ITEM_TABLES, type ItemKind } from "../items";
import type { Db } from "../storage/sql";
import type { ModelOptions } from "./model";
import { COLUMNS, scored, type ItemRow } from "./scan";

/** The most values one answer holds (the MCP limit). */
export const COMPLETION_MAX = 100;
/** The most matching rows read and ranked per request. */
const COMPLETION_CANDIDATES = 1000;

export interface Completion {
  values: string[];
  total: number;
  hasMore: boolean;
}

/** SQLite's NOCASE folds ASCII letters only; the check after the range uses the same rule. */
const foldAscii = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** Above every string that starts with the prefix, in NOCASE order: the highest code point appended. */
const upperBound = (prefix: string) => `${prefix}\u{10FFFF}`;

/** The range query of a prefix lookup (exported so a test can check its plan uses the index). */
export function prefixQuery(kind: ItemKind, prefix: string): { sql: string; params: string[] } {
  const t = ITEM_TABLES[kind];
  const range = prefix === "" ? "" : `WHERE ${t.keyColumn} >= ?1 COLLATE NOCASE AND ${t.keyColumn} < ?2 COLLATE NOCASE`;
  return {
    sql: `SELECT ${t.keyColumn} AS k, ${COLUMNS} FROM ${t.table} ${range} ORDER BY ${t.keyColumn} COLLATE NOCASE LIMIT ${COMPLETION_CANDIDATES + 1}`,
    params: prefix === "" ? [] : [prefix, upperBound(prefix)],
  };
}

export function completeItems(db: Db, kind: ItemKind, prefix: string, now: number, model: ModelOptions): Completion {
  const q = prefixQuery(kind, prefix);
  const folded = foldAscii(prefix);
  const matches = db.all<ItemRow>(q.sql, ...q.params).filter((r) => foldAscii(r.k).startsWith(folded));
  const ranked = matches
    .slice(0, COMPLETION_CANDIDATES)
    .map((r) => scored(kind, r, now, model))
    .sort((a, b) => b.priority - a.priority || (a.name < b.name ? -1 : 1));
  return {
    values: ranked.slice(0, COMPLETION_MAX).map((i) => i.name),
    total: Math.min(matches.length, COMPLETION_CANDIDATES),
    hasMore: matches.length > COMPLETION_MAX,
  };
}
