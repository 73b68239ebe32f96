/**
 * Full-text ranking of files for recall (src/search/recall.ts), over
 * `files_fts` (migrations/0016_files_fts.sql: path and content, the graph
 * search's tokenizer). The caller builds the MATCH expression; every string
 * in it is quoted there, so no query text is FTS5 syntax.
 */
import { STATS_COLUMNS, type StatsRow } from "../items";
import type { Db } from "../storage/sql";

export interface FileHit extends StatsRow, Record<string, SqlStorageValue> {
  path: string;
  /** BM25 (FTS5's bm25(), sign flipped: higher is better), the path weighing PATH_WEIGHT. */
  bm25: number;
  /** The best window of the content around the matched words. */
  snippet: string;
  created_at: number;
  updated_at: number;
}

/** A word in the path counts as much as this many in the content. */
const PATH_WEIGHT = 2;
/** Words of content around the match in a snippet. */
const SNIPPET_TOKENS = 32;

/**
 * The best `limit` files for `match`, best first. FTS5 ranks every matching
 * file: files are a hand-written memory (far fewer than entities), so the
 * whole ranking stays cheap.
 */
export function rankFiles(db: Db, match: string, limit: number): FileHit[] {
  return db.all<FileHit>(
    `SELECT f.path, -bm25(files_fts, ${PATH_WEIGHT}, 1.0) AS bm25, snippet(files_fts, 1, '', '', '…', ${SNIPPET_TOKENS}) AS snippet,
            f.created_at, f.updated_at, ${STATS_COLUMNS}
     FROM files_fts JOIN files f ON f.id = files_fts.rowid
     WHERE files_fts MATCH ?1
     ORDER BY bm25(files_fts, ${PATH_WEIGHT}, 1.0), f.path
     LIMIT ?2`,
    match,
    limit,
  );
}

/** The first `chars` characters of each file in `paths`, by path (co-visited files in recall). */
export function fileHeads(db: Db, paths: readonly string[], chars: number): Map<string, string> {
  if (paths.length === 0) return new Map();
  const rows = db.all<{ path: string; head: string }>(
    "SELECT path, substr(content, 1, ?2) AS head FROM files WHERE path IN (SELECT value FROM json_each(?1))",
    JSON.stringify(paths),
    chars,
  );
  return new Map(rows.map((r) => [r.path, r.head]));
}
