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
 * - Multi-row statements, a page of documents at a time: memory stays flat
 *   even when a migration queues a whole context.
 */
import { MAX_PARAMS, type Db } from "../context/sql";
import { bigrams, CJK_RUN, WORD, wordParts, withoutCjk } from "./tokenize";

/** Documents read from the queue at a time. */
const PAGE = 500;

/**
 * What unicode61 cannot derive by itself from `text`: the parts and the joined
 * form of every compound ("dockerCompose" -> "docker compose dockercompose")
 * and the bigrams of every CJK run ("会議室" -> "会議 議室"); null when none.
 */
export function derivedText(text: string): string | null {
  const out: string[] = [];
  const normal = text.normalize("NFKC");
  for (const m of normal.matchAll(CJK_RUN)) {
    if ([...m[0]].length > 1) out.push(bigrams(m[0]).join(" "));
  }
  for (const m of withoutCjk(normal).matchAll(WORD)) {
    const parts = wordParts(m[0]);
    if (parts.length > 1) out.push(parts.join(" "), parts.join(""));
  }
  return out.length > 0 ? out.join(" ") : null;
}

interface Doc extends Record<string, SqlStorageValue> {
  doc: number;
  text: string;
}

function insertPage(db: Db, docs: readonly Doc[]): void {
  const perWords = Math.floor(MAX_PARAMS / 3);
  for (let i = 0; i < docs.length; i += perWords) {
    const chunk = docs.slice(i, i + perWords);
    db.run(
      `INSERT INTO search_words (rowid, text, alt) VALUES ${chunk.map(() => "(?, ?, ?)").join(", ")}`,
      ...chunk.flatMap((d) => [d.doc, d.text, derivedText(d.text)]),
    );
  }
  // Trigrams cover names and types only: over observations they doubled the
  // cost of writing and took milliseconds per lookup, for what compound
  // splitting and stemming already find.
  const names = docs.filter((d) => d.doc < 0);
  const perGrams = Math.floor(MAX_PARAMS / 2);
  for (let i = 0; i < names.length; i += perGrams) {
    const chunk = names.slice(i, i + perGrams);
    db.run(`INSERT INTO search_grams (rowid, text) VALUES ${chunk.map(() => "(?, ?)").join(", ")}`, ...chunk.flatMap((d) => [d.doc, d.text]));
  }
}

const PAGES = {
  names: `SELECT d.doc, e.name || ' ' || e.entity_type AS text FROM search_dirty d JOIN entities e ON e.id = -d.doc
          WHERE d.doc < 0 AND d.doc > ? ORDER BY d.doc LIMIT ?`,
  observations: `SELECT d.doc, o.content AS text FROM search_dirty d JOIN observations o ON o.id = d.doc
          WHERE d.doc > 0 AND d.doc > ? ORDER BY d.doc LIMIT ?`,
};

/** Brings both search indexes up to date with the rows written in this transaction. */
export function flushSearchIndex(db: Db): void {
  if (!db.one("SELECT 1 AS pending FROM search_dirty LIMIT 1")) return;
  db.run("DELETE FROM search_words WHERE rowid IN (SELECT doc FROM search_dirty WHERE indexed = 1)");
  db.run("DELETE FROM search_grams WHERE rowid IN (SELECT doc FROM search_dirty WHERE indexed = 1 AND doc < 0)");
  for (const query of [PAGES.names, PAGES.observations]) {
    let after = Number.MIN_SAFE_INTEGER;
    for (;;) {
      const docs = db.all<Doc>(query, after, PAGE);
      if (docs.length === 0) break;
      insertPage(db, docs);
      after = (docs[docs.length - 1] as Doc).doc;
    }
  }
  db.run("DELETE FROM search_dirty");
}

