/**
 * The search score, in one place: a product of named factors.
 *
 *   score_t(e) = tf × idf × importance × recency × priority
 *
 *   tf         = 1 + ln(1 + hits_t(e))        sublinear term frequency
 *   idf        = ln(1 + (N - df + 0.5) / (df + 0.5))   BM25's idf for the term
 *   importance = ln(1 + max(observations, 1)) × (1 + ln(1 + degree))
 *   recency    = RECENCY_FLOOR + (1 - RECENCY_FLOOR) × exp(-age / RECENCY_TIME)
 *   priority   = 1 (filled by the access-tracking feature)
 *
 * hits_t(e) counts the entity's documents that hold the term: its name-and-type
 * document weighs NAME_WEIGHT, each observation 1 (among the newest
 * OBSERVATION_CANDIDATES observations holding the term, see ./match.ts), and a
 * name or type holding it only as a substring (trigram index) weighs
 * SUBSTRING_WEIGHT × NAME_WEIGHT. df is the number of documents holding the
 * term (estimated for very common terms) and N the number of documents.
 * An entity's score for the whole query is the sum of its per-term scores.
 */

export const DAY_MS = 24 * 60 * 60 * 1000;
/** Recency decays with this time constant: exp(-age / 30 days). */
export const RECENCY_TIME_MS = 30 * DAY_MS;
/** Old knowledge keeps this share of a fresh entity's recency, so it stays findable. */
export const RECENCY_FLOOR = 0.2;
/** A hit in the entity's name or type counts this many observation hits. */
export const NAME_WEIGHT = 3;
/** A name or type that holds the term only as a substring counts this share of a name hit. */
export const SUBSTRING_WEIGHT = 0.5;

export interface Factors {
  tf: number;
  idf: number;
  importance: number;
  recency: number;
  priority: number;
}

export const tfFactor = (hits: number): number => 1 + Math.log1p(hits);

/** `df` documents out of `n` hold the term. */
export const idfFactor = (df: number, n: number): number => Math.log1p((Math.max(n, df) - df + 0.5) / (df + 0.5));

/** An entity without observations counts as having one, so its name alone keeps it findable. */
export const importanceFactor = (observations: number, degree: number): number =>
  Math.log1p(Math.max(observations, 1)) * (1 + Math.log1p(degree));

export const recencyFactor = (ageMs: number): number =>
  RECENCY_FLOOR + (1 - RECENCY_FLOOR) * Math.exp(-Math.max(ageMs, 0) / RECENCY_TIME_MS);

/** Placeholder for the access-tracking feature: every entity weighs the same until it lands. */
export const priorityFactor = (_entityId: number): number => 1;

export const combine = (f: Factors): number => f.tf * f.idf * f.importance * f.recency * f.priority;
