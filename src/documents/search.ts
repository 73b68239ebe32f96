/**
 * search_documents: full-text search over a context's documents with FTS5
 * (`documents_fts`, tokenizer `porter unicode61 remove_diacritics 2`, the
 * graph search's), best match first.
 *
 * ## Query rules
 * - The query is words separated by spaces; a document matches when it has
 *   every word (stemmed: "decisions" finds "decision").
 * - Nothing in a query is FTS5 syntax: each word is quoted, so AND, OR, NOT,
 *   NEAR, quotes, '*', '^', ':', parentheses and '-' are plain text, and no
 *   query can cause an SQL error. Words with no letter or digit are dropped.
 * - A word with Japanese, Chinese or Korean text matches that text anywhere
 *   (through the bigram column, see ./cjk.ts), not only whole runs.
 */
import { bm25Of, contentHeads, rankByText, type TextHit, type TextIndex } from "../items";
import type { Db } from "../storage/sql";
import { bigrams, cjkRuns, withoutCjk } from "./cjk";

export interface DocumentHit {
  id: string;
  title: string;
  snippet: string;
}

const SNIPPET_MAX = 240;
/** `documents_fts` over `documents`: title (weighing 2), content and the CJK bigram column; recall's snippets show 32 words of content. */
const DOCUMENT_INDEX: TextIndex = {
  fts: "documents_fts",
  table: "documents",
  rowid: "seq",
  key: "id",
  columns: ["title"],
  weights: [2, 1, 1],
  snippetColumn: 1,
  snippetTokens: 32,
};
/** FTS5's BM25 over the index: lower is better, as FTS5 ranks. */
const BM25 = bm25Of(DOCUMENT_INDEX);
const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** The FTS5 MATCH expression for a user's query, or null when it has no searchable word. */
export function ftsQuery(query: string): string | null {
  const parts: string[] = [];
  for (const word of query.split(/\s+/).filter(Boolean)) {
    const rest = withoutCjk(word).trim();
    if (/[\p{L}\p{N}]/u.test(rest)) parts.push(`{title content} : ${quote(rest)}`);
    for (const run of cjkRuns(word)) {
      parts.push([...run].length < 2 ? `search_cjk : ${quote(run)}*` : `search_cjk : ${quote(bigrams(run).join(" "))}`);
    }
  }
  return parts.length > 0 ? parts.join(" AND ") : null;
}

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();
const cap = (s: string) => ([...s].length > SNIPPET_MAX ? `${[...s].slice(0, SNIPPET_MAX).join("")}…` : s);

/** A snippet around the first CJK run of the query, since FTS5's snippet() sees CJK text as whole runs. */
function cjkSnippet(content: string, runs: readonly string[]): string {
  const text = oneLine(content);
  const at = Math.min(...runs.map((r) => text.indexOf(r)).filter((i) => i >= 0));
  if (!Number.isFinite(at)) return cap(text);
  // Never cut a surrogate pair (an emoji) in half at either edge.
  const edge = (i: number) => (/[\udc00-\udfff]/.test(text[i] ?? "") ? i - 1 : i);
  const start = edge(Math.max(0, at - 40));
  const end = edge(Math.min(text.length, at + 120));
  // Longest run first, so a run inside a longer one is not marked twice. CJK runs hold no regex syntax.
  const marked = new RegExp([...runs].sort((a, b) => b.length - a.length).join("|"), "g");
  const window = text.slice(start, end).replace(marked, "**$&**");
  return `${start > 0 ? "…" : ""}${window}${end < text.length ? "…" : ""}`;
}

export function findDocuments(db: Db, query: string, limit: number): DocumentHit[] {
  const match = ftsQuery(query);
  if (match === null) return [];
  const runs = cjkRuns(query);
  const rows = db.all<{ id: string; title: string; snippet: string; content: string | null }>(
    `SELECT d.id, d.title, snippet(documents_fts, 1, '**', '**', '…', 16) AS snippet,
            CASE WHEN ?3 THEN d.content END AS content
     FROM documents_fts JOIN documents d ON d.seq = documents_fts.rowid
     WHERE documents_fts MATCH ?1
     ORDER BY ${BM25}, d.id
     LIMIT ?2`,
    match,
    limit,
    runs.length > 0 ? 1 : 0,
  );
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    snippet: r.content !== null ? cjkSnippet(r.content, runs) : cap(oneLine(r.snippet)),
  }));
}

export interface RankedDocument extends TextHit {
  id: string;
  title: string;
}

/**
 * The best `limit` documents for a MATCH expression the caller built (every
 * string quoted), best first, for recall (src/search/recall.ts). Unlike
 * search_documents, any word may match: BM25 ranks those holding more first.
 */
export function rankDocuments(db: Db, match: string, limit: number): RankedDocument[] {
  return rankByText<RankedDocument>(db, DOCUMENT_INDEX, match, limit);
}

/** The first `chars` characters of each document in `ids`, by id (co-visited documents in recall). */
export function documentHeads(db: Db, ids: readonly string[], chars: number): Map<string, string> {
  return contentHeads(db, DOCUMENT_INDEX, ids, chars);
}
