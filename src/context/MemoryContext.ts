/**
 * MemoryContext: one memory context, one SQLite-backed Durable Object.
 *
 * ## Lifecycle
 * The constructor applies pending migrations inside `blockConcurrencyWhile`,
 * so no call ever sees an old schema.
 *
 * ## Concurrency and atomicity
 * Every RPC method is synchronous inside one `transactionSync`: the object
 * serialises calls, and a call's writes commit together or not at all (any
 * earlier searches' pending access statistics are committed first, in a
 * transaction of their own, except before another search: ./pending.ts). A
 * domain failure (missing entity, bad cursor) rolls the transaction back and
 * comes back as a value, never as a thrown error.
 *
 * ## History
 * Writes (graph, files, documents, imports, undo) run through
 * `write(meta, fn)`, which hands store functions a recorder and appends the
 * call's change record in the same transaction (src/history). Each domain's
 * inverse kinds are joined in INVERSES below.
 *
 * ## Accesses
 * Calls that view, open or write items report what they did to the access
 * hook (./access.ts) in the same transaction: accesses, removals, renames.
 * Searches hand their hits to ./pending.ts, which records them in batches
 * after the replies; every other call and the alarm record what is pending
 * first. The
 * hook keeps each retrieved item's use, relevance and tier
 * (src/priority/track.ts). Retrievals (view, open_nodes, read_document) come
 * back with the items related to them.
 *
 * ## Helpers
 * Upkeep (the alarm: history retention, co-visitation cleanup, the
 * priority evaluation of src/priority/evaluate.ts) lives in ./upkeep.ts and
 * point-in-time recovery in ./restore.ts; the RPC methods here delegate to
 * them.
 */
import { DurableObject } from "cloudflare:workers";
import { capture, type Outcome } from "../errors";
import * as graph from "../graph/store";
import { exportPage, readGraph, type ReadGraphOptions } from "../graph/read";
import { importItems, type ImportItem, type ImportReport } from "../graph/import";
import type { Entity, EntityInput, GraphPage, ObservationAdd, ObservationDelete, Relation } from "../graph/types";
import { searchGraph, searchParams, type SearchOptions, type SearchResult } from "../search";
import { flushSearchIndex } from "../search/indexer";
import { graphInverses } from "../graph/inverse";
import {
  ChangeRecorder,
  exportChanges,
  inverseRegistry,
  listChanges,
  undo,
  type ChangeInfo,
  type HistoryQuery,
  type RecordingScope,
  type UndoRequest,
  type UndoResult,
} from "../history";
import * as documents from "../documents/store";
import { documentInverses } from "../documents/inverse";
import { ROOT_ID } from "../documents/links";
import { ensureRoot } from "../documents/rows";
import type { DocumentHit } from "../documents/search";
import * as files from "../files/commands";
import { fileInverses } from "../files/inverse";
import { markImportant, priorityInverses, type MarkResult } from "../priority/mark";
import { modelOptions } from "../priority/weights";
import type { ModelOptions } from "../priority/model";
import { relationWatch } from "../priority/promote";
import { settings, type Settings } from "../settings";
import { itemKey } from "../items";
import { accessOptions, itemSink, recordRemoval, reportEffects, type AccessOptions, type ItemEffects, type RelatedItem } from "./access";
import type { CallMeta } from "../storage/meta";
import { migrate } from "../storage/migrations";
import { prepareRestore, type RestorePlan, type RestoreTarget } from "./restore";
import { Db } from "../storage/sql";
import { contextCounts, entityAccessStats, type ContextCounts, type EntityAccessStats } from "./stats";
import { Upkeep } from "./upkeep";
import { PendingAccesses } from "./pending";
import { archiveInverses } from "../priority/archive";
import { checkLimits, writeCapacity, type CapacityLimits } from "../priority/capacity";
import { writeState } from "../priority/state";
import { EVALUATION_META, evaluateIfDue, evaluationOptions, planEvaluation } from "../priority/evaluate";
import { listArchive, restoreArchived, type ArchiveListing, type RestoreReport, type RestoreSelection } from "../priority/restore";
import { memoryStats, priorityOverview, type MemoryStats } from "../priority/stats";
import { DomainError } from "../errors";

/** Every domain's undo appliers; a new domain adds its own here. */
export const INVERSES = inverseRegistry(graphInverses, fileInverses, documentInverses, archiveInverses, priorityInverses);

/** A call's value and what it did to items (for the access hook). */
type WithEffects<T> = { value: T; effects: ItemEffects };
type Related = { related: RelatedItem[] };

export type { CallMeta } from "../storage/meta";

export class MemoryContext extends DurableObject<Env> {
  private readonly db: Db;
  /** The object's clock. Tests replace it (through runInDurableObject) instead of sleeping. */
  now: () => number = Date.now;
  /** The deployment's settings. Tests replace it (like `now`) to try other values. */
  config: () => Settings = () => settings(this.env);
  private readonly upkeep: Upkeep;
  /** Search hits not yet recorded (./pending.ts): written before any call but a search reads or writes. */
  private readonly pending: PendingAccesses;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = new Db(ctx.storage.sql);
    this.pending = new PendingAccesses(this.db, (fn) => ctx.storage.transactionSync(fn));
    this.upkeep = new Upkeep(ctx.storage, this.db, (s, now) => this.evaluate(s, now));
    void ctx.blockConcurrencyWhile(async () => {
      migrate(this.db, (fn) => ctx.storage.transactionSync(fn));
      // Index and count whatever a migration left to do (search catches up with existing rows).
      ctx.storage.transactionSync(() => flushSearchIndex(this.db));
      await this.upkeep.load();
    });
  }

  /**
   * Runs a read as one transaction; domain failures roll back and return as values.
   * The search indexes catch up with any rows written before it commits.
   * Pending search hits are written first unless `writePending` is false (searches and read_graph: ./pending.ts).
   */
  private tx<T>(fn: (db: Db, now: number) => T, writePending = true): Outcome<T> {
    if (writePending) this.pending.flush();
    return capture(() =>
      this.ctx.storage.transactionSync(() => {
        const value = fn(this.db, this.now());
        flushSearchIndex(this.db);
        return value;
      }),
    );
  }

  /**
   * Runs a write call as one transaction that also appends its change record:
   * `fn` writes through `w` (db, now, rec) and notes each change with `w.rec`.
   * Nothing noted, nothing recorded; a failure rolls back data and record alike.
   */
  private write<T>(meta: CallMeta, fn: (w: RecordingScope) => T): Outcome<T> {
    this.pending.flush();
    let recorded = false;
    let indexed = 0;
    const model = modelOptions(this.config());
    const outcome = capture(() => {
      const r = this.recordedTx(meta, this.now(), model, fn);
      recorded = r.recorded;
      indexed = r.indexed;
      return r.value;
    });
    if (recorded) this.upkeep.changeRecorded(this.now());
    this.upkeep.indexWritten(this.now(), indexed);
    return outcome;
  }

  /**
   * The transaction of every recorded write (tools and the alarm's
   * evaluation alike): `fn` writes and notes its changes, then the ends of
   * relations it touched are re-counted, the search indexes flushed and the
   * change record appended; all of it commits together or not at all.
   * `indexed`: the search documents written (for compaction, ./upkeep.ts).
   */
  private recordedTx<T>(meta: CallMeta, now: number, model: ModelOptions, fn: (w: RecordingScope) => T): { value: T; recorded: boolean; indexed: number } {
    return this.ctx.storage.transactionSync(() => {
      const relations = relationWatch();
      const rec = new ChangeRecorder(this.db, meta, now, INVERSES, relations.onNote);
      const value = fn({ db: this.db, now, rec, model, items: itemSink(this.db) });
      // Relating items can put them in a cluster (long term): both ends are re-counted once per call (src/priority/promote.ts).
      relations.refresh(this.db, model);
      // The search indexes commit with the rows they describe.
      const indexed = flushSearchIndex(this.db);
      return { value, recorded: rec.finish() !== undefined, indexed };
    });
  }

  /** Upkeep: trims history, drops idle co-visitation sessions and weak associations (./upkeep.ts). */
  override alarm(): void {
    this.pending.flush();
    this.upkeep.run(this.config, this.now());
  }

  /** The alarm's priority evaluation: one transaction, recorded as "system" / "memory_evaluation" when it prunes. */
  private evaluate(s: Settings, now: number): { next: number | null; recorded: boolean } {
    const opts = evaluationOptions(s);
    const { value: next, recorded } = this.recordedTx(EVALUATION_META, now, opts.model, (w) => evaluateIfDue(w, opts));
    return { next, recorded };
  }

  /**
   * The capacity the contexts API set (null: none). The first evaluation is
   * due MEMORY_EVALUATION_MINUTES from now; with no capacity, none is.
   */
  setCapacity(limits: CapacityLimits | null): Outcome<{ capacity: CapacityLimits | null; nextEvaluation: number | null }> {
    const interval = evaluationOptions(this.config()).intervalMs;
    const out = this.tx((db, now) => {
      const checked = limits === null ? null : checkLimits(limits);
      if (checked && !checked.ok) throw new DomainError("Invalid", checked.message);
      writeCapacity(db, checked ? checked.limits : null);
      return { capacity: checked && Object.keys(checked.limits).length > 0 ? checked.limits : null, nextEvaluation: planEvaluation(db, now + interval) };
    });
    if (out.ok && out.value.nextEvaluation !== null) this.upkeep.schedule(out.value.nextEvaluation);
    return out;
  }

  /** The Registry's read-only flag, pushed by the contexts API: a read-only context is never pruned. */
  setReadOnly(readOnly: boolean): Outcome<{ readOnly: boolean }> {
    return this.tx((db) => {
      writeState(db, "read_only", readOnly ? true : null);
      return { readOnly };
    });
  }

  /** memory_stats: counts by tier and category, capacity use, the archive, the last evaluation, the top items. */
  memoryStats(_meta: CallMeta): Outcome<MemoryStats> {
    return this.tx((db, now) => memoryStats(db, now, evaluationOptions(this.config())));
  }

  /** Capacity, use, archive and last evaluation, without the scans (the contexts API's stats). */
  priorityOverview() {
    return this.tx((db) => priorityOverview(db));
  }

  /** restore: brings archived items back as one recorded change. */
  restoreArchived(selection: RestoreSelection, meta: CallMeta): Outcome<RestoreReport & { change?: number }> {
    return this.write(meta, (w) => {
      const report = restoreArchived(w, selection);
      // Something was written exactly when an item or a kept relation came back (deferrals go with a restored entity).
      return report.restored.length > 0 || report.relationsRestored.length > 0 ? { ...report, change: w.rec.seq() } : report;
    });
  }

  /** What the archive holds, newest first. */
  listArchive(opts: { before?: number; limit: number; kind?: string }, _meta: CallMeta): Outcome<ArchiveListing> {
    return this.tx((db) => listArchive(db, opts));
  }

  /**
   * Runs `fn` through `run` (a read or a recorded write) and reports what it
   * did to the access hook in the same transaction; its value comes back with
   * the items related to what it retrieved.
   */
  private withEffects<S extends { db: Db; now: number }, T extends object>(
    meta: CallMeta,
    run: (body: (scope: S) => T & Related) => Outcome<T & Related>,
    fn: (scope: S) => WithEffects<T>,
  ): Outcome<T & Related> {
    const options = accessOptions(this.config());
    let accessed = false;
    const out = run((scope) => {
      const r = fn(scope);
      accessed = r.effects.accesses.length > 0;
      return { ...r.value, related: reportEffects(scope.db, r.effects, scope.now, meta, options) };
    });
    // A session may have started or gone on: the alarm must drop it once it idles out.
    if (out.ok && accessed) this.upkeep.sessionsMayIdle(this.now(), options.sessionIdleMs);
    return out;
  }

  private readCall<T extends object>(meta: CallMeta, fn: (scope: { db: Db; now: number }) => WithEffects<T>) {
    return this.withEffects(meta, (body) => this.tx((db, now) => body({ db, now })), fn);
  }

  private writeCall<T extends object>(meta: CallMeta, fn: (w: RecordingScope) => WithEffects<T>) {
    return this.withEffects(meta, (body) => this.write(meta, body), fn);
  }

  /**
   * A search: a read whose hits (`hitsOf` its value) are recorded in a batch
   * after the reply (./pending.ts); it neither waits for earlier searches'
   * hits to be written nor sees them.
   */
  private searchCall<T>(meta: CallMeta, options: AccessOptions, fn: (db: Db, now: number) => T, hitsOf: (value: T) => string[]): Outcome<T> {
    let at = 0;
    const out = this.tx((db, now) => {
      at = now;
      return fn(db, now);
    }, false);
    if (out.ok) this.pending.add({ accesses: hitsOf(out.value).map((item) => ({ item, kind: "search" })), now: at, meta, options });
    return out;
  }

  createEntities(entities: EntityInput[], meta: CallMeta): Outcome<Entity[]> {
    return this.write(meta, (w) => graph.createEntities(w, entities));
  }

  createRelations(relations: Relation[], meta: CallMeta): Outcome<Relation[]> {
    return this.write(meta, (w) => graph.createRelations(w, relations));
  }

  addObservations(items: ObservationAdd[], meta: CallMeta): Outcome<{ entityName: string; addedObservations: string[] }[]> {
    return this.write(meta, (w) => graph.addObservations(w, items));
  }

  deleteEntities(names: string[], meta: CallMeta) {
    return this.write(meta, (w) => {
      const report = graph.deleteEntities(w, names);
      recordRemoval(w.db, report.deleted.map(itemKey.entity));
      return report;
    });
  }

  deleteObservations(deletions: ObservationDelete[], meta: CallMeta) {
    return this.write(meta, (w) => graph.deleteObservations(w, deletions));
  }

  deleteRelations(relations: Relation[], meta: CallMeta) {
    return this.write(meta, (w) => graph.deleteRelations(w, relations));
  }

  /** mark_important: one recorded change; a bad or missing key rejects the whole call (src/priority/mark.ts). */
  markImportant(items: string[], important: boolean, meta: CallMeta): Outcome<MarkResult> {
    const { rootTemplate } = this.documentOptions;
    return this.write(meta, (w) => {
      // The root document exists from the start, even before its lazy creation (src/documents/store.ts).
      if (items.includes(itemKey.doc(ROOT_ID))) ensureRoot(w.db, rootTemplate, w.now);
      return markImportant(w, items, important, w.model);
    });
  }

  readGraph(opts: ReadGraphOptions, _meta: CallMeta): Outcome<GraphPage> {
    return this.tx((db) => readGraph(db, opts), false);
  }

  /** Every entity a search returns counts as a (light) retrieval of it: see src/priority/track.ts. */
  searchNodes(query: string, opts: SearchOptions, meta: CallMeta): Outcome<SearchResult> {
    const s = this.config();
    const params = searchParams(opts, s);
    const options = accessOptions(s);
    return this.searchCall(
      meta,
      options,
      (db, now) => searchGraph(db, query, params, now, options.model),
      (result) => result.entities.map((e) => itemKey.entity(e.name)),
    );
  }

  openNodes(names: string[], meta: CallMeta) {
    return this.readCall(meta, ({ db }) => {
      const found = graph.openNodes(db, names);
      const accesses = found.entities.map((e) => ({ item: itemKey.entity(e.name), kind: "open" as const }));
      return { value: found, effects: { accesses, removed: [], moved: [] } };
    });
  }

  viewFile(path: string, viewRange: number[] | undefined, meta: CallMeta) {
    return this.readCall(meta, ({ db }) => files.view(db, path, viewRange));
  }

  createFile(path: string, content: string, overwrite: boolean, meta: CallMeta) {
    return this.writeCall(meta, (w) => files.create(w, path, content, overwrite));
  }

  strReplace(path: string, oldStr: string, newStr: string, meta: CallMeta) {
    return this.writeCall(meta, (w) => files.strReplace(w, path, oldStr, newStr));
  }

  insertText(path: string, after: number, text: string, meta: CallMeta) {
    return this.writeCall(meta, (w) => files.insert(w, path, after, text));
  }

  deletePath(path: string, meta: CallMeta) {
    return this.writeCall(meta, (w) => files.remove(w, path));
  }

  renamePath(oldPath: string, newPath: string, meta: CallMeta) {
    return this.writeCall(meta, (w) => files.rename(w, oldPath, newPath));
  }

  /** The graph's counts. */
  stats() {
    return this.tx((db) => graph.graphCounts(db));
  }

  /** Counts across every domain, for people (the web page's overview). Reading them is not an access. */
  overview(): Outcome<ContextCounts> {
    return this.tx((db) => contextCounts(db));
  }

  /** Entities' access statistics as stored; reading them is not an access, so it never changes them. */
  entityStats(names: string[]): Outcome<EntityAccessStats[]> {
    const model = modelOptions(this.config());
    return this.tx((db, now) => entityAccessStats(db, names, now, model));
  }

  exportPage(cursor: string | undefined, maxLines: number): Outcome<{ lines: string[]; next?: string }> {
    return this.tx((db) => exportPage(db, cursor, maxLines));
  }

  importBatch(items: ImportItem[], meta: CallMeta): Outcome<ImportReport> {
    return this.write(meta, (w) => importItems(w, items));
  }

  /** memory_history: changes newest first, filtered. */
  history(query: HistoryQuery, _meta: CallMeta): Outcome<{ changes: ChangeInfo[]; more: boolean }> {
    return this.tx((db) => listChanges(db, query));
  }

  /** undo: reverts changes as one new change, or fails naming the conflicting ones. */
  undo(request: UndoRequest, meta: CallMeta): Outcome<UndoResult> {
    return this.write(meta, (w) => undo(w, INVERSES, request, meta.caller));
  }

  /** History lines of an export (`type: "change"`), oldest first, after seq `after`. */
  exportHistory(after: number, maxChars: number): Outcome<{ lines: string[]; next?: number }> {
    return this.tx((db) => exportChanges(db, after, maxChars));
  }

  /** Point-in-time recovery, step one: the next start restores the whole database to `target` (./restore.ts). */
  prepareRestore(target: RestoreTarget): Promise<RestorePlan> {
    // The bookmark (and the undo bookmark) must hold every earlier search's access statistics.
    this.pending.flush();
    return prepareRestore(this.ctx.storage, target);
  }

  /** Point-in-time recovery, step two: resets the object so it starts again from the bookmark. The call itself fails. */
  restart(): void {
    this.ctx.abort("restoring to a point in time");
  }

  /**
   * Wipes everything this context holds (the administrator's purge, after the
   * Registry stopped routing calls here) and re-creates the empty schema. No
   * other call runs in between.
   */
  async purge(): Promise<void> {
    await this.ctx.blockConcurrencyWhile(async () => {
      this.pending.drop();
      await this.ctx.storage.deleteAll();
      migrate(this.db, (fn) => this.ctx.storage.transactionSync(fn));
      await this.upkeep.load();
    });
  }

  private get documentOptions(): documents.DocumentOptions {
    const s = this.config();
    return { rootTemplate: s.ROOT_TEMPLATE, maxDepth: s.DOCUMENT_MAX_DEPTH };
  }

  readDocument(id: string, meta: CallMeta): Outcome<{ id: string; content: string; related: RelatedItem[] }> {
    return this.readCall(meta, ({ db, now }) => ({
      value: documents.readDocument(db, id, this.documentOptions, now),
      effects: { accesses: [{ item: itemKey.doc(id), kind: "view" }], removed: [], moved: [] },
    }));
  }

  /** One recorded change, whatever the update created and removed; the document and its new children count as written. */
  updateDocument(id: string, content: string, meta: CallMeta): Outcome<documents.UpdateResult> {
    return this.writeCall(meta, (w) => {
      const result = documents.updateDocument(w, id, content, this.documentOptions);
      const accesses = [id, ...result.created].map((d) => ({ item: itemKey.doc(d), kind: "write" as const }));
      return { value: result, effects: { accesses, removed: result.removed.map(itemKey.doc), moved: [] } };
    });
  }

  // The tree lists every document without showing any, so it is not an access to them.
  documentTree(_meta: CallMeta): Outcome<{ root: documents.TreeNode; count: number }> {
    return this.tx((db, now) => documents.documentTree(db, this.documentOptions, now));
  }

  searchDocuments(query: string, limit: number, meta: CallMeta): Outcome<DocumentHit[]> {
    return this.searchCall(
      meta,
      accessOptions(this.config()),
      (db, now) => documents.searchDocuments(db, query, limit, this.documentOptions, now),
      (hits) => hits.map((h) => itemKey.doc(h.id)),
    );
  }
}
