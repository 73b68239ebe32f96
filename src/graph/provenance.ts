/**
 * Provenance of observations: who wrote each current observation of an
 * entity and when (open_nodes `provenance: true`, recall's `by` and `at`).
 * The writer is the row's `written_by` (migrations/0021_team.sql), set by
 * every write from its caller and carried along by merges, undo and the
 * archive; a row written before that column existed is looked up in history
 * by its entity and time (src/history/provenance.ts), and shows "unknown"
 * once retention trimmed its change.
 */
import { lastWrite } from "../history/provenance";
import { itemKey } from "../items";
import type { Db } from "../storage/sql";

/** One observation with its writer (memory_history's name for it) and ISO time. */
export interface Provenance {
  observation: string;
  by: string;
  at: string;
}

/** The writer shown when neither the row nor history knows it. */
const UNKNOWN = "unknown";

/** Each current observation of entity `name`, in its order, with who wrote it and when. */
export function observationProvenance(db: Db, name: string): Provenance[] {
  const rows = db.all<{ content: string; created_at: number; written_by: string | null }>(
    "SELECT o.content, o.created_at, o.written_by FROM observations o JOIN entities e ON e.id = o.entity_id WHERE e.name = ? ORDER BY o.id",
    name,
  );
  return rows.map((r) => ({
    observation: r.content,
    by: r.written_by ?? lastWrite(db, itemKey.entity(name), r.created_at)?.by ?? UNKNOWN,
    at: new Date(r.created_at).toISOString(),
  }));
}
