/**
 * Keeping the co-visitation index bounded; run from MemoryContext's alarm.
 *
 * - Sessions idle longer than COVIS_SESSION_IDLE_MINUTES are deleted with
 *   the items they remember (the pair counts they produced stay).
 * - An item keeps at most MAX_ASSOCIATIONS_PER_ITEM associations: past that
 *   the weakest (lowest count, then least recently counted) are dropped, so
 *   strong associations keep growing and weak ones fade.
 *
 * Work is done in batches so one alarm stays short; when a batch was full the
 * function asks to run again at once.
 */
import type { Db } from "../storage/sql";
import type { Settings } from "../settings";
import { dropSessions } from "./session";

export const MAX_ASSOCIATIONS_PER_ITEM = 100;
const SESSIONS_PER_RUN = 1000;
const PRUNED_ITEMS_PER_RUN = 200;

export type CovisitSettings = Pick<Settings, "COVIS_SESSION_IDLE_MINUTES">;

const idleMs = (s: CovisitSettings): number => s.COVIS_SESSION_IDLE_MINUTES * 60_000;

/** Drops the weakest associations of items over the cap; true when more items remain to prune. */
function pruneAssociations(db: Db): boolean {
  const heavy = db.all<{ item: string }>(
    "SELECT item FROM covisit_pairs GROUP BY item HAVING COUNT(*) > ? LIMIT ?",
    MAX_ASSOCIATIONS_PER_ITEM,
    PRUNED_ITEMS_PER_RUN + 1,
  );
  for (const { item } of heavy.slice(0, PRUNED_ITEMS_PER_RUN)) {
    db.run(
      `DELETE FROM covisit_pairs WHERE item = ?1 AND other IN (
         SELECT other FROM covisit_pairs WHERE item = ?1 ORDER BY count DESC, updated_at DESC, other LIMIT -1 OFFSET ?2)`,
      item,
      MAX_ASSOCIATIONS_PER_ITEM,
    );
  }
  return heavy.length > PRUNED_ITEMS_PER_RUN;
}

/**
 * One maintenance pass at `now`. Returns when it next wants to run (the
 * moment the oldest remaining session goes idle), `now` when a batch was
 * full, or null when there is nothing left to watch.
 */
export function maintainCovisit(db: Db, now: number, settings: CovisitSettings): number | null {
  const gap = idleMs(settings);
  const idle = db.all<{ id: number }>("SELECT id FROM covisit_sessions WHERE last_seen_at < ? ORDER BY last_seen_at LIMIT ?", now - gap, SESSIONS_PER_RUN);
  dropSessions(
    db,
    idle.map((s) => s.id),
  );
  const morePruning = pruneAssociations(db);
  if (idle.length === SESSIONS_PER_RUN || morePruning) return now;
  const oldest = db.one<{ t: number | null }>("SELECT MIN(last_seen_at) AS t FROM covisit_sessions")?.t ?? null;
  return oldest === null ? null : oldest + gap + 1;
}
