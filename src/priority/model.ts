/**
 * The priority model, in one place: what an item's use, category, mark and
 * neighbourhood say about how much it matters. Pure functions of a row and a
 * clock; the store modules read rows and call these.
 *
 *   priority = frequency × category × mark × recency × cluster × base_relevance
 *
 *   frequency      = (1 + uses) / (1 + age_days / FREQUENCY_WINDOW_DAYS)
 *                    weighted uses per week of age, smoothed so a new item
 *                    starts at 1 and an unused one decays towards 0
 *   category       = CATEGORY_WEIGHTS[category] (personal 2.0, technical 1.8,
 *                    project 1.7, casual 1.0, general 1.0)
 *   mark           = 2 if the user marked the item important, else 1
 *   recency        = 1 + RECENCY_BOOST × exp(-since_last_access / RECENCY_BOOST_DAYS)
 *                    on the last access, never on creation: 1 if never used
 *   cluster        = CLUSTER_BONUS when the item has >= cluster threshold
 *                    related items (relations and co-visitation), else 1
 *   base_relevance = 1.0 at creation, + a step per access, capped at 2.0
 *
 * Tiers: short at creation, mid after the first retrieval, long once
 * access_count >= LONG_TERM_ACCESSES, or marked, or cluster >= the threshold.
 * Every retrieval adds 1 to access_count; `uses` adds the access's weight.
 */
import { isCategory, type Category } from "../items";

export const DAY_MS = 24 * 60 * 60 * 1000;

export const DEFAULT_CATEGORY_WEIGHTS: Readonly<Record<Category, number>> = {
  personal: 2.0,
  technical: 1.8,
  project: 1.7,
  casual: 1.0,
  general: 1.0,
};

export const TIERS = ["short", "mid", "long"] as const;
export type Tier = (typeof TIERS)[number];

export type AccessWeightKind = "direct" | "search";

/** How much one retrieval counts: reading an item is a use; appearing in a search's results counts a quarter. */
export const ACCESS_WEIGHTS: Readonly<Record<AccessWeightKind, number>> = { direct: 1, search: 0.25 };
/** base_relevance rises by this much per use (times the access weight), up to the cap. */
export const RELEVANCE_STEP = 0.05;
export const RELEVANCE_CAP = 2.0;
const FREQUENCY_WINDOW_DAYS = 7;
const RECENCY_BOOST = 0.5;
const RECENCY_BOOST_DAYS = 14;
const CLUSTER_BONUS = 1.25;
const MARK_FACTOR = 2;
/** Retrievals that promote an item to long term. */
const LONG_TERM_ACCESSES = 5;
/** SEMANTIC_CLUSTER_THRESHOLD's default: an item with this many related items is in a cluster. */
const DEFAULT_CLUSTER_THRESHOLD = 3;

/** What the model reads of an item (column values, times in ms). */
export interface PriorityInput {
  uses: number;
  createdAt: number;
  lastAccessedAt: number | null;
  category: string;
  important: boolean;
  clusterSize: number;
  baseRelevance: number;
}

export interface ModelOptions {
  categoryWeights: Readonly<Record<Category, number>>;
  clusterThreshold: number;
}

export const DEFAULT_MODEL: ModelOptions = {
  categoryWeights: DEFAULT_CATEGORY_WEIGHTS,
  clusterThreshold: DEFAULT_CLUSTER_THRESHOLD,
};

interface PriorityFactors {
  frequency: number;
  category: number;
  mark: number;
  recency: number;
  cluster: number;
  baseRelevance: number;
}

function priorityFactors(item: PriorityInput, now: number, opts: ModelOptions = DEFAULT_MODEL): PriorityFactors {
  const ageDays = Math.max(0, now - item.createdAt) / DAY_MS;
  const since = item.lastAccessedAt === null ? null : Math.max(0, now - item.lastAccessedAt) / DAY_MS;
  return {
    frequency: (1 + Math.max(0, item.uses)) / (1 + ageDays / FREQUENCY_WINDOW_DAYS),
    category: isCategory(item.category) ? opts.categoryWeights[item.category] : opts.categoryWeights.general,
    mark: item.important ? MARK_FACTOR : 1,
    recency: since === null ? 1 : 1 + RECENCY_BOOST * Math.exp(-since / RECENCY_BOOST_DAYS),
    cluster: item.clusterSize >= opts.clusterThreshold ? CLUSTER_BONUS : 1,
    baseRelevance: Math.min(RELEVANCE_CAP, Math.max(0, item.baseRelevance)),
  };
}

export function priority(item: PriorityInput, now: number, opts: ModelOptions = DEFAULT_MODEL): number {
  const f = priorityFactors(item, now, opts);
  return f.frequency * f.category * f.mark * f.recency * f.cluster * f.baseRelevance;
}

/** A number as an SQL REAL literal: an integral value keeps its ".0", so SQLite never divides as integers. */
export function sqlReal(x: number): string {
  if (!Number.isFinite(x)) throw new Error(`sqlReal: ${x} is not finite`);
  return Number.isInteger(x) && Math.abs(x) < 1e15 ? x.toFixed(1) : String(x);
}

/**
 * `priority` as an SQL expression over a row whose priority columns are
 * `${t}.uses`, `${t}.created_at`, `${t}.last_accessed_at`, `${t}.category`,
 * `${t}.important`, `${t}.cluster_size` and `${t}.base_relevance`, at `now` (an SQL
 * expression of the epoch milliseconds, a REAL: `sqlReal(now)` or a bound parameter):
 * the same factors in the same order, so SQLite can rank a whole context by
 * score (src/search/rank.ts). SQLite's exp() may differ from Math.exp in the
 * last bit, so a ranking rescored in JavaScript stays the reference.
 */
export function prioritySql(t: string, now: string, opts: ModelOptions = DEFAULT_MODEL): string {
  const n = now;
  const day = sqlReal(DAY_MS);
  const weights = Object.entries(opts.categoryWeights)
    .map(([name, w]) => `WHEN '${name}' THEN ${sqlReal(w)}`)
    .join(" ");
  const frequency = `((1.0 + max(0, ${t}.uses)) / (1.0 + max(0.0, ${n} - ${t}.created_at) / ${day} / ${sqlReal(FREQUENCY_WINDOW_DAYS)}))`;
  const category = `(CASE ${t}.category ${weights} ELSE ${sqlReal(opts.categoryWeights.general)} END)`;
  const mark = `(CASE WHEN ${t}.important = 1 THEN ${sqlReal(MARK_FACTOR)} ELSE 1.0 END)`;
  const recency = `(CASE WHEN ${t}.last_accessed_at IS NULL THEN 1.0 ELSE 1.0 + ${sqlReal(RECENCY_BOOST)} * exp(-(max(0.0, ${n} - ${t}.last_accessed_at) / ${day}) / ${sqlReal(RECENCY_BOOST_DAYS)}) END)`;
  const cluster = `(CASE WHEN ${t}.cluster_size >= ${sqlReal(opts.clusterThreshold)} THEN ${sqlReal(CLUSTER_BONUS)} ELSE 1.0 END)`;
  const base = `min(${sqlReal(RELEVANCE_CAP)}, max(0.0, ${t}.base_relevance))`;
  return `(${frequency} * ${category} * ${mark} * ${recency} * ${cluster} * ${base})`;
}

/**
 * An upper bound of `priority` at every time, as an SQL expression over an
 * item's own columns (no `now`, no settings), so an index can hold it
 * (migrations/0025_search_bounds.sql) and search can read the whole context's
 * maximum in one step (src/search/rank.ts): frequency ≤ 1 + uses (its age
 * term only divides), the access boost ≤ 1 + RECENCY_BOOST, the cluster bonus
 * when the item has any cluster (a threshold below 1 is allowed for by
 * `priorityBound`), the category weight left out (the caller multiplies by
 * the largest configured). Columns are bare, as an index expression needs.
 */
export const PRIORITY_BOUND_SQL = `(1.0 + max(0, uses)) * (CASE WHEN important = 1 THEN ${sqlReal(MARK_FACTOR)} ELSE 1.0 END) * (CASE WHEN last_accessed_at IS NULL THEN 1.0 ELSE ${sqlReal(1 + RECENCY_BOOST)} END) * (CASE WHEN cluster_size >= 1 THEN ${sqlReal(CLUSTER_BONUS)} ELSE 1.0 END) * min(${sqlReal(RELEVANCE_CAP)}, max(0.0, base_relevance))`;

/** The bound of every item's `priority` given the largest PRIORITY_BOUND_SQL among them (`indexed`), under `opts`. */
export function priorityBound(indexed: number, opts: ModelOptions = DEFAULT_MODEL): number {
  const category = Math.max(opts.categoryWeights.general, ...Object.values(opts.categoryWeights));
  return indexed * category * (opts.clusterThreshold < 1 ? CLUSTER_BONUS : 1);
}

/** What decides an item's tier. */
export interface TierInput {
  tier: string;
  important: boolean;
  accessCount: number;
  clusterSize: number;
}

/** The tier an item belongs in; tiers only ever go up (a promotion is not undone by time). */
export function tierFor(item: TierInput, opts: ModelOptions = DEFAULT_MODEL): Tier {
  if (item.tier === "long" || item.important || item.accessCount >= LONG_TERM_ACCESSES || item.clusterSize >= opts.clusterThreshold) {
    return "long";
  }
  if (item.tier === "mid" || item.accessCount > 0) return "mid";
  return "short";
}
