/**
 * Applies the search index queue: the documents that triggers recorded in
 * `search_dirty` since the last flush are removed from and re-added to both
 * FTS5 indexes (migrations/0003_search.sql describes the layout).
 *
 * ## Invariants
 * - Called at the end of every MemoryContext transaction, so the indexes
 *   commit (or roll back) with the rows they index and a search never sees a
 *   half-written entity.
 * - Idempotent and order-free: a document is re-read from its table at flush
 *   time, so insert-then-delete in one call indexes nothing and an update
 *   indexes the final text.
 * - A handful of statements per flush, whatever the number of rows: FTS5
 *   writes its buffer once per statement.
 */
import type { Db } from "../context/sql";

/**
 * CJK code points: U+3040..U+9FFF (kana, CJK symbols, extension A, unified
 * ideographs), Hangul syllables and compatibility ideographs. One short class,
 * because the object limits GLOB patterns to 50 bytes.
 */
export const CJK_CLASS = "[぀-鿿가-힯豈-﫿]";

const joined = (col: string) => `CASE WHEN ${col} GLOB '*[-_]*' THEN replace(replace(${col}, '-', ''), '_', '') END`;

// Overlapping bigrams of the CJK characters in `col`, in text order: "東京の" indexes "東京 京の".
const cjkBigrams = (col: string) => `CASE WHEN ${col} GLOB '*${CJK_CLASS}*' THEN (
    SELECT group_concat(substr(${col}, n, 2), ' ' ORDER BY n) FROM search_seq
    WHERE n < length(${col}) AND substr(${col}, n, 1) GLOB '${CJK_CLASS}' AND substr(${col}, n + 1, 1) GLOB '${CJK_CLASS}') END`;

const FLUSH = [
  "DELETE FROM search_words WHERE rowid IN (SELECT doc FROM search_dirty WHERE indexed = 1)",
  "DELETE FROM search_grams WHERE rowid IN (SELECT doc FROM search_dirty WHERE indexed = 1)",
  `INSERT INTO search_words (rowid, name, type, alt, cjk, eid)
   SELECT -e.id, e.name, e.entity_type, ${joined("e.name")}, ${cjkBigrams("e.name")}, e.id
   FROM search_dirty d JOIN entities e ON e.id = -d.doc WHERE d.doc < 0`,
  `INSERT INTO search_words (rowid, body, alt, cjk, eid)
   SELECT o.id, o.content, ${joined("o.content")}, ${cjkBigrams("o.content")}, o.entity_id
   FROM search_dirty d JOIN observations o ON o.id = d.doc WHERE d.doc > 0`,
  `INSERT INTO search_grams (rowid, text)
   SELECT -e.id, e.name FROM search_dirty d JOIN entities e ON e.id = -d.doc WHERE d.doc < 0`,
  `INSERT INTO search_grams (rowid, text)
   SELECT o.id, o.content FROM search_dirty d JOIN observations o ON o.id = d.doc WHERE d.doc > 0`,
  "DELETE FROM search_dirty",
];

/** Brings both search indexes up to date with the rows written in this transaction. */
export function flushSearchIndex(db: Db): void {
  if (!db.one("SELECT 1 AS pending FROM search_dirty LIMIT 1")) return;
  for (const statement of FLUSH) db.run(statement);
}
