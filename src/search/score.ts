/**
 * The search score, in one place: a product of named factors.
 *
 *   score_t(e) = tf × idf × importance × recency × priority
 *
 *   tf         = 1 + ln(1 + hits_t(e))        sublinear term frequency
 *   idf        = ln(1 + (N - df + 0.5) / (df + 0.5))   BM25's idf for the term
 *   importance = ln(1 + max(observations, 1)) × (1 + ln(1 + degree))
 *   recency    = RECENCY_FLOOR + (1 - RECENCY_FLOOR) × exp(-age / RECENCY_TIME)
 *   priority   = sqrt(clamp(P(e), PRIORITY_MIN, PRIORITY_MAX))      in [0.71, 2]
 *
 * P(e) is the item's priority (src/priority/model.ts: use per age, category
 * weight, the 2x mark, recency of the last access, cluster bonus, base
 * relevance). The square root and the clamp damp it: use nudges relevance
 * and never swamps it (at most 2x for a much-used entity, at least 0.71x for
 * an old unused one, 2.8x between the two), so a heavily used entity that
 * barely matches does not beat one that matches well. A new, unused
 * "general" entity has P = 1, factor 1; age alone costs at most 0.71x, as
 * the recency factor already weighs age.
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
export const importanceFactor = (observations: number, degree: number): number => Math.log1p(Math.max(observations, 1)) * (1 + Math.log1p(degree));

export const recencyFactor = (ageMs: number): number => RECENCY_FLOOR + (1 - RECENCY_FLOOR) * Math.exp(-Math.max(ageMs, 0) / RECENCY_TIME_MS);

/** The priority's range before the square root: the factor stays within [0.71, 2]. */
export const PRIORITY_MIN = 0.5;
export const PRIORITY_MAX = 4;

/** The damped priority factor of an entity whose priority (src/priority/model.ts) is `p`. */
export const priorityFactor = (p: number): number => Math.sqrt(Math.min(PRIORITY_MAX, Math.max(PRIORITY_MIN, Number.isFinite(p) ? p : PRIORITY_MIN)));

export const combine = (f: Factors): number => f.tf * f.idf * f.importance * f.recency * f.priority;
