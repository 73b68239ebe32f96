/**
 * Finds the candidate entities for each query term in the FTS5 indexes and
 * counts the term's hits in them. SQL for search reads lives here and in
 * src/search/walk.ts.
 *
 * ## Cost at scale
 * A term is looked up newest-first with `ORDER BY rowid DESC LIMIT`, which
 * FTS5 answers by walking the term's doclist backwards and stopping after the
 * cap: the cost is bounded by the cap, not by how common the term is. (Ranking
 * all matches with `ORDER BY rank` reads every posting: seconds for a very
 * common term at 100,000 entities.) So for a term in more than
 * OBSERVATION_CANDIDATES observations only the newest ones are candidates,
 * plus up to NAME_CANDIDATES entities whose name or type holds it, and its
 * document frequency is estimated from how far back the capped window reaches.
 */
import { sqlLimit, type Db } from "../storage/sql";
import { NAME_WEIGHT, SUBSTRING_WEIGHT } from "./score";
import { bigrams, quote, type QueryTerm } from "./tokenize";

/** Newest observations considered per term. */
export const OBSERVATION_CANDIDATES = 50;
/** Entities considered per term by a hit in their name or type. */
export const NAME_CANDIDATES = 20;
/** Entities considered per term from the substring (trigram) index over names and types. */
export const SUBSTRING_CANDIDATES = 20;

export interface TermMatch {
  term: QueryTerm;
  /** Weighted hits per entity id: NAME_WEIGHT for its name row, 1 per observation holding the term. */
  hits: Map<number, number>;
  /** Documents (names and observations) estimated to hold the term. */
  df: number;
}

export interface Corpus {
  /** Upper bound on the documents in the index (ids are never reused below the maximum). */
  documents: number;
  maxObservationId: number;
  maxEntityId: number;
}

export function corpus(db: Db): Corpus {
  const row = db.one<{ o: number | null; e: number | null }>("SELECT (SELECT max(id) FROM observations) AS o, (SELECT max(id) FROM entities) AS e");
  const o = row?.o ?? 0;
  const e = row?.e ?? 0;
  return { documents: o + e, maxObservationId: o, maxEntityId: e };
}

/** The MATCH expression for a term over search_words (text, alt); every string quoted. */
function expression(term: QueryTerm): string {
  if (term.cjk) return [...term.key].length > 1 ? `{alt} : ${quote(bigrams(term.key).join(" "))}` : `{text} : ${quote(term.key)}`;
  if (term.parts.length === 1) return quote(term.key);
  return `${quote(term.parts.join(" "))} OR ${quote(term.key)}`;
}

/** Documents seen in a newest-first window of `seen` rows reaching back to `oldest`, out of ids up to `max`. */
function estimateDf(seen: number, cap: number, oldest: number, max: number): number {
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

/**
 * A term's name and type documents (rowid < 0, newest entity first) and its
 * newest observations (rowid > 0) with their owners, in one statement: each
 * branch keeps its own newest-first LIMIT, so FTS5 still stops at the cap.
 */
const TERM_DOCS = `SELECT doc, NULL AS eid FROM (
     SELECT rowid AS doc FROM search_words WHERE search_words MATCH ?1 AND rowid < 0 ORDER BY rowid LIMIT ${sqlLimit(NAME_CANDIDATES)})
   UNION ALL
   SELECT d.doc, o.entity_id AS eid FROM (
     SELECT rowid AS doc FROM search_words WHERE search_words MATCH ?1 AND rowid > 0 ORDER BY rowid DESC LIMIT ${sqlLimit(OBSERVATION_CANDIDATES)}) d
   LEFT JOIN observations o ON o.id = d.doc`;

/** Candidates and weighted hit counts for one term. */
export function matchTerm(db: Db, term: QueryTerm, c: Corpus): TermMatch {
  const hits = new Map<number, number>();
  const add = (eid: number, weight: number) => hits.set(eid, (hits.get(eid) ?? 0) + weight);
  const match = expression(term);
  const rows = db.tuples<[doc: number, eid: number | null]>(["doc", "eid"], TERM_DOCS, [match]);
  // The same order as two separate newest-first reads: names, then observations.
  const names = rows
    .filter(([doc]) => doc < 0)
    .map(([doc]) => doc)
    .sort((a, b) => a - b);
  const observations = rows.filter(([doc]) => doc > 0).sort((a, b) => b[0] - a[0]);
  for (const doc of names) add(-doc, NAME_WEIGHT);
  for (const [, eid] of observations) if (eid !== null) add(eid, 1);
  const df =
    estimateDf(names.length, NAME_CANDIDATES, -(names.at(-1) ?? 0), c.maxEntityId) +
    estimateDf(observations.length, OBSERVATION_CANDIDATES, observations.at(-1)?.[0] ?? 0, c.maxObservationId);
  // Substrings of names and types ("zoom" inside "zoomIntegration", "kube" inside
  // "kubernetes-cluster"), when no name or type holds the term as a word: the
  // trigram lookup costs several times a word lookup.
  if (names.length === 0 && [...term.key].length >= 3) {
    const wordHit = new Set(hits.keys());
    for (const doc of docs(db, "search_grams", true, quote(term.key), SUBSTRING_CANDIDATES)) {
      if (!wordHit.has(-doc)) add(-doc, SUBSTRING_WEIGHT * NAME_WEIGHT);
    }
  }
  return { term, hits, df };
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
}

/**
 * Observation count, degree and last update of each entity in `ids` (kept by
 * triggers, migrations/0003_search.sql), with its priority columns: two
 * primary-key lookups per candidate.
 */
export function entityStats(db: Db, ids: readonly number[]): EntityStats[] {
  if (ids.length === 0) return [];
  return db.packed<EntityStats>(
    ["id", "updated", "observations", "degree", "uses", "created", "last_accessed", "category", "important", "cluster_size", "base_relevance"],
    `SELECT s.entity_id AS id, s.updated_at AS updated, s.observations, s.degree,
            e.uses, e.created_at AS created, e.last_accessed_at AS last_accessed, e.category, e.important,
            e.cluster_size, e.base_relevance
     FROM json_each(?1) j JOIN search_entity_stats s ON s.entity_id = j.value JOIN entities e ON e.id = s.entity_id`,
    [JSON.stringify(ids)],
  );
}
