/**
 * The admin audit log: append-only rows of who did what to which target, and
 * when. Details are small JSON objects and never hold a secret.
 */
import type { Db } from "../storage/sql";
import type { AuditEntry } from "./types";

type AuditRow = { id: number; at: number; actor: string; action: string; target: string; detail: string | null };

export function record(db: Db, at: number, actor: string, action: string, target: string, detail?: Record<string, unknown>): void {
  db.run("INSERT INTO audit_log (at, actor, action, target, detail) VALUES (?, ?, ?, ?, ?)", at, actor, action, target, detail ? JSON.stringify(detail) : null);
}

/** Newest first; `before` (an entry id) pages further back. */
export function readAudit(db: Db, limit: number, before?: number): AuditEntry[] {
  const rows =
    before === undefined
      ? db.all<AuditRow>("SELECT * FROM audit_log ORDER BY id DESC LIMIT ?", limit)
      : db.all<AuditRow>("SELECT * FROM audit_log WHERE id < ? ORDER BY id DESC LIMIT ?", before, limit);
  return rows;
}
