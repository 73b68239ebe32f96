/**
 * search_documents: full-text search over a context's documents with FTS5
 * (`documents_fts`, tokenizer `porter unicode61 remove_diacritics 2`, the
 * graph search's), ranked as every search surface ranks a whole query.
 *
 * ## Query rules
 * - The caller gives the query's terms as the search tokenizer makes them
 *   (src/search/tokenize.ts): stop words and the words that only frame a
 *   question are gone, compounds are one term, CJK runs are terms of their
 *   own. So "who is on call in week 13" asks for "call", "week" and "13".
 * - Any term may match; the documents holding every term come first, then
 *   those holding some, each group by bm25() × the caller's boost (recency
 *   and damped priority, src/search/score.ts), exact at any age
 *   (src/items/text-index.ts).
 *   Words are stemmed: "decisions" finds "decision".
 * - Nothing in a query is FTS5 syntax: every term is quoted, so AND, OR, NOT,
 *   NEAR, quotes, '*', '^', ':', parentheses and '-' are plain text, and no
 *   query can cause an SQL error.
 * - A CJK term matches that text anywhere (through the bigram column, see
 *   ./cjk.ts), not only whole runs.
 */
import { contentHeads, rankByText, type RankTextOptions, type TextBoost, type TextHit, type TextIndex, type TextTerm } from "../items";
import type { Db } from "../storage/sql";

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
  wordColumns: ["title", "content"],
  cjkColumn: "search_cjk",
};

/** Characters of a document read for a CJK snippet: all of it. */
const WHOLE = 1_000_000_000;
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

export interface RankedDocument extends TextHit {
  id: string;
  title: string;
}

/** The best `limit` documents for `terms` under bm25 × `boost`, best first: those holding every term, then those holding some. */
export function findDocuments(db: Db, terms: readonly TextTerm[], limit: number, boost: TextBoost): DocumentHit[] {
  const runs = terms.filter((t) => t.cjk).map((t) => t.key);
  const rows = rankByText<RankedDocument>(db, DOCUMENT_INDEX, terms, limit, { mark: "**", snippetTokens: 16, boost });
  const contents =
    runs.length > 0
      ? contentHeads(
          db,
          DOCUMENT_INDEX,
          rows.map((r) => r.id),
          WHOLE,
        )
      : new Map<string, string>();
  return rows.map((r) => {
    const content = contents.get(r.id);
    const cjk = content !== undefined && runs.some((run) => content.includes(run));
    return { id: r.id, title: r.title, snippet: cjk ? cjkSnippet(content, runs) : cap(oneLine(r.snippet)) };
  });
}

/**
 * The exact best `limit` documents for `terms` under bm25 × `boost`, best
 * first, for recall (src/search/recall.ts): those holding every term first
 * unless `allFirst` is false (an expansion's words, each standing alone),
 * none in `skip`.
 */
export function rankDocuments(db: Db, terms: readonly TextTerm[], limit: number, opts: Pick<RankTextOptions, "allFirst" | "boost" | "skip">): RankedDocument[] {
  return rankByText<RankedDocument>(db, DOCUMENT_INDEX, terms, limit, opts);
}

/** The first `chars` characters of each document in `ids`, by id (co-visited documents in recall). */
export function documentHeads(db: Db, ids: readonly string[], chars: number): Map<string, string> {
  return contentHeads(db, DOCUMENT_INDEX, ids, chars);
}
