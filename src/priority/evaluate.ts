/**
 * The capacity evaluation the context's alarm runs (src/context/upkeep.ts):
 * every MEMORY_EVALUATION_MINUTES while the context has a capacity, it
 * counts the items per limit and, only when a limit is near (use >= 90 %),
 * prunes towards 80 % (./capacity.ts).
 *
 * ## What is pruned, in which order
 * - Never an item marked important, one accessed within PRUNE_GRACE_MS (a
 *   day: a restored item counts as accessed), the root document or a
 *   document with children, a document whose parent is marked, an entity
 *   related to a marked entity (./scan.ts), nor one too large to archive
 *   (./archive.ts).
 * - Before counting tier use, a near short or mid limit first promotes the
 *   items of that tier whose cluster reached the threshold (./promote.ts,
 *   at most CLUSTER_REFRESH_PER_RUN per run, continuing next run).
 * - Only items whose priority (./model.ts) is below PROMOTION_THRESHOLD,
 *   lowest first, and only from what a near limit counts (a near `short`
 *   limit prunes short-term items; a near `total` any tier).
 * - Cluster sizes and tiers of the candidates are refreshed first: an item
 *   whose cluster grew may no longer be below the threshold.
 * - When use stays >= 90 % and nothing else qualifies, it stops: the
 *   outcome is "over_capacity" with the reason, and nothing above the
 *   threshold or marked is ever pruned to make room.
 * - At most MAX_PRUNE_PER_RUN items per run; when more must go, the next run
 *   is due at once ("partial").
 *
 * ## Memory
 * Candidates stream through a bounded heap of the lowest ones (./scan.ts):
 * memory is O(MAX_PRUNE_PER_RUN) whatever the context holds.
 *
 * ## Record
 * Pruning is one change in history by caller "system", tool
 * "memory_evaluation"; the result is kept as priority_state
 * "last_evaluation" for memory_stats.
 */
import { DomainError } from "../errors";
import { isReadOnly } from "../storage/registration";
import type { Db } from "../storage/sql";
import type { RecordingScope } from "../history";
import type { Settings } from "../settings";
import type { ItemRef } from "../items";
import {
  checkLimits,
  excess,
  hasLimits,
  limitUse,
  readCapacity,
  usage,
  writeCapacity,
  type CapacityLimits,
  type LimitName,
  type LimitUse,
  type Usage,
} from "./capacity";
import { priority, TIERS, type ModelOptions, type Tier } from "./model";
import { modelOptions } from "./weights";
import { pruneItem } from "./archive";
import { freshTier, lowestPrunable, type ScoredItem } from "./scan";
import { promoteClustered, refreshClusters } from "./promote";
import { readState, writeState } from "./state";

/** Items one evaluation prunes at most (bounds its memory and its transaction). */
export const MAX_PRUNE_PER_RUN = 1000;
/** Extra candidates read beyond what must go: some may rise over the threshold once their clusters are refreshed. */
const REFRESH_SLACK = 64;
/** Items named in last_evaluation at most. */
const REPORTED_ITEMS = 20;
/** Who a pruning is recorded as, in memory_history. */
export const EVALUATION_META = { caller: "system", callerId: "system", tool: "memory_evaluation" } as const;

export interface EvaluationOptions {
  intervalMs: number;
  threshold: number;
  model: ModelOptions;
}

export const evaluationOptions = (s: Settings): EvaluationOptions => ({
  intervalMs: s.MEMORY_EVALUATION_MINUTES * 60_000,
  threshold: s.PROMOTION_THRESHOLD,
  // The same model as tracking and search: MEMORY_CATEGORY_WEIGHTS and SEMANTIC_CLUSTER_THRESHOLD.
  model: modelOptions(s),
});

type Outcome = "within" | "read_only" | "pruned" | "partial" | "over_capacity";

export interface Evaluation {
  at: number;
  capacity: CapacityLimits;
  /** Use per limit after the run. */
  limits: LimitUse[];
  usage: Usage;
  outcome: Outcome;
  pruned: number;
  /** The first pruned items' keys, lowest priority first. */
  prunedItems: string[];
  /** Candidates kept because they were too large to archive. */
  tooLarge: string[];
  reason: string;
  /** The history change recording the pruning. */
  change?: number;
}

const describeLimits = (limits: readonly LimitUse[]) => limits.map((u) => `${u.limit} ${u.used}/${u.max} (${u.percent}%)`).join(", ");

/** Refreshes the candidates' cluster sizes and tiers; returns those still below the threshold, lowest first. */
function refreshCandidates(db: Db, items: readonly ScoredItem[], now: number, opts: EvaluationOptions): ScoredItem[] {
  // Writes the fresh cluster sizes and tiers back, as any refresh does.
  const sizes = refreshClusters(
    db,
    items.map((i): ItemRef => ({ key: i.key, kind: i.kind, name: i.name })),
    opts.model,
  );
  const out: ScoredItem[] = [];
  for (const item of items) {
    const clusterSize = sizes.get(item.key) ?? 0;
    const tier = freshTier(item, clusterSize, opts.model);
    const input = { ...item.input, clusterSize };
    const p = priority(input, now, opts.model);
    if (p < opts.threshold) out.push({ ...item, input, tier, priority: p });
  }
  return out.sort((a, b) => a.priority - b.priority || (a.key < b.key ? -1 : 1));
}

/** One evaluation at `now`; writes its result to last_evaluation. Null when the context has no capacity. */
function evaluate(w: RecordingScope, opts: EvaluationOptions): Evaluation | null {
  const { db, now } = w;
  const capacity = readCapacity(db);
  if (!hasLimits(capacity)) return null;
  let before = limitUse(capacity, usage(db));
  // Items whose cluster reached the threshold belong in long term: promote them before a tier limit counts them.
  const nearTiers = before.filter((u) => u.near && u.limit !== "total").map((u) => u.limit as Tier);
  if (nearTiers.length > 0 && promoteClustered(db, nearTiers, opts.model) > 0) before = limitUse(capacity, usage(db));
  const near = before.filter((u) => u.near);
  // A read-only context is kept exactly as it is: counted and reported, never pruned.
  const readOnly = near.length > 0 && isReadOnly(db);
  if (near.length === 0 || readOnly) {
    const result: Evaluation = {
      at: now,
      capacity,
      limits: before,
      usage: usage(db),
      outcome: readOnly ? "read_only" : "within",
      pruned: 0,
      prunedItems: [],
      tooLarge: [],
      reason: `${readOnly ? "read-only context: never pruned" : "no limit near 90%"} (${describeLimits(before)})`,
    };
    writeState(db, "last_evaluation", result);
    return result;
  }

  let needs = new Map<LimitName, number>(near.map((u) => [u.limit, excess(u)]));
  const tiers = new Set<Tier>(needs.has("total") ? TIERS : TIERS.filter((t) => needs.has(t)));
  const wanted = Math.min(MAX_PRUNE_PER_RUN, [...needs.values()].reduce((a, b) => a + b, 0) + REFRESH_SLACK);
  const candidates = lowestPrunable(db, wanted, opts.threshold, tiers, now, opts.model);
  const why = `${describeLimits(near)} at or over 90%`;
  const prunedItems: string[] = [];
  const tooLarge: string[] = [];
  const fresh = refreshCandidates(db, candidates, now, opts);
  // A refreshed candidate may have moved to long term, out of a near tier's count: what must go is counted again.
  if (fresh.length !== candidates.length || fresh.some((c, i) => c.tier !== candidates[i]?.tier)) {
    needs = new Map(
      limitUse(capacity, usage(db))
        .filter((u) => needs.has(u.limit))
        .map((u) => [u.limit, excess(u)]),
    );
  }
  for (const c of fresh) {
    const tier = c.tier as Tier;
    if ((needs.get("total") ?? 0) <= 0 && (needs.get(tier) ?? 0) <= 0) continue;
    const reason = `${why}; priority ${c.priority.toFixed(4)} < ${opts.threshold}`;
    const done = pruneItem(w, c.kind, c.name, c.priority, reason);
    if (done === "tooLarge") tooLarge.push(c.key);
    if (done !== "archived") continue;
    prunedItems.push(c.key);
    for (const limit of ["total", tier] as const) if (needs.has(limit)) needs.set(limit, (needs.get(limit) ?? 0) - 1);
  }

  const now_ = usage(db);
  const after = limitUse(capacity, now_);
  const stillNear = after.filter((u) => u.near);
  // The heap was full and the run made progress: more candidates may be waiting.
  const more = candidates.length === wanted && prunedItems.length > 0;
  const outcome: Outcome = stillNear.length === 0 ? "pruned" : more ? "partial" : "over_capacity";
  const reason =
    outcome === "pruned"
      ? `${why}: pruned ${prunedItems.length} below priority ${opts.threshold}, lowest first`
      : outcome === "partial"
        ? `${why}: pruned ${prunedItems.length} (one run's batch); the next run continues at once`
        : `over capacity, nothing prunable: ${describeLimits(stillNear)} still at or over 90% after pruning ${prunedItems.length}; ` +
          `the rest are marked important, at or above priority ${opts.threshold}, the root or documents with children` +
          (tooLarge.length > 0 ? `, or too large to archive (${tooLarge.length})` : "") +
          ". Raise the capacity, or delete or unmark items.";
  const result: Evaluation = {
    at: now,
    capacity,
    limits: after,
    usage: now_,
    outcome,
    pruned: prunedItems.length,
    prunedItems: prunedItems.slice(0, REPORTED_ITEMS),
    tooLarge: tooLarge.slice(0, REPORTED_ITEMS),
    reason,
    ...(prunedItems.length > 0 ? { change: w.rec.seq() } : {}),
  };
  writeState(db, "last_evaluation", result);
  return result;
}

export const lastEvaluation = (db: Db): Evaluation | null => readState<Evaluation>(db, "last_evaluation");
export const nextEvaluation = (db: Db): number | null => readState<number>(db, "next_evaluation");

/**
 * Sets when the next evaluation is due: `at`, or none when the context has
 * no capacity. Returns the time to set the alarm for, if any.
 */
function planEvaluation(db: Db, at: number): number | null {
  const next = hasLimits(readCapacity(db)) ? at : null;
  writeState(db, "next_evaluation", next);
  return next;
}

/**
 * Sets the capacity the contexts API gave (null: none), checked first, and plans the first evaluation
 * MEMORY_EVALUATION_MINUTES from `now` (none without a capacity).
 */
export function setCapacity(db: Db, limits: CapacityLimits | null, now: number, s: Settings): { capacity: CapacityLimits | null; nextEvaluation: number | null } {
  const checked = limits === null ? null : checkLimits(limits);
  if (checked && !checked.ok) throw new DomainError("Invalid", checked.message);
  writeCapacity(db, checked ? checked.limits : null);
  const capacity = checked && Object.keys(checked.limits).length > 0 ? checked.limits : null;
  return { capacity, nextEvaluation: planEvaluation(db, now + evaluationOptions(s).intervalMs) };
}

/**
 * The alarm's part: evaluates when due, then plans the next run. Returns
 * when the next evaluation is due (null: no capacity, no evaluation).
 */
export function evaluateIfDue(w: RecordingScope, opts: EvaluationOptions): number | null {
  const due = nextEvaluation(w.db);
  if (!hasLimits(readCapacity(w.db))) return planEvaluation(w.db, 0);
  if (due !== null && due > w.now) return due;
  const result = evaluate(w, opts);
  return planEvaluation(w.db, result?.outcome === "partial" ? w.now : w.now + opts.intervalMs);
}
