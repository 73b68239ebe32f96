/**
 * The SQL of search reads over the FTS5 indexes (with src/search/walk.ts):
 * a term's candidate documents, which of some documents hold a term, the
 * lengths and statistics the score reads.
 *
 * ## Cost at scale
 * A term is looked up newest-first with `ORDER BY rowid DESC LIMIT`, which
 * FTS5 answers by walking the term's doclist backwards and stopping after the
 * cap: the cost is bounded by the cap, not by how common the term is. (Ranking
 * all matches with `ORDER BY rank` reads every posting: seconds for a very
 * common term at 100,000 entities.) So for a common term only its newest
 * documents are candidates, and its document frequency is estimated from how
 * far back the capped window reaches (`estimateDf`); ./rank.ts then asks
 * about the candidates' other documents one rowid at a time (`docsHolding`).
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

/** Documents seen in a newest-first window of `seen` rows reaching back to `oldest`, out of ids up to `max`. */
export function estimateDf(seen: number, cap: number, oldest: number, max: number): number {
  if (seen < cap) return seen;
  return Math.max(seen, (seen * max) / Math.max(1, max - oldest + 1));
}

const docs = (db: Db, table: string, names: boolean, match: string, cap: number) =>
  db
    .tuples<[doc: number]>(
      ["doc"],
      `SELECT rowid AS doc FROM ${table} WHERE ${table} MATCH ?1 AND ${names ? "rowid < 0 ORDER BY rowid" : "rowid > 0 ORDER BY rowid DESC"} LIMIT ${sqlLimit(cap)}`,
      [match],
      `doc${names ? "" : " DESC"}`,
    )
    .map(([doc]) => doc);

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
 * A compound's phrase ("github sqlite wal") is looked for among the newest
 * PHRASE_SPAN names and the newest PHRASE_SPAN observations only. FTS5 finds
 * a phrase by walking its words' doclists together, so a rare phrase of
 * common words would read them to their ends, whatever the window's cap, at
 * a cost that grows with the context. Its
 * joined form ("githubsqlitewal"), which every document writing the compound
 * carries (./indexer.ts derivedText), is one short doclist and is read in
 * full. So the window leaves out only older documents that hold the words
 * apart or inside a longer compound ("routingSdkKafka" for "routing-sdk");
 * the phrase's document frequency is estimated from what the window saw.
 * In a context with fewer than PHRASE_SPAN entities and observations the
 * window is exactly the whole expression's.
 */
const PHRASE_SPAN = 50_000;

/** A term's documents in capped newest-first windows (./rank.ts): entity ids by name or type, and observations with their owners. */
export interface TermWindow {
  /** Entities whose name or type holds the term, newest first. */
  names: number[];
  /** [observation id, entity id], newest first. */
  observations: [doc: number, eid: number][];
}

/** A term's names (rowid < 0, newest first) and observations with their owners (newest first), each part capped. */
const windowSql = (nameCap: number, observationCap: number) => `SELECT doc, NULL AS eid FROM (
     SELECT rowid AS doc FROM search_words WHERE search_words MATCH ?1 AND rowid < 0 ORDER BY rowid LIMIT ${sqlLimit(nameCap)})
   UNION ALL
   SELECT d.doc, o.entity_id AS eid FROM (
     SELECT rowid AS doc FROM search_words WHERE search_words MATCH ?1 AND rowid > 0 ORDER BY rowid DESC LIMIT ${sqlLimit(observationCap)}) d
   JOIN observations o ON o.id = d.doc`;

/**
 * windowSql for a compound: its joined form (?1) everywhere, its phrase (?2) in names with rowid < ?3 and
 * observations with rowid > ?4. The CASTs matter: FTS5 ignores a rowid bound that is not an INTEGER value,
 * and a bound JavaScript number may arrive as a REAL, which read the whole doclists again.
 */
const compoundWindowSql = (nameCap: number, observationCap: number) => `SELECT doc, NULL AS eid FROM (
     SELECT rowid AS doc FROM search_words WHERE search_words MATCH ?1 AND rowid < 0 ORDER BY rowid LIMIT ${sqlLimit(nameCap)})
   UNION ALL
   SELECT doc, NULL AS eid FROM (
     SELECT rowid AS doc FROM search_words WHERE search_words MATCH ?2 AND rowid < CAST(?3 AS INTEGER) ORDER BY rowid LIMIT ${sqlLimit(nameCap)})
   UNION ALL
   SELECT d.doc, o.entity_id AS eid FROM (
     SELECT rowid AS doc FROM search_words WHERE search_words MATCH ?1 AND rowid > 0 ORDER BY rowid DESC LIMIT ${sqlLimit(observationCap)}) d
   JOIN observations o ON o.id = d.doc
   UNION ALL
   SELECT d.doc, o.entity_id AS eid FROM (
     SELECT rowid AS doc FROM search_words WHERE search_words MATCH ?2 AND rowid > CAST(?4 AS INTEGER) ORDER BY rowid DESC LIMIT ${sqlLimit(observationCap)}) d
   JOIN observations o ON o.id = d.doc`;

/** `span` is PHRASE_SPAN but for tests, which cannot afford tens of thousands of documents. */
export function termWindow(db: Db, term: QueryTerm, corpus: Corpus, nameCap: number, observationCap: number, span = PHRASE_SPAN): TermWindow {
  const compound = !term.cjk && term.parts.length > 1;
  const nameBound = corpus.maxEntityId > span ? -(corpus.maxEntityId - span) : 0;
  const observationBound = Math.max(0, corpus.maxObservationId - span);
  const rows = compound
    ? db.tuples<[doc: number, eid: number | null]>(["doc", "eid"], compoundWindowSql(nameCap, observationCap), [
        quote(term.key),
        quote(term.parts.join(" ")),
        nameBound,
        observationBound,
      ])
    : db.tuples<[doc: number, eid: number | null]>(["doc", "eid"], windowSql(nameCap, observationCap), [expression(term)]);
  const names = new Set<number>();
  const observations = new Map<number, number>();
  for (const [doc, eid] of rows) {
    if (doc < 0) names.add(-doc);
    else if (eid !== null) observations.set(doc, eid);
  }
  return {
    names: [...names].sort((a, b) => b - a).slice(0, nameCap),
    observations: [...observations].sort((a, b) => b[0] - a[0]).slice(0, observationCap),
  };
}

/** Entities whose name or type holds `match` only as a substring (the trigram index), newest first. */
export const substringNames = (db: Db, match: string, cap: number): number[] => docs(db, "search_grams", true, match, cap).map((doc) => -doc);

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

/** Characters of each observation in `ids`. */
export function observationLengths(db: Db, ids: readonly number[]): Map<number, number> {
  if (ids.length === 0) return new Map();
  const rows = db.tuples<[id: number, len: number]>(
    ["id", "len"],
    "SELECT id, length(content) AS len FROM observations WHERE id IN (SELECT value FROM json_each(?1))",
    [JSON.stringify(ids)],
  );
  return new Map(rows);
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
