/**
 * Change history: who changed what in a context, and how to take it back.
 *
 * ## The recorder seam (for every domain that writes)
 * MemoryContext runs each write call as `this.write(meta, (w) => ...)`: one
 * `transactionSync` whose `WriteScope` `w = { db, now, rec }` carries a
 * recorder. A store function that changes a row calls
 * `w.rec.note(itemKeys, inverseOp)`: the item keys it touched
 * (`entity:<name>`, `file:<path>`, `doc:<id>`) and a small JSON op holding
 * the prior state that undoes it (not a snapshot). When the call returns, one
 * `changes` row is appended in the same transaction, with caller, session,
 * tool, a summary and the ops; a call that noted nothing records nothing, and
 * a call that throws records nothing either.
 *
 * Each domain owns its op kinds: it exports `Record<kind, InverseKind>`
 * (`apply` replays an op through a WriteScope, so undo is recorded like any
 * write; `describe` gives a summary phrase) and MemoryContext joins them with
 * `inverseRegistry(graphInverses, ...)`. History never imports a domain's SQL.
 * See src/graph/writes.ts and src/graph/inverse.ts for the graph's kinds.
 *
 * A new domain, sketched (files):
 *
 *     // src/files/store.ts: a recorded write
 *     export function writeFile(w: WriteScope, path: string, text: string) {
 *       const prior = w.db.one<{ text: string }>("SELECT text FROM files WHERE path = ?", path);
 *       w.db.run("INSERT INTO files (path, text) VALUES (?, ?) ON CONFLICT (path) DO UPDATE SET text = excluded.text", path, text);
 *       w.rec.note(`file:${path}`, { kind: "file", path, prior: prior?.text ?? null });
 *     }
 *     // src/files/inverse.ts: how to undo and describe it (apply goes through writeFile/deleteFile again)
 *     export const fileInverses = { file: { apply: (w, op) => ..., describe: (op) => ({ action: "~", noun: "file", name: op.path }) } };
 *     // src/context/MemoryContext.ts
 *     const INVERSES = inverseRegistry(graphInverses, fileInverses);
 *     writeFile(args, meta) { return this.write(meta, (w) => files.writeFile(w, args.path, args.text)); }
 *
 * Rules: note only writes that changed a row; keep each op small (one row's
 * prior state; a big value is fine, a whole table is not); an applier must
 * write through the same recorded functions and throw DomainError("Conflict")
 * when the op cannot apply, which rolls the whole undo back.
 *
 * ## Storage layout (migrations/0002_history.sql)
 * `changes(seq AUTOINCREMENT, at, caller, session, tool, summary, undone_by, undoes)`,
 * `change_items(item, seq)` (indexed both ways), `change_inverse(seq, part, ops)`.
 *
 * ## Lifecycle
 * Undo (undo.ts) appends a change; retention (retention.ts) trims old ones
 * from the object's alarm.
 */
export {
  ChangeRecorder,
  inverseRegistry,
  type ChangeMeta,
  type InverseKind,
  type InverseOp,
  type InverseRegistry,
  type Json,
  type Phrase,
  type Recorder,
  type RecordingScope,
  type WriteScope,
} from "./recorder";
export { exportChanges, listChanges, type ChangeInfo, type HistoryQuery } from "./log";
export { undo, UNDO_MAX_CHANGES, type UndoRequest, type UndoResult } from "./undo";
export { DAY_MS, nextTrimAt, trimHistory, type Retention } from "./retention";
