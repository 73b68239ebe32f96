/**
 * Who last wrote an item, read from the change log: the writer of a file's
 * or document's current text, and of an observation written before
 * observations kept their writer (migrations/0021_team.sql). Read-only.
 * A change trimmed by retention is gone, and so is what it could tell.
 */
import type { Db } from "../storage/sql";

/** A writer as memory_history shows it (`caller`) and the epoch ms of the write. */
export interface Written {
  by: string;
  at: number;
}

/** The newest change that touched `item`; with `at`, the newest one made at exactly that time (a row's `created_at`). */
export function lastWrite(db: Db, item: string, at?: number): Written | undefined {
  const row =
    at === undefined
      ? db.one<{ caller: string; at: number }>(
          "SELECT c.caller, c.at FROM change_items i JOIN changes c ON c.seq = i.seq WHERE i.item = ? ORDER BY i.seq DESC LIMIT 1",
          item,
        )
      : db.one<{ caller: string; at: number }>(
          "SELECT c.caller, c.at FROM change_items i JOIN changes c ON c.seq = i.seq WHERE i.item = ? AND c.at = ? ORDER BY i.seq DESC LIMIT 1",
          item,
          at,
        );
  return row ? { by: row.caller, at: row.at } : undefined;
}
