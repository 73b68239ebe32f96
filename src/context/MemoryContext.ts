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
 * ## Accesses and the alarm
 * Calls that view, open or write items report them to the access hook
 * (./access.ts) in the same transaction; retrievals come back with the
 * items related to them. The alarm keeps the co-visitation index bounded
 * (covisitMaintenance drops idle sessions).
 */
import { DurableObject } from "cloudflare:workers";
import { capture, type Outcome } from "../errors";
import * as graph from "../graph/store";
import { exportPage, readGraph, type ReadGraphOptions } from "../graph/read";
import { importItems, type ImportItem, type ImportReport } from "../graph/import";
import type { Entity, GraphPage, KnowledgeGraph, ObservationAdd, ObservationDelete, Relation } from "../graph/types";
import { searchGraph, type SearchOptions } from "../search";
import * as files from "../files/commands";
import { covisitMaintenance } from "../covisit";
import { settings, type Settings } from "../settings";
import { itemKey, recordRemoval, reportEffects, type AccessOptions, type ItemEffects, type RelatedItem } from "./access";
import { migrate } from "./migrations";
import { Db } from "./sql";

/** Who is calling and from where; recorded with changes by later features. */
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
      this.alarmAt = await ctx.storage.getAlarm();
    });
  }

  /** Runs `fn` as one transaction; domain failures roll back and return as values. */
  private tx<T>(fn: (db: Db, now: number) => T): Outcome<T> {
    return capture(() => this.ctx.storage.transactionSync(() => fn(this.db, this.now())));
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

  /** Drops idle co-visitation sessions and prunes weak associations, then sets the next alarm. */
  override alarm(): void {
    this.alarmAt = null;
    let config: Settings;
    try {
      config = this.config();
    } catch (error) {
      // The Worker refuses requests with bad settings too; the next access sets the alarm again.
      console.error(JSON.stringify({ event: "covisit_maintenance_skipped", error: String(error) }));
      return;
    }
    const now = this.now();
    const next = this.ctx.storage.transactionSync(() => covisitMaintenance(this.db, now, config));
    if (next !== null) this.scheduleAlarm(next);
  }

  /** Runs a file command and reports its effects to the access hook; retrievals come back with related items. */
  private fileCall<T>(meta: CallMeta, fn: (db: Db, now: number) => { value: T; effects: ItemEffects }): Outcome<T & { related: RelatedItem[] }> {
    const out = this.tx((db, now) => {
      const r = fn(db, now);
      return { ...r.value, related: reportEffects(db, r.effects, now, meta, this.accessOptions()) };
    });
    if (out.ok) this.sessionsMayIdle();
    return out;
  }

  createEntities(entities: Entity[], _meta: CallMeta): Outcome<Entity[]> {
    return this.tx((db, now) => graph.createEntities(db, entities, now));
  }

  createRelations(relations: Relation[], _meta: CallMeta): Outcome<Relation[]> {
    return this.tx((db, now) => graph.createRelations(db, relations, now));
  }

  addObservations(
    items: ObservationAdd[],
    _meta: CallMeta,
  ): Outcome<{ entityName: string; addedObservations: string[] }[]> {
    return this.tx((db, now) => graph.addObservations(db, items, now));
  }

  deleteEntities(names: string[], _meta: CallMeta) {
    return this.tx((db) => {
      const report = graph.deleteEntities(db, names);
      recordRemoval(db, report.deleted.map(itemKey.entity));
      return report;
    });
  }

  deleteObservations(deletions: ObservationDelete[], _meta: CallMeta) {
    return this.tx((db, now) => graph.deleteObservations(db, deletions, now));
  }

  deleteRelations(relations: Relation[], _meta: CallMeta) {
    return this.tx((db) => graph.deleteRelations(db, relations));
  }

  readGraph(opts: ReadGraphOptions, _meta: CallMeta): Outcome<GraphPage> {
    return this.tx((db) => readGraph(db, opts));
  }

  searchNodes(query: string, opts: SearchOptions, _meta: CallMeta): Outcome<KnowledgeGraph> {
    return this.tx((db) => searchGraph(db, query, opts));
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
    return this.fileCall(meta, (db) => files.view(db, path, viewRange));
  }

  createFile(path: string, content: string, overwrite: boolean, meta: CallMeta) {
    return this.fileCall(meta, (db, now) => files.create({ db, now }, path, content, overwrite));
  }

  strReplace(path: string, oldStr: string, newStr: string, meta: CallMeta) {
    return this.fileCall(meta, (db, now) => files.strReplace({ db, now }, path, oldStr, newStr));
  }

  insertText(path: string, after: number, text: string, meta: CallMeta) {
    return this.fileCall(meta, (db, now) => files.insert({ db, now }, path, after, text));
  }

  deletePath(path: string, meta: CallMeta) {
    return this.fileCall(meta, (db, now) => files.remove({ db, now }, path));
  }

  renamePath(oldPath: string, newPath: string, meta: CallMeta) {
    return this.fileCall(meta, (db, now) => files.rename({ db, now }, oldPath, newPath));
  }

  stats() {
    return this.tx((db) => graph.graphCounts(db));
  }

  exportPage(cursor: string | undefined, maxLines: number): Outcome<{ lines: string[]; next?: string }> {
    return this.tx((db) => exportPage(db, cursor, maxLines));
  }

  importBatch(items: ImportItem[], _meta: CallMeta): Outcome<ImportReport> {
    return this.tx((db, now) => importItems(db, items, now));
  }
}
