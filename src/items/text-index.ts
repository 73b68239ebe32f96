/**
 * Items read through their full-text indexes, for recall
 * (src/search/recall.ts) and search_documents: `rankByText` ranks one kind's
 * rows for a query's terms by FTS5's bm25() times a boost with a snippet,
 * beside the rows' statistics (./stats.ts); `contentHeads` reads the start of
 * items' content. A domain describes its index once, as a TextIndex
 * (src/files/search.ts, src/documents/search.ts).
 *
 * ## Ranking
 * An item's score is bm25() × the caller's TextBoost (recency and damped
 * priority for recall and search_documents, src/search/score.ts). Any term
 * may match; the items holding every term come first (one MATCH with AND),
 * then those holding some (one with OR), each group best first by score, so
 * a natural question is answered and a partial match never pushes out a
 * complete one. bm25() sums over the query's phrases, so an item scores the
 * same in both statements.
 *
 * ## Exact top k
 * SQLite orders every match by the whole score (`ORDER BY bm25 × boost DESC,
 * key LIMIT k + MARGIN`): FTS5 computes bm25() over the whole doclist for
 * each match anyway, so no item is left out for its age. The boost's SQL
 * may differ from its JavaScript in the last bits (exp, ln), so the rows
 * read are rescored in JavaScript, which is the reference, and sorted there.
 * An unread row's JavaScript score is at most its SQL score × (1 +
 * SQL_DRIFT), so when the k-th rescored row beats the last row read by more
 * than that, no unread row can enter; otherwise (ties at the cut) four times
 * as many rows are read, until the test holds or every match is read.
 *
 * ## Invariants
 * - Every string put into a MATCH expression is quoted here, so no query
 *   text is FTS5 syntax.
 * - `bm25` comes back with its sign flipped (higher is better, always
 *   positive: FTS5 floors its idf); equal scores keep the order of the
 *   item's key.
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
  /** bm25 × the boost, computed in JavaScript: the order. */
  score: number;
  /** The best window of the snippet column around the matched words. */
  snippet: string;
  created_at: number;
  updated_at: number;
  /** 1 when the item holds every term the index can match, else 0. */
  all_terms: number;
}

/** What an item's bm25() is multiplied by: one formula, as SQL and as JavaScript. */
export interface TextBoost {
  /** The factor as an SQL expression over the item table's row, aliased `i`. */
  sql: string;
  /** The same factor in JavaScript over a row the ranking returns: the reference the order is exact under. */
  of(row: TextHit): number;
}

export interface RankTextOptions {
  /** The factor each bm25() is multiplied by; 1 when absent. */
  boost?: TextBoost;
  /** Keys of items left out (found already by an earlier pass). */
  skip?: readonly string[];
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

const UNBOOSTED: TextBoost = { sql: "1.0", of: () => 1 };
/**
 * The most a boost's SQL value and its JavaScript value may differ, relative:
 * each of its few dozen operations is correctly rounded or (exp, ln, sqrt) within
 * an ulp or two, about 1e-16 each; test/priority/priority-sql.test.ts checks 1e-12.
 */
const SQL_DRIFT = 1e-9;
/** Rows read beyond the k asked for, so rescoring in JavaScript decides near-ties at the cut without a second read. */
const MARGIN = 8;

const byScore = (key: string) => (a: TextHit, b: TextHit) =>
  b.score - a.score || ((a[key] as string) < (b[key] as string) ? -1 : (a[key] as string) > (b[key] as string) ? 1 : 0);

/** A row as SQLite ranks it: its index rowid and SQLite's value of the score, beside the hit's columns but the snippet. */
type Ranked<T> = T & { fts_rowid: number; sql_score: number };

/**
 * One MATCH's rows, best `limit` by SQLite's value of the score, key next.
 * bm25() is computed once per match (the materialized `m`); snippets are cut
 * later, for the rows kept only.
 */
function matching<T extends TextHit>(db: Db, index: TextIndex, match: string, all: boolean, limit: number, skip: readonly string[], boost: TextBoost): Ranked<T>[] {
  const named = [index.key, ...index.columns].map((c) => `i.${c}`).join(", ");
  return db.all<Ranked<T>>(
    `WITH m AS MATERIALIZED (SELECT rowid AS r, -${bm25Of(index)} AS bm25 FROM ${index.fts} WHERE ${index.fts} MATCH ?1)
     SELECT ${named}, m.r AS fts_rowid, m.bm25, m.bm25 * ${boost.sql} AS sql_score,
            i.created_at, i.updated_at, ${all ? 1 : 0} AS all_terms, ${STATS_COLUMNS}
     FROM m JOIN ${index.table} i ON i.${index.rowid} = m.r
     WHERE i.${index.key} NOT IN (SELECT value FROM json_each(?3))
     ORDER BY sql_score DESC, i.${index.key}
     LIMIT ?2`,
    match,
    limit,
    JSON.stringify(skip),
  );
}

/** FTS5's snippet of each row of `rows` for `match`, set on the row. */
function cutSnippets(db: Db, index: TextIndex, match: string, rows: readonly Ranked<TextHit>[], opts: RankTextOptions): void {
  if (rows.length === 0) return;
  const cut = db.all<{ r: number; snippet: string }>(
    `SELECT rowid AS r, snippet(${index.fts}, ${index.snippetColumn}, ?3, ?3, '…', ${opts.snippetTokens ?? index.snippetTokens}) AS snippet
     FROM ${index.fts} WHERE ${index.fts} MATCH ?1 AND rowid IN (SELECT value FROM json_each(?2))`,
    match,
    JSON.stringify(rows.map((r) => r.fts_rowid)),
    opts.mark ?? "",
  );
  const byRowid = new Map(cut.map((c) => [c.r, c.snippet]));
  for (const r of rows) r.snippet = byRowid.get(r.fts_rowid) ?? "";
}

/** The exact best `limit` rows of one MATCH under bm25 × boost in JavaScript (see "Exact top k" above). */
function exactTop<T extends TextHit>(db: Db, index: TextIndex, match: string, all: boolean, limit: number, skip: readonly string[], opts: RankTextOptions): T[] {
  const boost = opts.boost ?? UNBOOSTED;
  for (let read = limit + MARGIN; ; read *= 4) {
    const rows = matching<T>(db, index, match, all, read, skip, boost);
    for (const r of rows) r.score = r.bm25 * boost.of(r);
    const top = [...rows].sort(byScore(index.key)).slice(0, limit);
    const last = rows.at(-1)?.sql_score ?? 0;
    const kth = top.at(-1)?.score ?? 0;
    if (rows.length < read || kth > last * (1 + SQL_DRIFT)) {
      cutSnippets(db, index, match, top, opts);
      return top;
    }
  }
}

/** The best `limit` items of `index` for `terms`, best first (see the module comment); empty when the index can match none of them. */
export function rankByText<T extends TextHit>(db: Db, index: TextIndex, terms: readonly TextTerm[], limit: number, opts: RankTextOptions = {}): T[] {
  const parts = terms.flatMap((t) => termExpression(index, t) ?? []);
  if (parts.length === 0 || limit <= 0) return [];
  const skip = opts.skip ?? [];
  if (parts.length === 1 || opts.allFirst === false) return exactTop<T>(db, index, parts.join(" OR "), parts.length === 1, limit, skip, opts);
  const complete = exactTop<T>(db, index, parts.join(" AND "), true, limit, skip, opts);
  if (complete.length >= limit) return complete;
  const found = complete.map((h) => h[index.key] as string);
  const rest = exactTop<T>(db, index, parts.join(" OR "), false, limit - complete.length, [...skip, ...found], opts);
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
