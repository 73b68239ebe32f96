/**
 * The SQL of search reads over the FTS5 indexes (with src/search/walk.ts):
 * a term's candidate documents, which of some documents hold a term, the
 * lengths and statistics the score reads.
 *
 * ## Cost at scale
 * Nothing here reads a window of a term's newest documents: ./rank.ts walks
 * whole doclists inside one statement, and `termCounts` counts a term's
 * documents in C (FTS5 walks a doclist at well under a microsecond a
 * posting), so a document counts whatever its age.
 */
import { sqlLimit, type Db } from "../storage/sql";
import { bigrams, quote, type QueryTerm } from "./tokenize";

export interface Corpus {
  /** Upper bound on the documents in the index (ids are never reused below the maximum). */
  documents: number;
  maxObservationId: number;
  maxEntityId: number;
}

export function readCorpus(db: Db): Corpus {
  const row = db.one<{ o: number | null; e: number | null }>("SELECT (SELECT max(id) FROM observations) AS o, (SELECT max(id) FROM entities) AS e");
  const o = row?.o ?? 0;
  const e = row?.e ?? 0;
  return { documents: o + e, maxObservationId: o, maxEntityId: e };
}

/** The MATCH expression for a term over search_words (text, alt); every string quoted. */
export function expression(term: QueryTerm): string {
  if (term.cjk) return [...term.key].length > 1 ? `{alt} : ${quote(bigrams(term.key).join(" "))}` : `{text} : ${quote(term.key)}`;
  if (term.parts.length === 1) return quote(term.key);
  return `${quote(term.parts.join(" "))} OR ${quote(term.key)}`;
}

/** How many documents (names and observations) hold `match`, and how many of them are names: every one, counted in C. */
export function termCounts(db: Db, match: string): { documents: number; names: number } {
  const row = db.one<{ n: number; names: number | null }>("SELECT count(*) AS n, sum(rowid < 0) AS names FROM search_words WHERE search_words MATCH ?1", match);
  return { documents: row?.n ?? 0, names: row?.names ?? 0 };
}

export interface EntityStats extends Record<string, SqlStorageValue> {
  id: number;
  updated: number;
  observations: number;
  degree: number;
  /** The priority columns (migrations/0006_priority.sql) the model reads. */
  uses: number;
  created: number;
  last_accessed: number | null;
  category: string;
  important: number;
  cluster_size: number;
  base_relevance: number;
  /** Characters of the name-and-type document. */
  label_len: number;
}

/**
 * Observation count, degree and last update of each entity in `ids` (kept by
 * triggers, migrations/0003_search.sql), with its priority columns: two
 * primary-key lookups per candidate.
 */
export function entityStats(db: Db, ids: readonly number[]): EntityStats[] {
  if (ids.length === 0) return [];
  return db.packed<EntityStats>(
    ["id", "updated", "observations", "degree", "uses", "created", "last_accessed", "category", "important", "cluster_size", "base_relevance", "label_len"],
    `SELECT s.entity_id AS id, s.updated_at AS updated, s.observations, s.degree,
            e.uses, e.created_at AS created, e.last_accessed_at AS last_accessed, e.category, e.important,
            e.cluster_size, e.base_relevance, length(e.name) + 1 + length(e.entity_type) AS label_len
     FROM json_each(?1) j JOIN search_entity_stats s ON s.entity_id = j.value JOIN entities e ON e.id = s.entity_id`,
    [JSON.stringify(ids)],
  );
}

/**
 * Which of `docs` (search_words rowids: observation ids, and -entity id for a
 * name and type) hold `match`: one rowid lookup per document, so the cost is
 * bounded by the documents asked about, not by how common the term is.
 */
export function docsHolding(db: Db, match: string, docs: readonly number[]): Set<number> {
  if (docs.length === 0) return new Set();
  return new Set(
    db
      .tuples<[doc: number]>(
        ["doc"],
        // EXISTS keeps json_each outside: as a join, SQLite scans the whole MATCH and probes the list.
        `SELECT value AS doc FROM json_each(?2) WHERE EXISTS (SELECT 1 FROM search_words WHERE search_words MATCH ?1 AND rowid = value)`,
        [match, JSON.stringify(docs)],
      )
      .map(([doc]) => doc),
  );
}

/** Rows sampled, newest first, to estimate the average document lengths. */
const LENGTH_SAMPLE = 500;

/** Average characters of an observation and of a name-and-type document, over the newest LENGTH_SAMPLE of each. */
export function averageLengths(db: Db): { observation: number; label: number } {
  const row = db.one<{ o: number | null; l: number | null }>(
    `SELECT (SELECT avg(length(content)) FROM (SELECT content FROM observations ORDER BY id DESC LIMIT ${LENGTH_SAMPLE})) AS o,
            (SELECT avg(length(name) + 1 + length(entity_type)) FROM (SELECT name, entity_type FROM entities ORDER BY id DESC LIMIT ${LENGTH_SAMPLE})) AS l`,
  );
  return { observation: Math.max(1, row?.o ?? 1), label: Math.max(1, row?.l ?? 1) };
}

/** The observations of `ids` by id, in the order of `ids` (the passages ./rank.ts chose). */
export function observationTexts(db: Db, ids: readonly number[]): Map<number, string> {
  if (ids.length === 0) return new Map();
  const rows = db.tuples<[id: number, content: string]>(["id", "content"], "SELECT id, content FROM observations WHERE id IN (SELECT value FROM json_each(?1))", [
    JSON.stringify(ids),
  ]);
  return new Map(rows);
}

/** Each entity's first `perEntity` observations (oldest first), for entities that matched by name or were reached another way. */
export function firstObservations(db: Db, ids: readonly number[], perEntity: number): Map<number, string[]> {
  const out = new Map<number, string[]>();
  if (ids.length === 0) return out;
  const rows = db.tuples<[eid: number, content: string]>(
    ["eid", "content"],
    `SELECT entity_id AS eid, content FROM (
       SELECT entity_id, content, id, row_number() OVER (PARTITION BY entity_id ORDER BY id) AS n
       FROM observations WHERE entity_id IN (SELECT value FROM json_each(?1)))
     WHERE n <= ${sqlLimit(perEntity)} ORDER BY id`,
    [JSON.stringify(ids)],
  );
  for (const [eid, content] of rows) {
    const list = out.get(eid);
    if (list) list.push(content);
    else out.set(eid, [content]);
  }
  return out;
}
