/**
 * Reading the change log: the memory_history listing, single changes for
 * undo, and the history lines of an export. Read-only; the recorder writes.
 */
import { chunksFor, jsonBatches, placeholders, type Db } from "../storage/sql";
import type { InverseOp } from "./recorder";

export interface ChangeRow extends Record<string, SqlStorageValue> {
  seq: number;
  at: number;
  caller: string;
  /** NULL on a token's changes recorded before ids were kept (migration 0011). */
  caller_id: string | null;
  session: string | null;
  tool: string;
  summary: string;
  undone_by: number | null;
  undoes: string | null;
}

export interface HistoryQuery {
  /** Only changes that touched this item (`entity:<name>`). */
  item?: string;
  /** Only changes by this caller. */
  caller?: string;
  /** Only changes made by this tool (its exact name, e.g. `update_observation` or `api:import`). */
  tool?: string;
  /** Only changes made at or after this time (ms). */
  since?: number;
  /** Only changes older than this seq (paging). */
  before?: number;
  limit: number;
}

/** One change as memory_history shows it. */
export interface ChangeInfo {
  seq: number;
  at: string;
  caller: string;
  /** The caller's stable id: a token's "tok_..." id, else admin, local or system; absent on a token's changes recorded before ids were kept. */
  callerId?: string;
  session?: string;
  tool: string;
  summary: string;
  /** The undo that reverted this change, while it is in effect. */
  undoneBy?: number;
  /** For an undo: the changes it reverted. */
  undoes?: number[];
}

export const parseSeqs = (text: string | null): number[] => (text ? (JSON.parse(text) as number[]) : []);

function toInfo(r: ChangeRow): ChangeInfo {
  return {
    seq: r.seq,
    at: new Date(r.at).toISOString(),
    caller: r.caller,
    ...(r.caller_id !== null ? { callerId: r.caller_id } : {}),
    ...(r.session !== null ? { session: r.session } : {}),
    tool: r.tool,
    summary: r.summary,
    ...(r.undone_by !== null ? { undoneBy: r.undone_by } : {}),
    ...(r.undoes !== null ? { undoes: parseSeqs(r.undoes) } : {}),
  };
}

export function getChange(db: Db, seq: number): ChangeRow | undefined {
  return db.one<ChangeRow>("SELECT * FROM changes WHERE seq = ?", seq);
}

export function changeItems(db: Db, seq: number): string[] {
  return db.all<{ item: string }>("SELECT item FROM change_items WHERE seq = ? ORDER BY item", seq).map((r) => r.item);
}

/** Newest first; `more` says whether older matching changes exist (page with `before`). */
export function listChanges(db: Db, q: HistoryQuery): { changes: ChangeInfo[]; more: boolean } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (q.item !== undefined) {
    where.push("c.seq IN (SELECT seq FROM change_items WHERE item = ?)");
    params.push(q.item);
  }
  if (q.caller !== undefined) {
    where.push("c.caller = ?");
    params.push(q.caller);
  }
  if (q.tool !== undefined) {
    // No index on tool: the newest-first walk over seq filters it (the log is bounded by retention).
    where.push("c.tool = ?");
    params.push(q.tool);
  }
  if (q.since !== undefined) {
    where.push("c.at >= ?");
    params.push(q.since);
  }
  if (q.before !== undefined) {
    where.push("c.seq < ?");
    params.push(q.before);
  }
  const rows = db.all<ChangeRow>(
    `SELECT c.* FROM changes c ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY c.seq DESC LIMIT ?`,
    ...params,
    q.limit + 1,
  );
  return { changes: rows.slice(0, q.limit).map(toInfo), more: rows.length > q.limit };
}

/** The parts of a change's inverse, last part first, each a JSON array of ops in write order. */
export function* inversePartsNewestFirst(db: Db, seq: number): Generator<string> {
  const parts = db.all<{ part: number }>("SELECT part FROM change_inverse WHERE seq = ? ORDER BY part DESC", seq);
  // One part in memory at a time: a change's inverse can be far larger than a part.
  for (const { part } of parts) {
    const row = db.one<{ ops: string }>("SELECT ops FROM change_inverse WHERE seq = ? AND part = ?", seq, part);
    if (row) yield row.ops;
  }
}

/**
 * History lines for an export, oldest first, after `after`: one JSON object a
 * line with `type: "change"`, the change, its items and its inverse ops.
 * Stops after about `maxChars` characters (always at least one line).
 */
export function exportChanges(db: Db, after: number, maxChars: number): { lines: string[]; next?: number } {
  const rows = db.all<ChangeRow>("SELECT * FROM changes WHERE seq > ? ORDER BY seq LIMIT 100", after);
  const lines: string[] = [];
  let used = 0;
  for (const r of rows) {
    const parts = db.all<{ ops: string }>("SELECT ops FROM change_inverse WHERE seq = ? ORDER BY part", r.seq);
    const inverse = `[${parts.map((p) => p.ops.slice(1, -1)).join(",")}]`;
    const head = JSON.stringify({ type: "change", ...toInfo(r), items: changeItems(db, r.seq) });
    const line = `${head.slice(0, -1)},"inverse":${inverse}}`;
    lines.push(line);
    used += line.length;
    if (used >= maxChars) return { lines, next: r.seq };
  }
  const last = rows[rows.length - 1];
  return rows.length === 100 && last ? { lines, next: last.seq } : { lines };
}

/**
 * Seqs of the changes made after `at`, newest first; with `items`, only those
 * that touched one of them. At most `max + 1`, so the caller can tell when
 * there are more (as-of reads replay them backwards: src/graph/rewind.ts).
 */
export function changesAfter(db: Db, at: number, items: readonly string[] | undefined, max: number): number[] {
  if (items === undefined) {
    return db.all<{ seq: number }>("SELECT seq FROM changes WHERE at > ? ORDER BY seq DESC LIMIT ?", at, max + 1).map((r) => r.seq);
  }
  const seqs = new Set<number>();
  for (const chunk of chunksFor([...new Set(items)], 1, 2)) {
    const rows = db.all<{ seq: number }>(
      `SELECT DISTINCT i.seq FROM change_items i JOIN changes c ON c.seq = i.seq
       WHERE i.item IN (${placeholders(chunk.length)}) AND c.at > ? ORDER BY i.seq DESC LIMIT ?`,
      ...chunk,
      at,
      max + 1,
    );
    for (const r of rows) seqs.add(r.seq);
  }
  return [...seqs].sort((a, b) => b - a).slice(0, max + 1);
}

/**
 * The inverse ops of the changes `seqs`, newest change first and each
 * change's ops last written first: the order that takes them back. Read in
 * a few statements; null when their JSON exceeds `maxChars` characters, so a
 * caller holds them all in memory only when that is bounded.
 */
export function inverseOpsTakingBack(db: Db, seqs: readonly number[], maxChars: number): InverseOp[] | null {
  const out: InverseOp[] = [];
  let chars = 0;
  for (const batch of jsonBatches([...seqs].sort((a, b) => b - a))) {
    const inBatch = "seq IN (SELECT value FROM json_each(?))";
    chars += db.one<{ n: number | null }>(`SELECT sum(length(ops)) AS n FROM change_inverse WHERE ${inBatch}`, batch)?.n ?? 0;
    if (chars > maxChars) return null;
    for (const row of db.all<{ ops: string }>(`SELECT ops FROM change_inverse WHERE ${inBatch} ORDER BY seq DESC, part DESC`, batch)) {
      const ops = JSON.parse(row.ops) as InverseOp[];
      for (let i = ops.length - 1; i >= 0; i--) out.push(ops[i] as InverseOp);
    }
  }
  return out;
}
