/**
 * Undo: revert changes by replaying their inverse ops, newest first, as one
 * new change (so an undo can itself be undone).
 *
 * ## Whose changes are "mine"
 * A change is the caller's own when it carries the caller's id (a token's
 * id, else admin, local or system), not merely its name: a token name passes
 * to a new token after a revocation, and the new token's `undo{}` must not
 * take back the old one's work. A token's changes recorded before ids were
 * kept (caller_id NULL) are no one's own; they are undone by number.
 *
 * ## Which changes an undo reverts
 * The targets (the caller's last `count` changes, or the change named) plus
 * every later change, in effect, that touched an item one of them touched,
 * and so on transitively: reverting a change while a later change to the
 * same item stays would replay a stale inverse over newer data. If any of
 * those later changes was made by someone other than the caller, the undo
 * fails and names them, rather than clobbering their work.
 *
 * ## Bookkeeping
 * `changes.undone_by` is set on every change while an undo of it is in
 * effect; `changes.undoes` lists what an undo reverted. Undoing an undo
 * clears `undone_by` on its targets again (they are back in effect), and so
 * on down a chain of redo/undo. A reverted change and an undo in effect net
 * out, so neither counts as a later change when working out the set.
 */
import { DomainError } from "../errors";
import type { Db } from "../storage/sql";
import { changeItems, getChange, inversePartsNewestFirst, parseSeqs, type ChangeRow } from "./log";
import type { ChangeMeta, InverseOp, InverseRegistry, RecordingScope } from "./recorder";

/** Who is undoing: the name history shows and the id that decides which changes are theirs. */
type Undoer = Pick<ChangeMeta, "caller" | "callerId">;

/** Changes one undo may revert in all (targets plus the later changes they pull in). */
const UNDO_MAX_CHANGES = 500;

export interface UndoRequest {
  /** Undo this change (and the later ones on the same items); else the caller's last `count`. */
  change?: number;
  count?: number;
}

export interface UndoResult {
  /** The new change recording the undo. */
  change: number;
  /** What was reverted, oldest first. */
  undone: { seq: number; caller: string; tool: string; summary: string }[];
}

/** A change in effect that is not an undo: neither reverted nor netted out against what it reverted. */
const live = (alias = "") => `${alias}undone_by IS NULL AND ${alias}undoes IS NULL`;

/** The caller as messages name them: `"bob" (token tok_...)`, or `"local"` for a built-in caller. */
const who = (u: Undoer) => (u.callerId === u.caller ? JSON.stringify(u.caller) : `${JSON.stringify(u.caller)} (token ${u.callerId})`);

function targets(db: Db, req: UndoRequest, undoer: Undoer): ChangeRow[] {
  if (req.change !== undefined) {
    const c = getChange(db, req.change);
    if (!c) {
      throw new DomainError("NotFound", `change #${req.change} is not in history (never made, or trimmed by retention); memory_history lists the changes kept.`);
    }
    if (c.undone_by !== null) {
      throw new DomainError("Invalid", `change #${c.seq} is already undone by #${c.undone_by}; to bring it back, undo #${c.undone_by}.`);
    }
    return [c];
  }
  const rows = db.all<ChangeRow>(`SELECT * FROM changes WHERE caller_id = ? AND ${live()} ORDER BY seq DESC LIMIT ?`, undoer.callerId, req.count ?? 1);
  if (rows.length === 0) {
    const namesake = db.one<{ x: number }>(
      `SELECT 1 AS x FROM changes WHERE caller = ? AND caller_id IS NOT ? AND ${live()} LIMIT 1`,
      undoer.caller,
      undoer.callerId,
    );
    const earlier = namesake ? ` Changes by an earlier token also named ${JSON.stringify(undoer.caller)} are not yours.` : "";
    throw new DomainError(
      "NotFound",
      `Nothing of yours to undo: ${who(undoer)} has no change in effect in this context.${earlier} memory_history lists changes; undo{change} undoes a given one.`,
    );
  }
  return rows;
}

/** The targets and every later change in effect that must go with them (see the module note). */
function closure(db: Db, seeds: readonly ChangeRow[]): ChangeRow[] {
  const included = new Map<number, ChangeRow>(seeds.map((c) => [c.seq, c]));
  // For each item: the oldest included change that touched it. Later changes to it must be included.
  const oldest = new Map<string, number>();
  const queue: string[] = [];
  const addItems = (seq: number) => {
    for (const item of changeItems(db, seq)) {
      const known = oldest.get(item);
      if (known !== undefined && known <= seq) continue;
      oldest.set(item, seq);
      queue.push(item);
    }
  };
  for (const c of seeds) addItems(c.seq);
  while (queue.length > 0) {
    const item = queue.pop() as string;
    const after = oldest.get(item) as number;
    const later = db.all<ChangeRow>(`SELECT c.* FROM change_items i JOIN changes c ON c.seq = i.seq WHERE i.item = ? AND i.seq > ? AND ${live("c.")}`, item, after);
    for (const c of later) {
      if (included.has(c.seq)) continue;
      included.set(c.seq, c);
      if (included.size > UNDO_MAX_CHANGES) {
        throw new DomainError(
          "TooLarge",
          `undoing that would revert more than ${UNDO_MAX_CHANGES} changes (later changes touch the same items); undo newer changes first.`,
        );
      }
      addItems(c.seq);
    }
  }
  return [...included.values()].sort((a, b) => a.seq - b.seq);
}

/** "#5, #7 and 3 more" */
const refs = (seqs: readonly number[], max = 5) =>
  seqs
    .slice(0, max)
    .map((s) => `#${s}`)
    .join(", ") + (seqs.length > max ? ` and ${seqs.length - max} more` : "");

/** "#5 by bob (add_observations: +obs A)"; with the token id when the name is the undoer's own, so two tokens of one name read apart. */
const line = (c: ChangeRow, undoer: Undoer) => {
  const id = c.caller === undoer.caller ? ` [${c.caller_id ?? "id not recorded"}]` : "";
  return `#${c.seq} by ${c.caller}${id} (${c.tool}: ${c.summary})`;
};

function replay(scope: RecordingScope, kinds: InverseRegistry, c: ChangeRow): void {
  for (const part of inversePartsNewestFirst(scope.db, c.seq)) {
    const ops = JSON.parse(part) as InverseOp[];
    for (let i = ops.length - 1; i >= 0; i--) {
      const op = ops[i] as InverseOp;
      const kind = kinds.get(op.kind);
      if (!kind) throw new DomainError("Invalid", `change #${c.seq} holds a "${op.kind}" change this server cannot undo.`);
      kind.apply(scope, op);
    }
  }
}

/** Sets `undone_by` on `seq` and keeps an undo's targets consistent with it (see Bookkeeping). */
function setUndoneBy(db: Db, seq: number, by: number | null): void {
  const stack: [number, number | null][] = [[seq, by]];
  while (stack.length > 0) {
    const [s, b] = stack.pop() as [number, number | null];
    const row = db.one<{ undoes: string | null }>("UPDATE changes SET undone_by = ? WHERE seq = ? RETURNING undoes", b, s);
    // An undo that is reverted puts its targets back in effect; one back in effect reverts them again.
    for (const t of parseSeqs(row?.undoes ?? null)) stack.push([t, b === null ? s : null]);
  }
}

export function undo(scope: RecordingScope, kinds: InverseRegistry, req: UndoRequest, undoer: Undoer): UndoResult {
  const seeds = targets(scope.db, req, undoer);
  const seedSeqs = new Set(seeds.map((c) => c.seq));
  const all = closure(scope.db, seeds);
  const others = all.filter((c) => !seedSeqs.has(c.seq) && c.caller_id !== undoer.callerId);
  if (others.length > 0) {
    const what = refs(seeds.map((c) => c.seq).sort((a, b) => a - b));
    throw new DomainError(
      "Conflict",
      `cannot undo ${what}: later changes by others touch the same items and are not undone: ${others
        .slice(0, 5)
        .map((c) => line(c, undoer))
        .join("; ")}` +
        `${others.length > 5 ? ` and ${others.length - 5} more` : ""}. Undo those first, newest first (undo{change: ${others[others.length - 1]?.seq}}), or leave ${what} as it is; nothing was undone.`,
    );
  }
  for (const c of [...all].reverse()) replay(scope, kinds, c);
  const seqs = all.map((c) => c.seq);
  scope.rec.setHeadline(`undo ${refs(seqs)}`);
  const change = scope.rec.seq();
  scope.db.run("UPDATE changes SET undoes = ? WHERE seq = ?", JSON.stringify(seqs), change);
  for (const s of seqs) setUndoneBy(scope.db, s, change);
  return { change, undone: all.map((c) => ({ seq: c.seq, caller: c.caller, tool: c.tool, summary: c.summary })) };
}
