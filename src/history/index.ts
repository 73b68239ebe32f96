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
  type WriteScope,
} from "./recorder";
export { exportChanges, listChanges, type ChangeInfo, type HistoryQuery } from "./log";
export { undo, UNDO_MAX_CHANGES, type UndoRequest, type UndoResult, type UndoScope } from "./undo";
export { DAY_MS, nextTrimAt, trimHistory, type Retention } from "./retention";
