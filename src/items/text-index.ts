/**
 * Items read through their full-text indexes, for recall
 * (src/search/recall.ts): `rankByText` ranks one kind's rows for a MATCH
 * expression by FTS5's bm25() with a snippet, beside the rows' statistics
 * (./stats.ts); `contentHeads` reads the start of items' content. A domain
 * describes its index once, as a TextIndex (src/files/search.ts,
 * src/documents/search.ts).
 *
 * ## Invariants
 * - The caller builds the MATCH expression with every string in it quoted,
 *   so no query text is FTS5 syntax.
 * - `bm25` comes back with its sign flipped (higher is better); equal scores
 *   keep the order of the item's key.
 */
import type { Db } from "../storage/sql";
import { STATS_COLUMNS, type StatsRow } from "./stats";

/** An item table and the FTS5 index over it. */
export interface TextIndex {
  /** The FTS5 table. */
  fts: string;
  /** The item table, and its column the index's rowid stands for. */
  table: string;
  rowid: string;
  /** The item's key column: it names the item and breaks ties. */
  key: string;
  /** Further columns of the item table the answer carries. */
  columns: readonly string[];
  /** bm25()'s weight of each index column, in the index's order. */
  weights: readonly number[];
  /** The index column a snippet is cut from, and the words of it a snippet shows around the match. */
  snippetColumn: number;
  snippetTokens: number;
}

/** One ranked item: its key and `columns` (typed by the caller), its statistics and times, its score and snippet. */
export interface TextHit extends StatsRow, Record<string, SqlStorageValue> {
  /** FTS5's bm25() with the index's weights, sign flipped: higher is better. */
  bm25: number;
  /** The best window of the snippet column around the matched words. */
  snippet: string;
  created_at: number;
  updated_at: number;
}

/** FTS5's bm25() over `index` with its weights: lower is better, as FTS5 ranks. */
export const bm25Of = (index: TextIndex): string => `bm25(${index.fts}, ${index.weights.join(", ")})`;

/** The best `limit` items of `index` for `match`, best first. */
export function rankByText<T extends TextHit>(db: Db, index: TextIndex, match: string, limit: number): T[] {
  const bm25 = bm25Of(index);
  const named = [index.key, ...index.columns].map((c) => `i.${c}`).join(", ");
  return db.all<T>(
    `SELECT ${named}, -${bm25} AS bm25, snippet(${index.fts}, ${index.snippetColumn}, '', '', '…', ${index.snippetTokens}) AS snippet,
            i.created_at, i.updated_at, ${STATS_COLUMNS}
     FROM ${index.fts} JOIN ${index.table} i ON i.${index.rowid} = ${index.fts}.rowid
     WHERE ${index.fts} MATCH ?1
     ORDER BY ${bm25}, i.${index.key}
     LIMIT ?2`,
    match,
    limit,
  );
}

/** The first `chars` characters of the content of each item of `index` whose key is in `keys`, by key. */
export function contentHeads(db: Db, index: Pick<TextIndex, "table" | "key">, keys: readonly string[], chars: number): Map<string, string> {
  if (keys.length === 0) return new Map();
  const rows = db.all<{ key: string; head: string }>(
    `SELECT ${index.key} AS key, substr(content, 1, ?2) AS head FROM ${index.table} WHERE ${index.key} IN (SELECT value FROM json_each(?1))`,
    JSON.stringify(keys),
    chars,
  );
  return new Map(rows.map((r) => [r.key, r.head]));
}
