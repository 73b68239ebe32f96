/**
 * Retention: a context keeps its last HISTORY_MAX_CHANGES changes and those
 * younger than HISTORY_MAX_DAYS; older ones are trimmed by the object's alarm
 * (MemoryContext.alarm), never on the write path.
 *
 * Trimming removes whole changes, oldest first, with their items and inverse,
 * in batches so one alarm run stays short. A trimmed change can no longer be
 * listed or undone; undo says so. Trimming also moves `history_horizon`
 * forward (migrations/0014): as-of reads refuse a time before it.
 */
import type { Db } from "../storage/sql";

export interface Retention {
  maxChanges: number;
  maxDays: number;
}

export const DAY_MS = 24 * 60 * 60 * 1000;
/** Changes one alarm run deletes at most; the alarm comes back at once for the rest. */
export const TRIM_BATCH = 2000;

/** Deletes changes past retention, up to TRIM_BATCH; `more` when some are left for the next run. */
export function trimHistory(db: Db, r: Retention, now: number): { deleted: number; more: boolean } {
  const byCount = db.one<{ seq: number }>("SELECT seq FROM changes ORDER BY seq DESC LIMIT 1 OFFSET ?", r.maxChanges)?.seq ?? 0;
  const byAge = db.one<{ seq: number | null }>("SELECT MAX(seq) AS seq FROM changes WHERE at < ?", now - r.maxDays * DAY_MS)?.seq ?? 0;
  const cutoff = Math.max(byCount, byAge);
  if (cutoff === 0) return { deleted: 0, more: false };
  const batchEnd = db.one<{ seq: number }>("SELECT seq FROM changes WHERE seq <= ? ORDER BY seq LIMIT 1 OFFSET ?", cutoff, TRIM_BATCH - 1)?.seq;
  const upTo = batchEnd ?? cutoff;
  // As-of reads cannot reach back past what is trimmed (historyHorizon).
  db.run("UPDATE history_horizon SET at = max(coalesce(at, 0), (SELECT max(at) FROM changes WHERE seq <= ?))", upTo);
  db.run("DELETE FROM change_items WHERE seq <= ?", upTo);
  db.run("DELETE FROM change_inverse WHERE seq <= ?", upTo);
  const deleted = db.run("DELETE FROM changes WHERE seq <= ?", upTo);
  return { deleted, more: upTo < cutoff };
}

/** When the alarm should next run: when the oldest change comes of age, or null with no history. */
export function nextTrimAt(db: Db, r: Retention, now: number): number | null {
  const oldest = db.one<{ at: number | null }>("SELECT MIN(at) AS at FROM changes")?.at ?? null;
  if (oldest === null) return null;
  return Math.max(oldest + r.maxDays * DAY_MS, now);
}

/** The time of the newest change retention trimmed, or null when none was: the state before it cannot be rebuilt (src/graph/rewind.ts). */
export function historyHorizon(db: Db): number | null {
  return db.one<{ at: number | null }>("SELECT at FROM history_horizon")?.at ?? null;
}
