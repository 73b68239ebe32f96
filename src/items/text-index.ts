/**
 * Items read through their full-text indexes, for recall
 * (src/search/recall.ts) and search_documents: a domain describes its index
 * once, as a TextIndex (src/files/search.ts, src/documents/search.ts); this
 * module turns a query's terms into MATCH expressions per field, counts the
 * items holding each term (`countByText`, for its idf) and reads the start
 * of items' content (`contentHeads`). ./text-rank.ts ranks them.
 *
 * ## Invariants
 * - Every string put into a MATCH expression is quoted here, so no query
 *   text is FTS5 syntax.
 */
import type { Db } from "../storage/sql";
import type { StatsRow } from "./stats";

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
  /** The label field (path or title): its column, in the item table and the index, and its weight against the content. */
  label: string;
  labelWeight: number;
  /** The index columns a word is matched in for the content field. */
  contentColumns: readonly string[];
  /** The column of CJK bigrams a CJK term is matched in (content field); without one, CJK terms are left out. */
  cjkColumn?: string;
  /** The index column a snippet is cut from, and the words of it a snippet shows around the match. */
  snippetColumn: number;
  snippetTokens: number;
}

/** A query term as the search tokenizer gives it (src/search/tokenize.ts): its key, its word parts, and whether it is a CJK run. */
export interface TextTerm {
  key: string;
  parts: readonly string[];
  cjk: boolean;
}

/** A term of a ranked query, as src/search/terms.ts makes it for every kind. */
export interface TextQueryTerm {
  term: TextTerm;
  /** 1 for the query's own terms, less for an expansion. */
  weight: number;
  idf: number;
  /** Position among the query's own terms; -1 for an expansion term. */
  index: number;
  /** For an expansion term, the position in the list of the query word it stands for: its matches count as that word's, × weight. */
  of?: number;
  /** A broader word of a query word: it never makes an item relevant on its own. */
  broader?: true;
}

/** Two adjacent query terms, and what an item holding them close together earns. */
interface TextPair {
  a: TextTerm;
  b: TextTerm;
  bonus: number;
}

/** A query as a text index ranks it, with the BM25 parameters every kind shares. */
export interface TextQuery {
  terms: readonly TextQueryTerm[];
  pairs: readonly TextPair[];
  k1: number;
  b: number;
  /** Words apart at most for a pair's bonus (FTS5 NEAR). */
  phraseDistance: number;
}

/** One ranked item: its key and `columns` (typed by the caller), its statistics and times, its score and snippet. */
export interface TextHit extends StatsRow, Record<string, SqlStorageValue> {
  /** The BM25F sum with the phrase bonus, before the boost. */
  lexical: number;
  /** lexical × the boost: the order. */
  score: number;
  /** The best window of the snippet column around the matched words. */
  snippet: string;
  created_at: number;
  updated_at: number;
  /** 1 when the item holds every query term the index can match (itself or a synonym), else 0. */
  all_terms: number;
}

/** What an item's lexical score is multiplied by: one formula, as SQL and as JavaScript. */
export interface TextBoost {
  /** The factor as an SQL expression over the item table's row, aliased `i`. */
  sql: string;
  /** The same factor in JavaScript over a row the ranking returns: the reference the order is exact under. */
  of(row: TextHit): number;
}

export interface RankTextOptions {
  /** The factor each lexical score is multiplied by; 1 when absent. */
  boost?: TextBoost;
  /** Marks around the matched words in the snippet, and its words; the index's snippetTokens and none by default. */
  mark?: string;
  snippetTokens?: number;
}

/** An FTS5 string literal. */
export const quote = (s: string) => `"${s.replaceAll('"', '""')}"`;

/** Overlapping character bigrams of a CJK run; a one-character run is its own token. */
function bigrams(run: string): string[] {
  const chars = [...run];
  if (chars.length < 2) return chars;
  return chars.slice(1).map((c, i) => `${chars[i]}${c}`);
}

export const LABEL = 0;
export const CONTENT = 1;
type Field = typeof LABEL | typeof CONTENT;

/** The word forms of a term: its phrase of parts or its joined form (a compound), or the word. */
function wordForms(t: TextTerm): string {
  const forms = t.parts.length > 1 ? [quote(t.parts.join(" ")), quote(t.key)] : [quote(t.key)];
  return forms.length > 1 ? `(${forms.join(" OR ")})` : (forms[0] as string);
}

export const within = (columns: readonly string[], expr: string) => `{${columns.join(" ")}} : ${expr}`;

/** The MATCH expression for one term in one field of `index`, or undefined when that field cannot match it. */
export function fieldExpression(index: TextIndex, t: TextTerm, field: Field): string | undefined {
  if (t.cjk) {
    if (field === LABEL || !index.cjkColumn) return undefined;
    // A single character is the start of a bigram: a prefix query.
    const phrase = [...t.key].length < 2 ? `${quote(t.key)}*` : quote(bigrams(t.key).join(" "));
    return within([index.cjkColumn], phrase);
  }
  return within(field === LABEL ? [index.label] : index.contentColumns, wordForms(t));
}

/** The MATCH expression for a term in any field of `index`, or undefined when none can match it. */
export function anyExpression(index: TextIndex, t: TextTerm): string | undefined {
  const fields = [fieldExpression(index, t, LABEL), fieldExpression(index, t, CONTENT)].filter((e) => e !== undefined);
  return fields.length === 0 ? undefined : fields.map((e) => `(${e})`).join(" OR ");
}

/** Each term's count of items holding it (in any field) and the items in all: the statistics of its idf. One statement. */
export function countByText(db: Db, index: TextIndex, terms: readonly TextTerm[]): { items: number; holding: number[] } {
  const items = db.one<{ n: number }>(`SELECT count(*) AS n FROM ${index.table}`)?.n ?? 0;
  const lists = terms.flatMap((t, i) => {
    const match = anyExpression(index, t);
    return match === undefined ? [] : [[i, match]];
  });
  const holding = terms.map(() => 0);
  if (lists.length === 0) return { items, holding };
  const counts = db.tuples<[t: number, n: number]>(
    ["t", "n"],
    `WITH q(t, m) AS MATERIALIZED (SELECT value ->> 0, value ->> 1 FROM json_each(?1))
     SELECT q.t AS t, count(*) AS n FROM q, ${index.fts} x WHERE ${index.fts} MATCH q.m GROUP BY q.t`,
    [JSON.stringify(lists)],
  );
  for (const [t, n] of counts) holding[t] = n;
  return { items, holding };
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
