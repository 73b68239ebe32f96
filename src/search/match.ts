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
import type { Db } from "../context/sql";
import { NAME_WEIGHT, SUBSTRING_WEIGHT } from "./score";
import { bigrams, quote, type QueryTerm } from "./tokenize";

/** Newest observations considered per term. */
export const OBSERVATION_CANDIDATES = 100;
/** Entities considered per term by a hit in their name or type. */
export const NAME_CANDIDATES = 50;
/** Documents considered per term from the substring (trigram) index. */
export const SUBSTRING_CANDIDATES = 50;
/** The trigram index is asked about observations only when the word index found fewer entities than this. */
export const SUBSTRING_FALLBACK_BELOW = 5;

export interface TermMatch {
  term: QueryTerm;
  /** Weighted hits per entity id. */
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
  const row = db.one<{ o: number | null; e: number | null }>(
    "SELECT (SELECT max(id) FROM observations) AS o, (SELECT max(id) FROM entities) AS e",
  );
  const o = row?.o ?? 0;
  const e = row?.e ?? 0;
  return { documents: o + e, maxObservationId: o, maxEntityId: e };
}

// search_words columns: 0 name, 1 type, 2 body, 3 alt (joined compounds), 4 cjk (bigrams).
const COLUMNS = ["name", "type", "body", "alt", "cjk"] as const;
type Column = (typeof COLUMNS)[number];

function expression(term: QueryTerm): { match: string; main: Column[]; alt: boolean } {
  if (term.cjk && [...term.key].length > 1) {
    return { match: `{cjk} : ${quote(bigrams(term.key).join(" "))}`, main: ["cjk"], alt: false };
  }
  // alt holds texts with '-' and '_' removed: "dockercompose" finds "docker-compose".
  if (term.parts.length === 1) return { match: `{name type body alt} : ${quote(term.key)}`, main: ["name", "body"], alt: true };
  const phrase = quote(term.parts.join(" "));
  const joined = quote(term.key);
  return { match: `{name type body} : (${phrase} OR ${joined}) OR {alt} : ${joined}`, main: ["name", "body"], alt: true };
}

const hitsOf = (col: Column) =>
  `coalesce(length(highlight(search_words, ${COLUMNS.indexOf(col)}, char(1), '')) - length(${col}), 0)`;

interface HitRow extends Record<string, SqlStorageValue> {
  doc: number;
  eid: number;
  main: number;
  alt: number;
  type: number;
}

function wordRows(db: Db, term: QueryTerm, names: boolean, cap: number): HitRow[] {
  const e = expression(term);
  const sql = `SELECT rowid AS doc, eid, ${e.main.map(hitsOf).join(" + ")} AS main,
      ${e.alt ? hitsOf("alt") : "0"} AS alt, ${names ? hitsOf("type") : "0"} AS type
    FROM search_words WHERE search_words MATCH ?1 AND rowid ${names ? "< 0 ORDER BY rowid" : "> 0 ORDER BY rowid DESC"} LIMIT ?2`;
  return db.all<HitRow>(sql, e.match, cap);
}

/** Documents seen in a newest-first window of `seen` rows reaching back to `oldest`, out of ids up to `max`. */
function estimateDf(seen: number, cap: number, oldest: number, max: number): number {
  if (seen < cap) return seen;
  return Math.max(seen, (seen * max) / Math.max(1, max - oldest + 1));
}

function substringHits(db: Db, term: QueryTerm, withObservations: boolean, into: Map<number, number>, wordHit: Set<number>) {
  const add = (eid: number, weight: number) => {
    if (!wordHit.has(eid)) into.set(eid, (into.get(eid) ?? 0) + SUBSTRING_WEIGHT * weight);
  };
  const match = quote(term.key);
  const names = db.all<{ doc: number }>(
    "SELECT rowid AS doc FROM search_grams WHERE search_grams MATCH ?1 AND rowid < 0 ORDER BY rowid LIMIT ?2",
    match,
    SUBSTRING_CANDIDATES,
  );
  for (const r of names) add(-r.doc, NAME_WEIGHT);
  if (!withObservations) return;
  const docs = db.all<{ doc: number }>(
    "SELECT rowid AS doc FROM search_grams WHERE search_grams MATCH ?1 AND rowid > 0 ORDER BY rowid DESC LIMIT ?2",
    match,
    SUBSTRING_CANDIDATES,
  );
  if (docs.length === 0) return;
  const owners = db.all<{ eid: number }>(
    "SELECT entity_id AS eid FROM observations WHERE id IN (SELECT value FROM json_each(?1))",
    JSON.stringify(docs.map((d) => d.doc)),
  );
  for (const o of owners) add(o.eid, 1);
}

/** Candidates and weighted hit counts for one term. */
export function matchTerm(db: Db, term: QueryTerm, c: Corpus): TermMatch {
  const hits = new Map<number, number>();
  const names = wordRows(db, term, true, NAME_CANDIDATES);
  const observations = wordRows(db, term, false, OBSERVATION_CANDIDATES);
  for (const r of [...names, ...observations]) {
    const weight = r.doc < 0 ? NAME_WEIGHT : 1;
    const h = weight * Math.max(r.main, r.alt) + r.type;
    if (h > 0) hits.set(r.eid, (hits.get(r.eid) ?? 0) + h);
  }
  const df =
    estimateDf(names.length, NAME_CANDIDATES, -(names.at(-1)?.doc ?? 0), c.maxEntityId) +
    estimateDf(observations.length, OBSERVATION_CANDIDATES, observations.at(-1)?.doc ?? 0, c.maxObservationId);
  // Substrings: "docker" inside "dockerCompose", or CJK runs the bigrams missed.
  if ([...term.key].length >= 3) {
    substringHits(db, term, hits.size < SUBSTRING_FALLBACK_BELOW, hits, new Set(hits.keys()));
  }
  return { term, hits, df };
}

export interface EntityStats extends Record<string, SqlStorageValue> {
  id: number;
  updated: number;
  observations: number;
  degree: number;
}

/** Observation count, degree and last update of each entity in `ids`. */
export function entityStats(db: Db, ids: readonly number[]): EntityStats[] {
  if (ids.length === 0) return [];
  return db.all<EntityStats>(
    `SELECT e.id, e.updated_at AS updated,
       (SELECT count(*) FROM observations o WHERE o.entity_id = e.id) AS observations,
       (SELECT count(*) FROM relations r WHERE r.from_id = e.id) + (SELECT count(*) FROM relations r WHERE r.to_id = e.id) AS degree
     FROM entities e WHERE e.id IN (SELECT value FROM json_each(?1))`,
    JSON.stringify(ids),
  );
}
