/**
 * Full-text ranking of files for recall (src/search/recall.ts), over
 * `files_fts` (migrations/0016_files_fts.sql: path and content, the graph
 * search's tokenizer), from the query's terms as the search tokenizer makes
 * them; src/items/text-index.ts quotes every one, so no query text is FTS5
 * syntax. Files are matched by words, not CJK bigrams.
 */
import { contentHeads, rankByText, type RankTextOptions, type TextHit, type TextIndex, type TextTerm } from "../items";
import type { Db } from "../storage/sql";

export interface FileHit extends TextHit {
  path: string;
}

/** `files_fts` over `files`: a word in the path counts as much as two in the content; a snippet shows 32 words of content. */
const FILE_INDEX: TextIndex = { fts: "files_fts", table: "files", rowid: "id", key: "path", columns: [], weights: [2, 1], snippetColumn: 1, snippetTokens: 32 };

/**
 * The exact best `limit` files for `terms` under bm25 × `boost`, best first:
 * those holding every term first unless `allFirst` is false (an expansion's
 * words, each standing alone), none in `skip`. SQLite scores every matching
 * file, whatever its age: files are a hand-written memory (far fewer than
 * entities), so the whole ranking stays cheap.
 */
export function rankFiles(db: Db, terms: readonly TextTerm[], limit: number, opts: Pick<RankTextOptions, "allFirst" | "boost" | "skip">): FileHit[] {
  return rankByText<FileHit>(db, FILE_INDEX, terms, limit, opts);
}

/** The first `chars` characters of each file in `paths`, by path (co-visited files in recall). */
export function fileHeads(db: Db, paths: readonly string[], chars: number): Map<string, string> {
  return contentHeads(db, FILE_INDEX, paths, chars);
}
