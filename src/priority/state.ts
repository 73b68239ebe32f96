/**
 * The `priority_state` table (migrations/0006_priority.sql): this context's
 * priority settings and state, one JSON value per key. The context's
 * registration and read-only flag are kept apart (src/storage/registration.ts).
 *
 *   capacity         the limits pushed by the contexts API (./capacity.ts)
 *   next_evaluation  when the alarm evaluates next (ms), while a capacity is set
 *   last_evaluation  what the last evaluation found and did (./evaluate.ts)
 *   cluster_refresh  where the evaluation's cluster promotion pass goes on (./promote.ts)
 */
import type { Db } from "../storage/sql";

export type StateKey = "capacity" | "next_evaluation" | "last_evaluation" | "cluster_refresh";

export function readState<T>(db: Db, key: StateKey): T | null {
  const row = db.one<{ value: string }>("SELECT value FROM priority_state WHERE key = ?", key);
  return row ? (JSON.parse(row.value) as T) : null;
}

/** Stores `value` under `key`; null removes the key. */
export function writeState(db: Db, key: StateKey, value: unknown): void {
  if (value === null || value === undefined) {
    db.run("DELETE FROM priority_state WHERE key = ?", key);
    return;
  }
  db.run("INSERT INTO priority_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, JSON.stringify(value));
}
