/**
 * Keeps the search indexes and per-entity stats in step with the graph
 * (migrations/0003_search.sql describes the layout): run at the end of every
 * MemoryContext transaction, so they commit or roll back with the rows and a
 * search never sees a half-written entity.
 *
 * ## What a flush does
 * 1. Documents queued by the triggers (updated, deleted, or inserted at or
 *    below a watermark, as undo does) leave both indexes; those
 *    that still exist (at or below the watermark) are indexed again as they
 *    are now, and their entities' stats are recounted.
 * 2. Rows above the watermarks are new: their documents are indexed, their
 *    observations and relation ends are added to existing entities' stats,
 *    and new entities get stats counted from their rows.
 * 3. The watermarks move to each table's highest id.
 * Both steps' documents go to each index together, in ascending rowid order,
 * in as few INSERTs as fit one parameter (IndexWriter below): each INSERT is
 * a new FTS5 segment.
 *
 * ## Invariants
 * - Idempotent and order-free within a transaction: documents are read from
 *   their tables at flush time, so insert-then-delete indexes nothing and an
 *   update indexes the final text.
 * - Documents are read a page at a time and written out every BUFFER_CHARS
 *   characters at the latest: memory stays flat even when a migration leaves
 *   a whole context to index.
 */
import { jsonBatches, type Db } from "../storage/sql";
import { bigrams, CJK_RUN, WORD, wordParts, withoutCjk } from "./tokenize";

/** Documents read from a table at a time, and their text's bytes at most (plus one document's). */
const PAGE = 2000;
const PAGE_BYTES = 800_000;

/**
 * What unicode61 cannot derive by itself from `text`: the parts and the joined
 * form of every compound ("dockerCompose" -> "docker compose dockercompose")
 * and the bigrams of every CJK run ("会議室" -> "会議 議室"); null when none.
 */
export function derivedText(text: string): string | null {
  const ascii = derivedAscii(text);
  return ascii === undefined ? derivedUnicode(text) : ascii;
}

/**
 * derivedText for any text: NFKC, CJK runs, Unicode letter classes. Exported
 * so a test can hold the ASCII path to the same answers.
 */
export function derivedUnicode(text: string): string | null {
  // Most texts have neither: skip the full scan (this runs for every document written).
  if (!MAYBE_DERIVED.test(text)) return null;
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

/**
 * derivedText for ASCII text, the usual case, in one pass over char codes:
 * the same rules with ASCII classes (on ASCII, \p{L}\p{N}\p{M} is
 * [A-Za-z0-9], \p{Ll} [a-z], \p{Lu} [A-Z]; no CJK, and NFKC changes
 * nothing). A word is a run of letters and digits, continued by a joiner
 * followed by another; it splits at each joiner and at each camelCase hump
 * (lower then upper, or upper then upper-lower). Undefined as soon as it
 * meets a character past ASCII. A test holds it to derivedUnicode's answers;
 * it runs for every document written, several times faster than
 * derivedUnicode's regular expressions.
 */
function derivedAscii(text: string): string | null | undefined {
  const n = text.length;
  let out = "";
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c > 127) return undefined;
    if (!isAlnum(c)) {
      i++;
      continue;
    }
    const parts: string[] = [];
    let part = i;
    for (;;) {
      const piece = i;
      for (; i < n; i++) {
        const c = text.charCodeAt(i);
        if (!isAlnum(c)) break;
        if (i > piece && i > part && isUpper(c)) {
          const prev = text.charCodeAt(i - 1);
          if (isLower(prev) || (isUpper(prev) && i + 1 < n && isLower(text.charCodeAt(i + 1)))) {
            parts.push(text.slice(part, i));
            part = i;
          }
        }
      }
      if (i + 1 < n && isJoiner(text.charCodeAt(i)) && isAlnum(text.charCodeAt(i + 1))) {
        parts.push(text.slice(part, i));
        part = ++i;
        continue;
      }
      break;
    }
    if (parts.length === 0) continue;
    parts.push(text.slice(part, i));
    const lower = parts.map((p) => p.toLowerCase());
    out += `${out === "" ? "" : " "}${lower.join(" ")} ${lower.join("")}`;
  }
  return out === "" ? null : out;
}

const isLower = (c: number) => c >= 97 && c <= 122;
const isUpper = (c: number) => c >= 65 && c <= 90;
const isAlnum = (c: number) => isLower(c) || isUpper(c) || (c >= 48 && c <= 57);
// - . / ' _
const isJoiner = (c: number) => c === 45 || c === 46 || c === 47 || c === 39 || c === 95;

// A joiner between letters or digits, a camelCase hump, or a CJK character (same ranges as CJK_RUN).
const MAYBE_DERIVED = /[\p{L}\p{N}][-_./'\u2019][\p{L}\p{N}]|\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}|[\u3040-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/u;

/** Characters of document text one index buffers before writing them out: bounds memory for a migration's backfill. */
const BUFFER_CHARS = 1_000_000;

/** One index's rows (rowid first), buffered and inserted in rowid order, in as few statements as jsonBatches cuts them into. */
class RowBuffer {
  private rows: [rowid: number, ...values: unknown[]][] = [];
  private chars = 0;

  constructor(
    private readonly db: Db,
    private readonly insert: string,
  ) {}

  add(row: [rowid: number, ...values: unknown[]], chars: number): void {
    this.rows.push(row);
    this.chars += chars;
    if (this.chars > BUFFER_CHARS) this.flush();
  }

  flush(): void {
    if (this.rows.length === 0) return;
    // Ascending rowids: FTS5 writes out its pending postings as a new segment whenever a rowid is
    // lower than the previous one, so names in entity-id order (rowids -1, -2, ...) would make a
    // segment each, many times slower to write.
    this.rows.sort((a, b) => a[0] - b[0]);
    for (const batch of jsonBatches(this.rows)) this.db.run(this.insert, batch);
    this.rows = [];
    this.chars = 0;
  }
}

/**
 * Writes documents to both indexes, each in as few statements as fit
 * JSON_PARAM_BYTES (one for a call of 1,000 entities of ordinary size), as one
 * JSON array per statement (json_each, src/storage/sql.ts jsonBatches) rather
 * than bound parameters, rowids ascending. FTS5 writes a new segment at the
 * end of every statement that inserts into it and whenever a rowid goes down,
 * and every segment costs a seek per term lookup and merge work later, so a
 * batch makes one segment per index where it could make one per document.
 */
class IndexWriter {
  private readonly words: RowBuffer;
  private readonly grams: RowBuffer;
  /** Documents added. */
  count = 0;

  constructor(db: Db) {
    this.words = new RowBuffer(db, "INSERT INTO search_words (rowid, text, alt) SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?1)");
    this.grams = new RowBuffer(db, "INSERT INTO search_grams (rowid, text) SELECT value ->> 0, value ->> 1 FROM json_each(?1)");
  }

  add(doc: number, text: string): void {
    const alt = derivedText(text);
    this.words.add([doc, text, alt], text.length + (alt?.length ?? 0));
    // Trigrams cover names and types only: over observations they would make
    // both writes and lookups much slower, for what compound splitting and
    // stemming already find.
    if (doc < 0) this.grams.add([doc, text], text.length);
    this.count++;
  }

  finish(): void {
    this.words.flush();
    this.grams.flush();
  }
}

interface State extends Record<string, SqlStorageValue> {
  entity_wm: number;
  observation_wm: number;
  relation_wm: number;
  max_entity: number;
  max_observation: number;
  max_relation: number;
  queued: number;
}

const NAME_TEXT = "e.name || ' ' || e.entity_type";

/**
 * Adds the documents `query` returns (columns cursor, doc, text, ordered by
 * cursor; its params, then the last cursor seen, then the page size), a page
 * at a time. A page comes back as one JSON text (Db.tuples): in workerd,
 * reading documents as row objects costs several times more. So that a
 * page's JSON stays under the 2 MB one value may hold even when JSON escapes
 * every character, a first query reads the next PAGE documents' sizes
 * (octet_length: no text crosses) and the page takes as many as fit
 * PAGE_BYTES (at least one), which costs less than a window function
 * summing sizes in the page's own query.
 */
function indexPages(db: Db, writer: IndexWriter, query: string, ...params: number[]): void {
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const sizes = db.tuples<[bytes: number]>(["bytes"], `SELECT octet_length(text) AS bytes FROM (${query})`, [...params, after, PAGE]);
    if (sizes.length === 0) return;
    let take = 0;
    for (let bytes = 0; take < sizes.length; take++) {
      bytes += (sizes[take] as [number])[0];
      if (take > 0 && bytes > PAGE_BYTES) break;
    }
    const docs = db.tuples<[cursor: number, doc: number, text: string]>(["cursor", "doc", "text"], query, [...params, after, take]);
    for (const [cursor, doc, text] of docs) {
      writer.add(doc, text);
      if (cursor > after) after = cursor;
    }
    if (take === sizes.length && sizes.length < PAGE) return; // that was the rest
  }
}

// Stats of the entities `where` selects (alias e), counted from their rows.
const countStats = (where: string) => `INSERT INTO search_entity_stats (entity_id, observations, degree, updated_at)
  SELECT e.id, (SELECT count(*) FROM observations o WHERE o.entity_id = e.id),
    (SELECT count(*) FROM relations r WHERE r.from_id = e.id) + (SELECT count(*) FROM relations r WHERE r.to_id = e.id),
    e.updated_at
  FROM ${where}
  ON CONFLICT (entity_id) DO UPDATE SET observations = excluded.observations, degree = excluded.degree, updated_at = excluded.updated_at`;

/**
 * Brings the search indexes and stats up to date with the rows written in
 * this transaction. Returns how many documents it removed from or added to
 * the word index (what makes a compaction due: src/search/compact.ts).
 */
export function flushSearchIndex(db: Db): number {
  const s = db.one<State>(
    `SELECT entity_wm, observation_wm, relation_wm,
       coalesce((SELECT max(id) FROM entities), 0) AS max_entity,
       coalesce((SELECT max(id) FROM observations), 0) AS max_observation,
       coalesce((SELECT max(id) FROM relations), 0) AS max_relation,
       EXISTS (SELECT 1 FROM search_dirty) AS queued
     FROM search_state`,
  );
  if (!s) return 0;
  const fresh = s.max_entity > s.entity_wm || s.max_observation > s.observation_wm || s.max_relation > s.relation_wm;
  if (!s.queued && !fresh) return 0;
  let removed = 0;
  const writer = new IndexWriter(db);

  if (s.queued) {
    removed = db.run("DELETE FROM search_words WHERE rowid IN (SELECT doc FROM search_dirty WHERE indexed = 1)");
    db.run("DELETE FROM search_grams WHERE rowid IN (SELECT doc FROM search_dirty WHERE indexed = 1 AND doc < 0)");
    indexPages(
      db,
      writer,
      `SELECT d.doc AS cursor, d.doc, ${NAME_TEXT} AS text FROM search_dirty d JOIN entities e ON e.id = -d.doc
       WHERE d.doc < 0 AND e.id <= ?1 AND d.doc > ?2 ORDER BY d.doc LIMIT ?3`,
      s.entity_wm,
    );
    indexPages(
      db,
      writer,
      `SELECT d.doc AS cursor, d.doc, o.content AS text FROM search_dirty d JOIN observations o ON o.id = d.doc
       WHERE d.doc > 0 AND o.id <= ?1 AND d.doc > ?2 ORDER BY d.doc LIMIT ?3`,
      s.observation_wm,
    );
  }
  indexPages(
    db,
    writer,
    `SELECT e.id AS cursor, -e.id AS doc, ${NAME_TEXT} AS text FROM entities e WHERE e.id > ?1 AND e.id > ?2 ORDER BY e.id LIMIT ?3`,
    s.entity_wm,
  );
  indexPages(
    db,
    writer,
    "SELECT o.id AS cursor, o.id AS doc, o.content AS text FROM observations o WHERE o.id > ?1 AND o.id > ?2 ORDER BY o.id LIMIT ?3",
    s.observation_wm,
  );
  writer.finish();

  // Stats: increments for entities that already have them, then new entities counted whole.
  // NOT INDEXED: grouped by entity_id, SQLite would otherwise scan the whole (entity_id, content)
  // index to skip a sort, every observation on every batch, instead of reading only the new rows.
  db.run(
    `UPDATE search_entity_stats SET observations = observations + g.n
     FROM (SELECT entity_id AS id, count(*) AS n FROM observations NOT INDEXED WHERE id > ?1 GROUP BY entity_id) AS g
     WHERE g.id = search_entity_stats.entity_id`,
    s.observation_wm,
  );
  db.run(
    `UPDATE search_entity_stats SET degree = degree + g.n
     FROM (SELECT id, count(*) AS n FROM (SELECT from_id AS id FROM relations WHERE id > ?1
                                          UNION ALL SELECT to_id AS id FROM relations WHERE id > ?1) GROUP BY id) AS g
     WHERE g.id = search_entity_stats.entity_id`,
    s.relation_wm,
  );
  db.run(countStats("entities e WHERE e.id > ?1"), s.entity_wm);
  if (s.queued) db.run(countStats("search_dirty d JOIN entities e ON e.id = -d.doc WHERE d.doc < 0"));

  db.run("UPDATE search_state SET entity_wm = ?1, observation_wm = ?2, relation_wm = ?3", s.max_entity, s.max_observation, s.max_relation);
  if (s.queued) db.run("DELETE FROM search_dirty");
  return removed + writer.count;
}
