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
 * - Any term may match; the documents holding every term (or a synonym of
 *   it) come first, then those holding some, each group by BM25F × the
 *   caller's boost (recency and damped priority, src/search/score.ts), exact
 *   at any age (src/items/text-rank.ts). The caller gives the terms' idf
 *   and the query expansion's synonyms (src/search/terms.ts), as for entities.
 *   Words are stemmed: "decisions" finds "decision".
 * - Nothing in a query is FTS5 syntax: every term is quoted, so AND, OR, NOT,
 *   NEAR, quotes, '*', '^', ':', parentheses and '-' are plain text, and no
 *   query can cause an SQL error.
 * - A CJK term matches that text anywhere (through the bigram column, see
 *   ./cjk.ts), not only whole runs.
 */
import { contentHeads, countByText, rankByText, type RankTextOptions, type TextBoost, type TextHit, type TextIndex, type TextQuery, type TextTerm } from "../items";
import type { Db } from "../storage/sql";

export interface DocumentHit {
  id: string;
  title: string;
  snippet: string;
}

const SNIPPET_MAX = 240;
/** `documents_fts` over `documents`: the title weighs two of the content (words, and CJK bigrams from its column); recall's snippets show 32 words of content. */
const DOCUMENT_INDEX: TextIndex = {
  fts: "documents_fts",
  table: "documents",
  rowid: "seq",
  key: "id",
  columns: ["title"],
  label: "title",
  labelWeight: 2,
  contentColumns: ["content"],
  cjkColumn: "search_cjk",
  snippetColumn: 1,
  snippetTokens: 32,
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

/** The best `limit` documents for `query` under BM25F × `boost`, best first: those holding every term, then those holding some. */
export function findDocuments(db: Db, query: TextQuery, limit: number, boost: TextBoost): DocumentHit[] {
  const runs = query.terms.filter((t) => t.term.cjk && t.index >= 0).map((t) => t.term.key);
  const rows = rankByText<RankedDocument>(db, DOCUMENT_INDEX, query, limit, { mark: "**", snippetTokens: 16, boost });
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
 * The exact best `limit` documents for `query` under BM25F × `boost`, best
 * first, for recall (src/search/recall.ts): those holding every term first.
 */
export function rankDocuments(db: Db, query: TextQuery, limit: number, opts: Pick<RankTextOptions, "boost">): RankedDocument[] {
  return rankByText<RankedDocument>(db, DOCUMENT_INDEX, query, limit, opts);
}

/** How many documents there are, and how many hold each of `terms`: their share of each term's idf. */
export function countDocuments(db: Db, terms: readonly TextTerm[]): { items: number; holding: number[] } {
  return countByText(db, DOCUMENT_INDEX, terms);
}

/** The first `chars` characters of each document in `ids`, by id (co-visited documents in recall). */
export function documentHeads(db: Db, ids: readonly string[], chars: number): Map<string, string> {
  return contentHeads(db, DOCUMENT_INDEX, ids, chars);
}
