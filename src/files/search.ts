/**
 * Full-text ranking of files for recall (src/search/recall.ts), over
 * `files_fts` (migrations/0016_files_fts.sql: path and content, the graph
 * search's tokenizer). The caller builds the MATCH expression; every string
 * in it is quoted there, so no query text is FTS5 syntax.
 */
import { contentHeads, rankByText, type TextHit, type TextIndex } from "../items";
import type { Db } from "../storage/sql";

export interface FileHit extends TextHit {
  path: string;
}

/** `files_fts` over `files`: a word in the path counts as much as two in the content; a snippet shows 32 words of content. */
const FILE_INDEX: TextIndex = { fts: "files_fts", table: "files", rowid: "id", key: "path", columns: [], weights: [2, 1], snippetColumn: 1, snippetTokens: 32 };

/**
 * The best `limit` files for `match`, best first. FTS5 ranks every matching
 * file: files are a hand-written memory (far fewer than entities), so the
 * whole ranking stays cheap.
 */
export function rankFiles(db: Db, match: string, limit: number): FileHit[] {
  return rankByText<FileHit>(db, FILE_INDEX, match, limit);
}

/** The first `chars` characters of each file in `paths`, by path (co-visited files in recall). */
export function fileHeads(db: Db, paths: readonly string[], chars: number): Map<string, string> {
  return contentHeads(db, FILE_INDEX, paths, chars);
}
