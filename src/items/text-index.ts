/**
 * Items read through their full-text indexes, for recall
 * (src/search/recall.ts) and search_documents: `rankByText` ranks one kind's
 * rows for a query's terms by FTS5's bm25() with a snippet, beside the rows'
 * statistics (./stats.ts); `contentHeads` reads the start of items' content.
 * A domain describes its index once, as a TextIndex (src/files/search.ts,
 * src/documents/search.ts).
 *
 * ## Ranking
 * Any term may match; the items holding every term come first (one MATCH
 * with AND), then those holding some (one with OR), each group best first
 * by bm25(), so a natural question is answered and a partial match never
 * pushes out a complete one. bm25() sums over the query's phrases, so an
 * item scores the same in both statements.
 *
 * ## Invariants
 * - Every string put into a MATCH expression is quoted here, so no query
 *   text is FTS5 syntax.
 * - `bm25` comes back with its sign flipped (higher is better); equal scores
 *   keep the order of the item's key.
 */
import type { Db } from "../storage/sql";
import { STATS_COLUMNS, type StatsRow } from "./stats";

/** The note of a search whose query has no terms left, on every search surface. */
export const NO_TERMS_NOTE = "The query has no searchable terms (stop words and punctuation are ignored).";
/** The note of a search that found nothing relevant (docs/search.md, "Nothing is better than filler"), on every search surface. */
export const NO_MATCH_NOTE = "Nothing in memory matches the query: no item holds any of its words or their synonyms.";

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
  /** The index columns words are matched in (FTS5 column filter); all when absent. */
  wordColumns?: readonly string[];
  /** The column of CJK bigrams a CJK term is matched in; without one, CJK terms are left out. */
  cjkColumn?: string;
}

/** A query term as the search tokenizer gives it (src/search/tokenize.ts): its key, its word parts, and whether it is a CJK run. */
export interface TextTerm {
  key: string;
  parts: readonly string[];
  cjk: boolean;
}

/** One ranked item: its key and `columns` (typed by the caller), its statistics and times, its score and snippet. */
export interface TextHit extends StatsRow, Record<string, SqlStorageValue> {
  /** FTS5's bm25() with the index's weights, sign flipped: higher is better. */
  bm25: number;
  /** The best window of the snippet column around the matched words. */
  snippet: string;
  created_at: number;
  updated_at: number;
  /** 1 when the item holds every term the index can match, else 0. */
  all_terms: number;
}

export interface RankTextOptions {
  /** Items holding every term first (the default); false ranks any-term matches by bm25() alone. */
  allFirst?: boolean;
  /** Marks around the matched words in the snippet, and its words; the index's snippetTokens and none by default. */
  mark?: string;
  snippetTokens?: number;
}

/** An FTS5 string literal. */
const quote = (s: string) => `"${s.replaceAll('"', '""')}"`;

/** Overlapping character bigrams of a CJK run; a one-character run is its own token. */
function bigrams(run: string): string[] {
  const chars = [...run];
  if (chars.length < 2) return chars;
  return chars.slice(1).map((c, i) => `${chars[i]}${c}`);
}

/** The MATCH expression for one term in `index`, or undefined when the index cannot match it. */
function termExpression(index: TextIndex, t: TextTerm): string | undefined {
  if (t.cjk) {
    if (!index.cjkColumn) return undefined;
    // A single character is the start of a bigram: a prefix query.
    const phrase = [...t.key].length < 2 ? `${quote(t.key)}*` : quote(bigrams(t.key).join(" "));
    return `${index.cjkColumn} : ${phrase}`;
  }
  const forms = t.parts.length > 1 ? [quote(t.parts.join(" ")), quote(t.key)] : [quote(t.key)];
  const any = forms.length > 1 ? `(${forms.join(" OR ")})` : (forms[0] as string);
  return index.wordColumns ? `{${index.wordColumns.join(" ")}} : ${any}` : any;
}

/** FTS5's bm25() over `index` with its weights: lower is better, as FTS5 ranks. */
const bm25Of = (index: TextIndex): string => `bm25(${index.fts}, ${index.weights.join(", ")})`;

function matching<T extends TextHit>(db: Db, index: TextIndex, match: string, all: boolean, limit: number, skip: readonly string[], opts: RankTextOptions): T[] {
  const bm25 = bm25Of(index);
  const named = [index.key, ...index.columns].map((c) => `i.${c}`).join(", ");
  const mark = opts.mark ?? "";
  return db.all<T>(
    `SELECT ${named}, -${bm25} AS bm25, snippet(${index.fts}, ${index.snippetColumn}, ?4, ?4, '…', ${opts.snippetTokens ?? index.snippetTokens}) AS snippet,
            i.created_at, i.updated_at, ${all ? 1 : 0} AS all_terms, ${STATS_COLUMNS}
     FROM ${index.fts} JOIN ${index.table} i ON i.${index.rowid} = ${index.fts}.rowid
     WHERE ${index.fts} MATCH ?1 AND i.${index.key} NOT IN (SELECT value FROM json_each(?3))
     ORDER BY ${bm25}, i.${index.key}
     LIMIT ?2`,
    match,
    limit,
    JSON.stringify(skip),
    mark,
  );
}

/** The best `limit` items of `index` for `terms`, best first (see the module comment); empty when the index can match none of them. */
export function rankByText<T extends TextHit>(db: Db, index: TextIndex, terms: readonly TextTerm[], limit: number, opts: RankTextOptions = {}): T[] {
  const parts = terms.flatMap((t) => termExpression(index, t) ?? []);
  if (parts.length === 0) return [];
  if (parts.length === 1 || opts.allFirst === false) return matching<T>(db, index, parts.join(" OR "), parts.length === 1, limit, [], opts);
  const complete = matching<T>(db, index, parts.join(" AND "), true, limit, [], opts);
  if (complete.length >= limit) return complete;
  const rest = matching<T>(
    db,
    index,
    parts.join(" OR "),
    false,
    limit - complete.length,
    complete.map((h) => h[index.key] as string),
    opts,
  );
  return [...complete, ...rest];
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
