/**
 * The search score's named factors, in one place. ./rank.ts combines them:
 *
 *   score(e)   = BM25F(e, query) × connection × recency × √priority
 *
 *   idf        = ln(1 + (N - df + 0.5) / (df + 0.5))   BM25's idf for a term
 *   connection = √(1 + ln(1 + degree))
 *   recency    = RECENCY_FLOOR + (1 - RECENCY_FLOOR) × exp(-age / RECENCY_TIME)
 *   priority   = sqrt(clamp(P(e), PRIORITY_MIN, PRIORITY_MAX))      in [0.71, 2]
 *
 * P(e) is the item's priority (src/priority/model.ts: use per age, category
 * weight, the 2x mark, recency of the last access, cluster bonus, base
 * relevance). The square root and the clamp damp it: use nudges relevance
 * and never swamps it. A new, unused "general" entity has P = 1, factor 1;
 * age alone costs at most 0.71x, as the recency factor already weighs age.
 *
 * In BM25F an entity's name-and-type document weighs NAME_WEIGHT
 * observations, and a name or type holding the term only as a substring
 * (trigram index) SUBSTRING_WEIGHT of that. df is the number of documents
 * holding the term (estimated for very common terms, ./match.ts) and N the
 * number of documents.
 */

import type { TextBoost } from "../items";
import { priorityInputOf } from "../priority/columns";
import { priority, prioritySql, sqlReal, type ModelOptions } from "../priority/model";

export const DAY_MS = 24 * 60 * 60 * 1000;
/** Recency decays with this time constant: exp(-age / 30 days). */
const RECENCY_TIME_MS = 30 * DAY_MS;
/** Old knowledge keeps this share of a fresh entity's recency, so it stays findable. */
export const RECENCY_FLOOR = 0.2;
/** A hit in the entity's name or type counts this many observation hits. */
export const NAME_WEIGHT = 3;
/** A name or type that holds the term only as a substring counts this share of a name hit. */
export const SUBSTRING_WEIGHT = 0.5;

/** `df` documents out of `n` hold the term. */
export const idfFactor = (df: number, n: number): number => Math.log1p((Math.max(n, df) - df + 0.5) / (df + 0.5));

/**
 * Whole-query ranking's share of the importance factor (./rank.ts): the
 * square root of its degree part, so among equal matches the better
 * connected entity ranks first while a hub that barely matches does not win.
 * The observation count is left out there: BM25's length normalisation
 * already weighs it.
 */
export const connectionFactor = (degree: number): number => Math.sqrt(1 + Math.log1p(Math.max(0, degree)));

export const recencyFactor = (ageMs: number): number => RECENCY_FLOOR + (1 - RECENCY_FLOOR) * Math.exp(-Math.max(ageMs, 0) / RECENCY_TIME_MS);

/** The priority's range before the square root: the factor stays within [0.71, 2]. */
const PRIORITY_MIN = 0.5;
const PRIORITY_MAX = 4;

/** The damped priority factor of an entity whose priority (src/priority/model.ts) is `p`. */
export const priorityFactor = (p: number): number => Math.sqrt(Math.min(PRIORITY_MAX, Math.max(PRIORITY_MIN, Number.isFinite(p) ? p : PRIORITY_MIN)));

/** recencyFactor(now − `${updatedAt}`) as an SQL expression. */
const recencySql = (updatedAt: string, now: string): string =>
  `(${sqlReal(RECENCY_FLOOR)} + ${sqlReal(1 - RECENCY_FLOOR)} * exp(-max(${now} - ${updatedAt}, 0.0) / ${sqlReal(RECENCY_TIME_MS)}))`;

/**
 * √priorityFactor(P) as an SQL expression over the priority columns of `t` (src/priority/model.ts, `prioritySql`):
 * the factor's part that is not reachSql's (factorSql is reachSql × this).
 */
export const dampedSql = (t: string, now: string, model: ModelOptions): string =>
  `sqrt(sqrt(min(${sqlReal(PRIORITY_MAX)}, max(${sqlReal(PRIORITY_MIN)}, ${prioritySql(t, now, model)}))))`;

/**
 * connection × recency × √priorityFactor(P) as an SQL expression, for an entity
 * whose search statistics are `s` (search_entity_stats: degree, updated_at)
 * and whose priority columns are `e`, at `now` (an SQL expression of epoch
 * milliseconds, as prioritySql takes it): the same formulas as the
 * functions above, so SQLite can order a whole context by score (./rank.ts).
 */
export function factorSql(s: string, e: string, now: string, model: ModelOptions): string {
  return `(${reachSql(s, now)} * ${dampedSql(e, now, model)})`;
}

/** connection × recency, the factor's part that search_entity_stats `s` alone gives, as SQL: factorSql is it × √priority. */
export function reachSql(s: string, now: string): string {
  return `(sqrt(1.0 + ln(1.0 + max(0, ${s}.degree))) * ${recencySql(`${s}.updated_at`, now)})`;
}

/**
 * A file's or document's boost at `now`: recency(now − updated_at) ×
 * √priorityFactor(P), the entity score's factors but connection, as SQL over
 * the item row `i` and in JavaScript, so src/items/text-rank.ts can order a
 * whole index by BM25F × boost and rescore what it reads.
 */
export const itemBoost = (now: number, model: ModelOptions): TextBoost => ({
  sql: `(${recencySql("i.updated_at", sqlReal(now))} * ${dampedSql("i", sqlReal(now), model)})`,
  of: (r) => recencyFactor(now - r.updated_at) * Math.sqrt(priorityFactor(priority(priorityInputOf(r), now, model))),
});
