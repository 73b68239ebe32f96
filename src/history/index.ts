/**
 * Change history: who changed what in a context, and how to take it back.
 *
 * ## The recorder seam (for every domain that writes)
 * MemoryContext runs each write call as `run(meta, "write", (w) => ...)`
 * (src/context/runner.ts): one `transactionSync` whose `WriteScope`
 * `w = { db, now, rec, items }` carries a recorder. A store function that changes a row calls
 * `w.rec.note(itemKeys, inverseOp)`: the item keys it touched
 * (`entity:<name>`, `file:<path>`, `doc:<id>`) and a small JSON op holding
 * the prior state that undoes it (not a snapshot). When the call returns, one
 * `changes` row is appended in the same transaction, with caller, session,
 * tool, a summary and the ops; a call that noted nothing records nothing, and
 * a call that throws records nothing either.
 *
 * Each domain owns its op kinds: it types them as a union by `kind` and
 * exports `InverseKinds<ItsOps>`
 * (`apply` replays an op through a WriteScope, so undo is recorded like any
 * write; `describe` gives a summary phrase) and src/context/inverses.ts joins them in
 * `INVERSES` with `inverseRegistry`. History never imports a domain's SQL.
 * The six registries, by the writes they record and where their appliers are:
 *
 *     graphInverses     src/graph/writes.ts    + src/graph/inverse.ts      entity, observation, relation, superseded
 *     fileInverses      src/files/store.ts     + src/files/inverse.ts      file, fileMove
 *     documentInverses  src/documents/rows.ts  + src/documents/inverse.ts  document
 *     archiveInverses   src/priority/archive.ts                            archive
 *     priorityInverses  src/priority/mark.ts                               mark
 *     mergeInverses     src/context/merge.ts: src/graph/aliases.ts,        alias, entityStats, covisit
 *                       src/graph/merge.ts, src/covisit/merge.ts
 *
 * A new domain follows the files pattern: its mutation primitive reads the
 * prior row, writes, and calls `w.rec.note(itemKey, {kind, ..., prior})`;
 * its applier writes the prior state back through the same primitive (so
 * the undo is recorded too); src/context/inverses.ts adds its `...Inverses`
 * to INVERSES, and MemoryContext runs its calls as writes.
 *
 * Rules: note only writes that changed a row; keep each op small (one row's
 * prior state; a big value is fine while its JSON stays under ~1.5 MB, since
 * an op is never split across rows; a whole table is not); an applier must
 * write through the same recorded functions and throw DomainError("Conflict")
 * when the op cannot apply, which rolls the whole undo back.
 *
 * ## Storage layout (migrations/0002_history.sql, 0011_change_caller_id.sql)
 * `changes(seq AUTOINCREMENT, at, caller, session, tool, summary, undone_by, undoes, caller_id)`,
 * `change_items(item, seq)` (indexed both ways), `change_inverse(seq, part, ops)`.
 *
 * ## Lifecycle
 * Undo (undo.ts) appends a change; retention (retention.ts) trims old ones
 * from the object's alarm.
 */
export {
  ChangeRecorder,
  inverseRegistry,
  type InverseKind,
  type InverseKinds,
  type InverseOp,
  type InverseRegistry,
  type Phrase,
  type RecordingScope,
  type WriteScope,
} from "./recorder";
export { changesAfter, exportChanges, inverseOpsTakingBack, listChanges, type ChangeInfo, type HistoryQuery } from "./log";
export { undo, type UndoRequest, type UndoResult } from "./undo";
export { DAY_MS, historyHorizon, nextTrimAt, trimHistory } from "./retention";
