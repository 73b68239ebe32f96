/**
 * Full-text ranking of files for recall (src/search/recall.ts), over
 * `files_fts` (migrations/0016_files_fts.sql: path and content, the graph
 * search's tokenizer), by the BM25F every kind shares
 * (src/items/text-rank.ts), from the query's terms as the search
 * tokenizer makes them; src/items/text-index.ts quotes every one, so no
 * query text is FTS5 syntax. Files are matched by words, not CJK bigrams.
 */
import { contentHeads, countByText, rankByText, type RankTextOptions, type TextHit, type TextIndex, type TextQuery, type TextTerm } from "../items";
import type { Db } from "../storage/sql";

export interface FileHit extends TextHit {
  path: string;
}

/** `files_fts` over `files`: the path weighs two of the content; a snippet shows 32 words of content. */
const FILE_INDEX: TextIndex = {
  fts: "files_fts",
  table: "files",
  rowid: "id",
  key: "path",
  columns: [],
  label: "path",
  labelWeight: 2,
  contentColumns: ["content"],
  snippetColumn: 1,
  snippetTokens: 32,
};

/**
 * The exact best `limit` files for `query` under BM25F × `boost`, best
 * first, those holding every term first. Every matching file is scored, whatever its age: files are a
 * hand-written memory (far fewer than entities), so the whole ranking stays
 * cheap.
 */
export function rankFiles(db: Db, query: TextQuery, limit: number, opts: Pick<RankTextOptions, "boost">): FileHit[] {
  return rankByText<FileHit>(db, FILE_INDEX, query, limit, opts);
}

/** How many files there are, and how many hold each of `terms`: their share of each term's idf. */
export function countFiles(db: Db, terms: readonly TextTerm[]): { items: number; holding: number[] } {
  return countByText(db, FILE_INDEX, terms);
}

/** The first `chars` characters of each file in `paths`, by path (co-visited files in recall). */
export function fileHeads(db: Db, paths: readonly string[], chars: number): Map<string, string> {
  return contentHeads(db, FILE_INDEX, paths, chars);
}
