/**
 * A context's capacity: optional limits on how many items it holds, in all
 * (`total`) and per tier (`short`, `mid`, `long`). Items of every kind count:
 * entities, files and documents (the root included). No limit by default.
 *
 * The administrator sets them through the contexts API; the Registry keeps
 * them with the context and pushes them to the context's object, which keeps
 * its own copy in priority_state ("capacity") so its alarm knows them.
 *
 * ## Near and target
 * A limit is near when its use reaches NEAR_RATIO (90 %) of it; only then
 * does the evaluation prune, and it prunes towards PRUNE_TO_RATIO (80 %) so
 * the next evaluation does not start over at once.
 */
import type { Db } from "../storage/sql";
import { TIERS, type Tier } from "./model";
import { ITEM_TABLES } from "../items";
import { readState, writeState } from "./state";

export const LIMIT_NAMES = ["total", ...TIERS] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];
export type CapacityLimits = Partial<Record<LimitName, number>>;

const NEAR_RATIO = 0.9;
const PRUNE_TO_RATIO = 0.8;
/** The largest limit accepted (well past what one context holds). */
export const MAX_LIMIT = 100_000_000;

/** Items held, in all and per tier. */
export type Usage = Record<LimitName, number>;

export interface LimitUse {
  limit: LimitName;
  max: number;
  used: number;
  /** used / max, in percent, one decimal. */
  percent: number;
  near: boolean;
}

/**
 * `value` as limits, or the reason it is not: an object whose keys are among
 * total, short, mid, long and whose values are whole numbers from 1 to MAX_LIMIT.
 * (The contexts API validates with its own schema; this guards the object's RPC.)
 */
export function checkLimits(value: unknown): { ok: true; limits: CapacityLimits } | { ok: false; message: string } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, message: 'capacity must be an object such as {"total": 10000, "short": 2000}' };
  }
  const limits: CapacityLimits = {};
  for (const [key, n] of Object.entries(value)) {
    if (!(LIMIT_NAMES as readonly string[]).includes(key)) {
      return { ok: false, message: `capacity.${key}: unknown limit; the limits are ${LIMIT_NAMES.join(", ")}` };
    }
    if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > MAX_LIMIT) {
      return { ok: false, message: `capacity.${key}: must be a whole number from 1 to ${MAX_LIMIT}` };
    }
    limits[key as LimitName] = n;
  }
  return { ok: true, limits };
}

export const hasLimits = (c: CapacityLimits | null): c is CapacityLimits => c !== null && Object.keys(c).length > 0;

export const readCapacity = (db: Db): CapacityLimits | null => readState<CapacityLimits>(db, "capacity");

export function writeCapacity(db: Db, limits: CapacityLimits | null): void {
  writeState(db, "capacity", hasLimits(limits) ? limits : null);
}

/** Items per tier and in all, from the tier index of each kind's table. */
export function usage(db: Db): Usage {
  const out: Usage = { total: 0, short: 0, mid: 0, long: 0 };
  for (const t of Object.values(ITEM_TABLES)) {
    for (const r of db.all<{ tier: string; n: number }>(`SELECT tier, COUNT(*) AS n FROM ${t.table} GROUP BY tier`)) {
      out.total += r.n;
      if ((TIERS as readonly string[]).includes(r.tier)) out[r.tier as Tier] += r.n;
    }
  }
  return out;
}

/** Each set limit with its use, in LIMIT_NAMES order. */
export function limitUse(limits: CapacityLimits, used: Usage): LimitUse[] {
  return LIMIT_NAMES.flatMap((limit) => {
    const max = limits[limit];
    if (max === undefined) return [];
    const n = used[limit];
    return [{ limit, max, used: n, percent: Math.round((n / max) * 1000) / 10, near: n >= NEAR_RATIO * max }];
  });
}

/** How many items must go for a near limit to fall back to PRUNE_TO_RATIO. */
export const excess = (u: LimitUse): number => (u.near ? Math.max(1, u.used - Math.floor(PRUNE_TO_RATIO * u.max)) : 0);
