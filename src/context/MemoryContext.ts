/**
 * MemoryContext: one memory context, one SQLite-backed Durable Object.
 *
 * ## Lifecycle
 * The constructor applies pending migrations inside `blockConcurrencyWhile`,
 * so no call ever sees an old schema.
 *
 * ## Concurrency and atomicity
 * Every RPC method is synchronous inside one `transactionSync`: the object
 * serialises calls, and a call's writes commit together or not at all. A
 * domain failure (missing entity, bad cursor) rolls the transaction back and
 * comes back as a value, never as a thrown error.
 *
 * ## History
 * Writes run through `write(meta, fn)`, which hands store functions a
 * recorder and appends the call's change record in the same transaction
 * (src/history). Each domain's inverse kinds are joined in INVERSES below.
 *
 * ## Accesses and the alarm
 * Calls that view, open or write items report them to the access hook
 * (./access.ts) in the same transaction; retrievals come back with the
 * items related to them. One alarm does all upkeep: it trims history to the
 * retention settings and keeps the co-visitation index bounded
 * (covisitMaintenance drops idle sessions), then sets itself for the
 * earliest time either wants to run again.
 */
import { DurableObject } from "cloudflare:workers";
import { capture, type Outcome } from "../errors";
import * as graph from "../graph/store";
import { exportPage, readGraph, type ReadGraphOptions } from "../graph/read";
import { importItems, type ImportItem, type ImportReport } from "../graph/import";
import type { Entity, GraphPage, KnowledgeGraph, ObservationAdd, ObservationDelete, Relation } from "../graph/types";
import { searchGraph, searchParams, type SearchOptions, type SearchResult } from "../search";
import { flushSearchIndex } from "../search/indexer";
import { graphInverses } from "../graph/inverse";
import {
  ChangeRecorder,
  exportChanges,
  inverseRegistry,
  listChanges,
  nextTrimAt,
  trimHistory,
  undo,
  type ChangeInfo,
  type HistoryQuery,
  type RecordingScope,
  type UndoRequest,
  type UndoResult,
} from "../history";
import * as documents from "../documents/store";
import type { DocumentHit } from "../documents/search";
import * as files from "../files/commands";
import { covisitMaintenance } from "../covisit";
import { settings, type Settings } from "../settings";
import { itemKey, recordAccess, recordRemoval, reportEffects, type AccessOptions, type ItemEffects, type RelatedItem } from "./access";
import { migrate } from "./migrations";
import { Db } from "./sql";

/** Every domain's undo appliers; a new domain adds its own here. */
const INVERSES = inverseRegistry(graphInverses);

/** After a write, the alarm trims history within this long. */
const TRIM_AFTER_WRITE_MS = 60 * 60 * 1000;

/** Point-in-time recovery, step one (see prepareRestore). */
export type RestorePlan =
  | { supported: true; ok: true; bookmark: string; undoBookmark: string }
  | { supported: true; ok: false; message: string }
  | { supported: false; message: string };

/** Who is calling and from where; recorded with every change (src/history). */
export interface CallMeta {
  /** The caller's identity: "admin", "local" or a token's name. */
  caller: string;
  /** The tool (or API route) that made the call. */
  tool: string;
  /** Session key, when the client has one: Mcp-Memory-Session, else Mcp-Session-Id (src/covisit/session.ts). */
  session?: string;
  /** The client's name (MCP clientInfo, else User-Agent), which identifies a session when there is no key. */
  client?: string;
}

export class MemoryContext extends DurableObject<Env> {
  private readonly db: Db;
  /** The object's clock. Tests replace it (through runInDurableObject) instead of sleeping. */
  now: () => number = Date.now;
  /** The deployment's settings. Tests replace it (like `now`) to try other values. */
  config: () => Settings = () => settings(this.env);
  /** When the alarm is set for, mirrored so a call need not await getAlarm(). */
  private alarmAt: number | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = new Db(ctx.storage.sql);
    void ctx.blockConcurrencyWhile(async () => {
      migrate(this.db, (fn) => ctx.storage.transactionSync(fn));
      // Index and count whatever a migration left to do (search catches up with existing rows).
      ctx.storage.transactionSync(() => flushSearchIndex(this.db));
      this.alarmAt = await ctx.storage.getAlarm();
    });
  }

  /**
   * Runs a read as one transaction; domain failures roll back and return as values.
   * The search indexes catch up with any rows written before it commits.
   */
  private tx<T>(fn: (db: Db, now: number) => T): Outcome<T> {
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
    let recorded = false;
    const outcome = capture(() =>
      this.ctx.storage.transactionSync(() => {
        const now = this.now();
        const rec = new ChangeRecorder(this.db, meta, now, INVERSES);
        const value = fn({ db: this.db, now, rec });
        // The search indexes commit with the rows they describe.
        flushSearchIndex(this.db);
        recorded = rec.finish() !== undefined;
        return value;
      }),
    );
    if (recorded) this.scheduleAlarm(this.now() + TRIM_AFTER_WRITE_MS);
    return outcome;
  }

  private accessOptions(): AccessOptions {
    const s = this.config();
    return { sessionIdleMs: s.COVIS_SESSION_IDLE_MINUTES * 60_000, maxRelated: s.MEMORY_COVIS_MAX_RECOMMENDATIONS };
  }

  /** Sets the alarm for `at` unless it is already due sooner. */
  private scheduleAlarm(at: number): void {
    if (this.alarmAt !== null && this.alarmAt <= at) return;
    this.alarmAt = at;
    this.ctx.storage.setAlarm(at).catch((error: unknown) => console.error(JSON.stringify({ event: "set_alarm_failed", error: String(error) })));
  }

  /** After a call that may have started a session: make sure the alarm will clean it up. */
  private sessionsMayIdle(): void {
    this.scheduleAlarm(this.now() + this.accessOptions().sessionIdleMs + 1);
  }

  /**
   * Upkeep: trims history to HISTORY_MAX_CHANGES / HISTORY_MAX_DAYS, drops idle
   * co-visitation sessions and weak associations, then sets the next alarm for
   * the earliest time either task wants.
   */
  override alarm(): void {
    this.alarmAt = null;
    let config: Settings;
    try {
      config = this.config();
    } catch (error) {
      // The Worker refuses requests with bad settings too; the next call sets the alarm again.
      console.error(JSON.stringify({ event: "maintenance_skipped", error: String(error) }));
      return;
    }
    const now = this.now();
    const retention = { maxChanges: config.HISTORY_MAX_CHANGES, maxDays: config.HISTORY_MAX_DAYS };
    const next = this.ctx.storage.transactionSync(() => {
      const { more } = trimHistory(this.db, retention, now);
      const trimAt = more ? now : nextTrimAt(this.db, retention, now);
      const covisitAt = covisitMaintenance(this.db, now, config);
      const times = [trimAt, covisitAt].filter((t): t is number => t !== null);
      return times.length > 0 ? Math.min(...times) : null;
    });
    if (next !== null) this.scheduleAlarm(next);
  }

  /** Runs a file command as a recorded write and reports its effects to the access hook; retrievals come back with related items. */
  private fileCall<T>(meta: CallMeta, fn: (w: RecordingScope) => { value: T; effects: ItemEffects }): Outcome<T & { related: RelatedItem[] }> {
    const out = this.write(meta, (w) => {
      const r = fn(w);
      return { ...r.value, related: reportEffects(w.db, r.effects, w.now, meta, this.accessOptions()) };
    });
    if (out.ok) this.sessionsMayIdle();
    return out;
  }

  createEntities(entities: Entity[], meta: CallMeta): Outcome<Entity[]> {
    return this.write(meta, (w) => graph.createEntities(w, entities));
  }

  createRelations(relations: Relation[], meta: CallMeta): Outcome<Relation[]> {
    return this.write(meta, (w) => graph.createRelations(w, relations));
  }

  addObservations(
    items: ObservationAdd[],
    meta: CallMeta,
  ): Outcome<{ entityName: string; addedObservations: string[] }[]> {
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

  readGraph(opts: ReadGraphOptions, _meta: CallMeta): Outcome<GraphPage> {
    return this.tx((db) => readGraph(db, opts));
  }

  searchNodes(query: string, opts: SearchOptions, _meta: CallMeta): Outcome<SearchResult> {
    const params = searchParams(opts, this.config());
    return this.tx((db, now) => searchGraph(db, query, params, now));
  }

  openNodes(names: string[], meta: CallMeta) {
    const out = this.tx((db, now) => {
      const found = graph.openNodes(db, names);
      const accesses = found.entities.map((e) => ({ item: itemKey.entity(e.name), kind: "open" as const }));
      return { ...found, related: reportEffects(db, { accesses, removed: [], moved: [] }, now, meta, this.accessOptions()) };
    });
    if (out.ok && out.value.entities.length > 0) this.sessionsMayIdle();
    return out;
  }

  viewFile(path: string, viewRange: number[] | undefined, meta: CallMeta) {
    return this.fileCall(meta, (w) => files.view(w.db, path, viewRange));
  }

  createFile(path: string, content: string, overwrite: boolean, meta: CallMeta) {
    return this.fileCall(meta, (w) => files.create(w, path, content, overwrite));
  }

  strReplace(path: string, oldStr: string, newStr: string, meta: CallMeta) {
    return this.fileCall(meta, (w) => files.strReplace(w, path, oldStr, newStr));
  }

  insertText(path: string, after: number, text: string, meta: CallMeta) {
    return this.fileCall(meta, (w) => files.insert(w, path, after, text));
  }

  deletePath(path: string, meta: CallMeta) {
    return this.fileCall(meta, (w) => files.remove(w, path));
  }

  renamePath(oldPath: string, newPath: string, meta: CallMeta) {
    return this.fileCall(meta, (w) => files.rename(w, oldPath, newPath));
  }

  stats() {
    return this.tx((db) => graph.graphCounts(db));
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

  /**
   * Point-in-time recovery, step one: arranges for this object's next start to
   * restore its whole database (graph and history alike) to `target`. Step two
   * is `restart()`. Only the deployed platform has PITR: local workerd
   * (wrangler dev, tests) answers `supported: false`.
   */
  async prepareRestore(target: { at: number } | { bookmark: string }): Promise<RestorePlan> {
    const storage = this.ctx.storage;
    try {
      const undoBookmark = await storage.getCurrentBookmark();
      const bookmark = "bookmark" in target ? target.bookmark : await storage.getBookmarkForTime(target.at);
      await storage.onNextSessionRestoreBookmark(bookmark);
      return { supported: true, ok: true, bookmark, undoBookmark };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // Local workerd only says so in its message; nothing else tells "unsupported" from "refused".
      if (/does not implement point-in-time recovery/i.test(message)) {
        return { supported: false, message: "Point-in-time recovery works only on the deployed Cloudflare platform, not under local workerd (wrangler dev, tests)." };
      }
      return { supported: true, ok: false, message: `The storage refused the restore: ${message}` };
    }
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
      await this.ctx.storage.deleteAll();
      migrate(this.db, (fn) => this.ctx.storage.transactionSync(fn));
      this.alarmAt = await this.ctx.storage.getAlarm();
    });
  }

  private get documentOptions(): documents.DocumentOptions {
    const s = settings(this.env);
    return { rootTemplate: s.ROOT_TEMPLATE, maxDepth: s.DOCUMENT_MAX_DEPTH };
  }

  readDocument(id: string, meta: CallMeta): Outcome<{ id: string; content: string }> {
    return this.tx((db, now) => {
      const doc = documents.readDocument(db, id, this.documentOptions, now);
      recordAccess(db, [{ item: itemKey.doc(id), kind: "view" }], now, meta);
      return doc;
    });
  }

  updateDocument(id: string, content: string, meta: CallMeta): Outcome<documents.UpdateResult> {
    return this.tx((db, now) => {
      const result = documents.updateDocument(db, id, content, this.documentOptions, now);
      const written = [id, ...result.created].map((d) => ({ item: itemKey.doc(d), kind: "write" as const }));
      recordAccess(db, written, now, meta);
      return result;
    });
  }

  // The tree lists every document without showing any, so it is not an access to them.
  documentTree(_meta: CallMeta): Outcome<{ root: documents.TreeNode; count: number }> {
    return this.tx((db, now) => documents.documentTree(db, this.documentOptions, now));
  }

  searchDocuments(query: string, limit: number, meta: CallMeta): Outcome<DocumentHit[]> {
    return this.tx((db, now) => {
      const hits = documents.searchDocuments(db, query, limit, this.documentOptions, now);
      recordAccess(db, hits.map((h) => ({ item: itemKey.doc(h.id), kind: "search" as const })), now, meta);
      return hits;
    });
  }
}
