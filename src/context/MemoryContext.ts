/**
 * MemoryContext: one memory context, one SQLite-backed Durable Object, and a
 * thin RPC table grouped by domain. Each method is one call of the runner
 * (./runner.ts), which decides how a call meets the database (one
 * `transactionSync`, admission, the change record, pending search hits, the
 * access hook, upkeep); the domains do the work, and a failure comes back as
 * a value, never as a thrown error. The constructor readies the database
 * (./startup.ts) inside `blockConcurrencyWhile`, so no call ever sees an old
 * schema; the alarm's work lives in ./upkeep.ts.
 */
import { DurableObject } from "cloudflare:workers";
import * as documents from "../documents/commands";
import { describeThrown, errorRef, type Outcome } from "../errors";
import * as files from "../files/commands";
import * as graph from "../graph";
import { readerOf, sinceLastLook } from "../history/since";
import { listen, subscribe, unsubscribe, type SubscriptionTarget } from "../history/subscriptions";
import { addWebhook, listWebhooks, removeWebhook, type WebhookInfo } from "../history/webhooks";
import { exportChanges, listChanges, undo, type ChangeInfo, type HistoryQuery, type UndoRequest, type UndoResult } from "../history";
import { listItems, type ItemKind, type ItemListing, type ItemPosition } from "../items";
import * as priority from "../priority";
import { modelOptions } from "../priority";
import type { SearchOptions, SearchResult } from "../search";
import * as search from "../search/entry";
import { parseQuery } from "../search/query";
import type { RecallResult } from "../search/recall";
import { embeddingStatus, type Embedder, type EmbeddingStatus } from "../search/semantic";
import { LIMITS } from "../limits";
import { settings, type Settings } from "../settings";
import type { CallMeta } from "../storage/meta";
import { Db } from "../storage/sql";
import { importBatch, type ImportBatchResult, type ImportLine } from "./importing";
import { INVERSES } from "./inverses";
import { mergeEntities, type MergeResult } from "./merge";
import { PendingAccesses, realTimers, type Scheduler } from "./pending";
import { applyReadOnly, applyRegistration, type RegistrationPush } from "./registration";
import { preparePitr, type PitrPlan, type PitrTarget } from "./pitr";
import { Runner, type Related } from "./runner";
import { deploymentEmbedder, openDatabase, recreatePurged, useEmbedder } from "./startup";
import { contextCounts, contextStats, entityAccessStats, toolStats, type ContextCounts, type ContextStats, type EntityAccessStats } from "./stats";
import { Upkeep } from "./upkeep";
import { Subscribers } from "./subscribers";
import { WebhookSender, type Send } from "./webhooks";

export type { CallMeta } from "../storage/meta";

export class MemoryContext extends DurableObject<Env> {
  private readonly db: Db;
  /** The object's clock. Tests replace it (through runInDurableObject) instead of sleeping. */
  now: () => number = Date.now;
  /** The timers that write pending search hits (./pending.ts). Tests replace it (like `now`) to advance time by hand. */
  schedule: Scheduler = realTimers;
  /** The deployment's settings. Tests replace it (like `now`) to try other values. */
  config: () => Settings = () => settings(this.env);
  /** How webhooks are sent (./webhooks.ts). Tests replace it (like `now`) with a local receiver. */
  send: Send = (request) => fetch(request);
  private readonly upkeep: Upkeep;
  /** Search hits not yet recorded (./pending.ts): written before any call but a search reads or writes. */
  private readonly pending: PendingAccesses;
  private readonly runner: Runner;
  private readonly webhooks: WebhookSender;
  private readonly subscribers: Subscribers;
  private readonly transaction = <T>(fn: () => T): T => this.ctx.storage.transactionSync(fn);

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = new Db(ctx.storage.sql);
    this.pending = new PendingAccesses(this.db, this.transaction, (fn, ms) => this.schedule(fn, ms));
    this.upkeep = new Upkeep(ctx.storage, this.db, (s, now) => this.evaluate(s, now));
    const { db, transaction, pending, upkeep } = this;
    const now = () => this.now();
    const config = () => this.config();
    this.webhooks = new WebhookSender({ db, transaction, now, config, send: (r) => this.send(r), wakeAt: (at) => upkeep.schedule(at) });
    this.subscribers = new Subscribers({ state: ctx, db, transaction, now });
    const committed = () => {
      this.subscribers.notify();
      void this.deliverWebhooks();
    };
    this.runner = new Runner({ db, transaction, now, config, pending, upkeep, inverses: INVERSES, committed });
    void ctx.blockConcurrencyWhile(async () => {
      openDatabase(this.db, this.transaction);
      this.subscribers.start();
      await this.upkeep.load();
      this.useEmbedder(deploymentEmbedder(this.env.AI, () => this.config()));
    });
  }

  // ---- Lifecycle: the embedder, the alarm, the purge, point-in-time recovery
  /** The embedder this context uses (null: lexical mode). Tests call it through runInDurableObject with one over a fake binding. */
  useEmbedder(embedder: Embedder | null): void {
    useEmbedder(this.db, this.transaction, this.upkeep, embedder, () => this.now());
  }
  /** Upkeep: trims history, drops idle co-visitation sessions and weak associations, embeds queued items (./upkeep.ts). */
  override async alarm(): Promise<void> {
    this.pending.flush();
    this.upkeep.run(this.config, this.now());
    await this.upkeep.embed(() => this.now());
    // The evaluation may have recorded a change, and retries come due here.
    this.subscribers.notify();
    await this.deliverWebhooks();
  }
  /** The alarm's priority evaluation: one transaction, recorded as "system" / "memory_evaluation" when it prunes. */
  private evaluate(s: Settings, now: number): { next: number | null; recorded: boolean } {
    const opts = priority.evaluationOptions(s);
    const { value: next, recorded } = this.runner.recorded(priority.EVALUATION_META, now, opts.model, (w) => priority.evaluateIfDue(w, opts));
    return { next, recorded };
  }
  /**
   * Wipes everything this context holds (the administrator's purge, after the
   * Registry stopped routing calls here) and re-creates the empty schema,
   * marked purged: the object refuses every call until a registration is
   * pushed (./registration.ts). No other call runs in between.
   */
  async purge(name: string): Promise<void> {
    await this.ctx.blockConcurrencyWhile(async () => {
      this.pending.drop();
      await this.ctx.storage.deleteAll();
      recreatePurged(this.db, this.transaction, name);
      this.subscribers.start();
      await this.upkeep.load();
      this.useEmbedder(this.upkeep.embedder);
    });
  }
  /** Point-in-time recovery, step one: the next start restores the whole database to `target` (./pitr.ts). */
  preparePitr(target: PitrTarget): Promise<PitrPlan> {
    // The bookmark (and the undo bookmark) must hold every earlier search's access statistics.
    this.pending.flush();
    return preparePitr(this.ctx.storage, target);
  }
  /** Point-in-time recovery, step two: resets the object so it starts again from the bookmark. The call itself fails. */
  restart(): void {
    this.ctx.abort("restoring to a point in time");
  }

  // ---- Registration: facts the Registry and the contexts API push (./registration.ts)
  /** The capacity the contexts API set (null: none); the first evaluation is due MEMORY_EVALUATION_MINUTES from now, none without a capacity. */
  setCapacity(limits: priority.CapacityLimits | null): Outcome<{ capacity: priority.CapacityLimits | null; nextEvaluation: number | null }> {
    const out = this.runner.run(undefined, "own", ({ db, now }) => ({ value: priority.setCapacity(db, limits, now, this.config()) }));
    if (out.ok && out.value.nextEvaluation !== null) this.upkeep.schedule(out.value.nextEvaluation);
    return out;
  }
  /** The Registry's read-only flag, pushed by the contexts API: a read-only context is never pruned. */
  setReadOnly(readOnly: boolean): Outcome<{ readOnly: boolean }> {
    return this.runner.run(undefined, "own", ({ db }) => ({ value: applyReadOnly(db, readOnly) }));
  }
  /** A registration fact pushed by the Registry: what this object admits from now on. */
  setRegistration(push: RegistrationPush): Outcome<RegistrationPush> {
    return this.runner.run(undefined, "own", ({ db }) => ({ value: applyRegistration(db, push) }));
  }

  // ---- Stats: numbers for people and for memory_stats (./stats.ts); reading them is not an access, and a purged object refuses them
  memoryStats(meta: CallMeta): Outcome<priority.MemoryStats & { search: EmbeddingStatus }> {
    return this.runner.run(meta, "read", ({ db, now }) => ({ value: toolStats(db, now, this.config()) }));
  }
  searchStatus(): Outcome<EmbeddingStatus> {
    return this.runner.run(undefined, "read", ({ db, now }) => ({ value: embeddingStatus(db, now) }));
  }
  /** Everything the contexts API's stats route shows of the object, `names`' access statistics included, in one call. */
  contextStats(names: string[]): Outcome<ContextStats> {
    return this.runner.run(undefined, "read", ({ db, now }) => ({ value: contextStats(db, names, now, this.config()) }));
  }
  /** Counts across every domain (the memory-guide prompt's). */
  overview(): Outcome<ContextCounts> {
    return this.runner.run(undefined, "read", ({ db }) => ({ value: contextCounts(db) }));
  }
  /** Entities' access statistics as stored. */
  entityStats(names: string[]): Outcome<EntityAccessStats[]> {
    return this.runner.run(undefined, "read", ({ db, now }) => ({ value: entityAccessStats(db, names, now, modelOptions(this.config())) }));
  }
  /** The graph's counts (tests check a purge's wipe with them). */
  stats(): Outcome<graph.GraphCounts> {
    return this.runner.run(undefined, "own", ({ db }) => ({ value: graph.graphCounts(db) }));
  }

  // ---- Items and priority (src/items, src/priority): listing, brief, completion, the mark, the archive; none is an access
  /** resources/list: one page of the items of `kinds`, after `after`. */
  listItems(kinds: ItemKind[], after: ItemPosition | undefined, limit: number, meta: CallMeta): Outcome<ItemListing> {
    return this.runner.run(meta, "read", ({ db }) => ({ value: listItems(db, kinds, after, limit) }));
  }
  /** memory://brief: what others changed since the caller's last look (src/history/since.ts), then marked, most used and most recent items, within a token budget. */
  brief(opts: priority.BriefOptions, meta: CallMeta): Outcome<priority.Brief> {
    const max = this.config().BRIEF_CHANGES_MAX;
    return this.runner.run(meta, "read", ({ db }) => {
      const since = sinceLastLook(db, readerOf(meta), max);
      return { value: priority.brief(db, since === undefined ? opts : { ...opts, header: `${since}\n\n${opts.header}` }) };
    });
  }
  /** completion/complete: names of one kind by prefix, best priority first. */
  completeItems(kind: ItemKind, prefix: string, meta: CallMeta): Outcome<priority.Completion> {
    return this.runner.run(meta, "read", ({ db, now }) => ({ value: priority.completeItems(db, kind, prefix, now, modelOptions(this.config())) }));
  }
  /** mark_important: one recorded change; a bad or missing key rejects the whole call. */
  markImportant(items: string[], important: boolean, meta: CallMeta): Outcome<priority.MarkResult> {
    const { rootTemplate } = documents.options(this.config());
    return this.runner.run(meta, "write", (w) => ({ value: priority.markImportant(w, items, important, rootTemplate) }));
  }
  /** What the archive holds, newest first. */
  listArchive(opts: { before?: number; limit: number; kind?: string }, meta: CallMeta): Outcome<priority.ArchiveListing> {
    return this.runner.run(meta, "read", ({ db }) => ({ value: priority.listArchive(db, opts) }));
  }
  /** restore: brings archived items back as one recorded change. */
  restoreArchived(selection: priority.RestoreSelection, meta: CallMeta): Outcome<priority.RestoreReport & { change?: number }> {
    return this.runner.run(meta, "write", (w) => ({ value: priority.restoreArchived(w, selection) }));
  }

  // ---- Graph (src/graph): entities, observations, relations, merges
  createEntities(entities: graph.EntityInput[], meta: CallMeta): Outcome<graph.EntitiesCreated> {
    return this.runner.run(meta, "write", (w) => ({ value: graph.createEntitiesNamingVariants(w, entities) }));
  }
  createRelations(relations: graph.Relation[], meta: CallMeta): Outcome<graph.Relation[]> {
    return this.runner.run(meta, "write", (w) => ({ value: graph.createRelations(w, relations) }));
  }
  addObservations(items: graph.ObservationAdd[], meta: CallMeta): Outcome<{ entityName: string; addedObservations: string[] }[]> {
    return this.runner.run(meta, "write", (w) => ({ value: graph.addObservations(w, items) }));
  }
  deleteEntities(names: string[], meta: CallMeta): Outcome<graph.EntitiesDeleted> {
    return this.runner.run(meta, "write", (w) => ({ value: graph.deleteEntities(w, names) }));
  }
  deleteObservations(deletions: graph.ObservationDelete[], meta: CallMeta): Outcome<graph.DeleteReport> {
    return this.runner.run(meta, "write", (w) => ({ value: graph.deleteObservations(w, deletions) }));
  }
  /** update_observation: supersedes one observation with a newer one, as one change. */
  updateObservation(update: graph.ObservationUpdate, meta: CallMeta): Outcome<graph.ObservationUpdate & { supersededAt: string }> {
    return this.runner.run(meta, "write", (w) => ({ value: graph.updateObservation(w, update) }));
  }
  deleteRelations(relations: graph.Relation[], meta: CallMeta): Outcome<graph.DeleteReport> {
    return this.runner.run(meta, "write", (w) => ({ value: graph.deleteRelations(w, relations) }));
  }
  /** find_duplicates: candidate pairs scored from names, types, observations and neighbours. */
  findDuplicates(opts: graph.DuplicateOptions, meta: CallMeta): Outcome<graph.DuplicateReport> {
    return this.runner.run(meta, "read", ({ db }) => ({ value: graph.findDuplicates(db, opts) }));
  }
  /** merge_entities: one recorded change; `change` is its number, for undo (./merge.ts). */
  mergeEntities(target: string, sources: string[], meta: CallMeta): Outcome<MergeResult & { change: number }> {
    return this.runner.run(meta, "write", (w) => ({ value: mergeEntities(w, target, sources) }));
  }
  /** The web page's Entities tab: one keyset page in a chosen order, with the types in use on the first page; not an access. */
  browseEntities(opts: graph.BrowseOptions): Outcome<graph.EntityPage & { types?: { type: string; count: number }[] }> {
    return this.runner.run(undefined, "read", ({ db }) => {
      const page = graph.browseEntities(db, opts);
      return { value: opts.cursor === undefined ? { ...page, types: graph.entityTypes(db) } : page };
    });
  }
  /** The web page's graph: the best-ranked entities, or one's neighbourhood, with the relations among them; not an access. */
  graphView(opts: graph.GraphViewOptions): Outcome<graph.GraphView> {
    return this.runner.run(undefined, "read", ({ db }) => ({ value: graph.graphView(db, opts) }));
  }
  /** A listing without hits: it runs as a search, so it neither waits for earlier searches' hits nor records any (./runner.ts). */
  readGraph(opts: graph.ReadGraphOptions, meta: CallMeta, asOf?: string | number): Outcome<graph.GraphPage> {
    return this.runner.run(meta, "search", ({ db, now }) => ({ value: graph.readGraphAsOf(db, opts, asOf, now) }));
  }
  /** open_nodes, by alias in reads of now, or as the entities stood at `asOf` (src/graph/open.ts). */
  openNodes(names: string[], meta: CallMeta, opts: graph.OpenOptions = {}): Outcome<graph.OpenedNodes & Related> {
    return this.runner.run(meta, "read", ({ db, now }) => graph.openNodes(db, names, now, opts));
  }

  // ---- Search (src/search)
  /** search_nodes (src/search/entry.ts): the embedder's call is the only await, before the call's transaction. */
  async searchNodes(query: string, opts: SearchOptions, meta: CallMeta, asOf?: string | number): Promise<Outcome<SearchResult>> {
    const s = this.config();
    const prepared = await search.prepareQuery(this.db, query, s, this.upkeep.embedder, asOf);
    return this.runner.run(meta, "search", (scope) => search.searchNodes(scope, prepared, opts, s));
  }

  /** recall (src/search/entry.ts): the embedder's call is the only await, before the call's transaction. */
  async recall(query: string, opts: { budgetTokens: number; kinds: ItemKind[]; provenance?: boolean }, meta: CallMeta): Promise<Outcome<RecallResult>> {
    const s = this.config();
    const prepared = await search.prepareQuery(this.db, query, s, this.upkeep.embedder);
    return this.runner.run(meta, "search", (scope) => search.recallItems(scope, prepared, opts, s));
  }

  // ---- Files (src/files/commands.ts): each command reports what it did to items
  viewFile(path: string, viewRange: number[] | undefined, meta: CallMeta): Outcome<files.ViewValue & Related> {
    return this.runner.run(meta, "read", ({ db }) => files.view(db, path, viewRange));
  }
  createFile(path: string, content: string, overwrite: boolean, meta: CallMeta): Outcome<files.CreateValue & Related> {
    return this.runner.run(meta, "write", (w) => files.create(w, path, content, overwrite));
  }
  strReplace(path: string, oldStr: string, newStr: string, meta: CallMeta): Outcome<files.StrReplaceValue & Related> {
    return this.runner.run(meta, "write", (w) => files.strReplace(w, path, oldStr, newStr));
  }
  insertText(path: string, after: number, text: string, meta: CallMeta): Outcome<files.InsertValue & Related> {
    return this.runner.run(meta, "write", (w) => files.insert(w, path, after, text));
  }
  deletePath(path: string, meta: CallMeta): Outcome<files.RemoveValue & Related> {
    return this.runner.run(meta, "write", (w) => files.remove(w, path));
  }
  renamePath(oldPath: string, newPath: string, meta: CallMeta): Outcome<files.RenameValue & Related> {
    return this.runner.run(meta, "write", (w) => files.rename(w, oldPath, newPath));
  }

  // ---- Documents (src/documents/commands.ts): each call reports what it did to items
  readDocument(id: string, meta: CallMeta): Outcome<{ id: string; content: string } & Related> {
    return this.runner.run(meta, "read", ({ db }) => documents.read(db, id, documents.options(this.config())));
  }
  /** One recorded change, whatever the update created and removed. */
  updateDocument(id: string, content: string, meta: CallMeta): Outcome<documents.UpdateResult & Related> {
    return this.runner.run(meta, "write", (w) => documents.update(w, id, content, documents.options(this.config())));
  }
  documentTree(meta: CallMeta): Outcome<{ root: documents.TreeNode; count: number }> {
    return this.runner.run(meta, "read", ({ db }) => documents.tree(db, documents.options(this.config())));
  }
  /** The query is parsed here, above the documents domain, with the search tokenizer every search surface shares. */
  searchDocuments(query: string, limit: number, meta: CallMeta): Outcome<documents.DocumentSearch> {
    return this.runner.run(meta, "search", (scope) => search.searchDocuments(scope, parseQuery(query), limit, this.config()));
  }

  // ---- Export and import: the graph's pages, then the archive's, then history's (refused once purged); import lines in batches (./importing.ts)
  exportPage(cursor: string | undefined, maxLines: number): Outcome<{ lines: string[]; next?: string }> {
    return this.runner.run(undefined, "read", ({ db }) => ({ value: graph.exportPage(db, cursor, maxLines) }));
  }
  exportArchive(after: number, maxLines: number, maxChars: number): Outcome<{ lines: string[]; next?: number }> {
    return this.runner.run(undefined, "read", ({ db }) => ({ value: priority.exportArchivePage(db, after, maxLines, maxChars) }));
  }
  /** History lines (`type: "change"`), oldest first, after seq `after`. */
  exportHistory(after: number, maxChars: number): Outcome<{ lines: string[]; next?: number }> {
    return this.runner.run(undefined, "read", ({ db }) => ({ value: exportChanges(db, after, maxChars) }));
  }
  /** One batch of import lines: every good line applied, a line that fails rejected with its number. */
  importBatch(items: ImportLine[], meta: CallMeta): ImportBatchResult {
    return importBatch(this.runner, items, meta);
  }

  // ---- Webhooks (src/history/webhooks.ts, ./webhooks.ts): the admin API's; delivery follows every committed change
  addWebhook(context: string, url: string, secret: string): Outcome<{ id: string }> {
    const id = `wh_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    return this.runner.run(undefined, "own", ({ db, now }) => {
      addWebhook(db, { id, context, url, secret }, now);
      return { value: { id } };
    });
  }
  listWebhooks(): Outcome<WebhookInfo[]> {
    return this.runner.run(undefined, "read", ({ db }) => ({ value: listWebhooks(db) }));
  }
  removeWebhook(id: string): Outcome<{ removed: boolean }> {
    return this.runner.run(undefined, "own", ({ db }) => ({ value: { removed: removeWebhook(db, id) } }));
  }
  /** Sends what is due now and resolves when it is sent or waiting for a retry; never throws (a fault is logged). */
  async deliverWebhooks(): Promise<void> {
    try {
      await this.webhooks.pump();
    } catch (error) {
      console.error(JSON.stringify({ event: "webhook_pump_failed", ref: errorRef(), ...describeThrown(error) }));
    }
  }

  // ---- Live subscriptions (src/history/subscriptions.ts, ./subscribers.ts): a session's URIs, and its stream as a WebSocket
  /** The Worker's WebSocket upgrade for a session's GET stream (the only request this object answers over fetch). */
  override fetch(request: Request): Response {
    return this.subscribers.accept(request);
  }
  /** resources/subscribe: an item must exist; `listener` is the caller's id and the session's; a session and a caller hold capped numbers. */
  subscribe(listener: string, uri: string, target: SubscriptionTarget, meta: CallMeta): Outcome<{ uri: string }> {
    const caps = { perSession: LIMITS.subscriptionsPerSession, perCaller: LIMITS.subscriptionsPerCaller };
    return this.runner.run(meta, "read", ({ db, now }) => {
      subscribe(db, listener, readerOf(meta), uri, target, now, caps);
      return { value: { uri } };
    });
  }
  /** resources/unsubscribe: whether the session was subscribed. */
  unsubscribe(listener: string, uri: string, meta: CallMeta): Outcome<{ removed: boolean }> {
    return this.runner.run(meta, "read", ({ db }) => ({ value: { removed: unsubscribe(db, listener, uri) } }));
  }
  /**
   * subscriptions/listen: the filter's URIs for the stream `listener` opened
   * (`fetch`), all or none, each item existing now (`missing`: the first
   * that does not, and why), within the caller's cap. A stream that has closed already gets nothing stored.
   */
  listen(listener: string, entries: { uri: string; target: SubscriptionTarget }[], meta: CallMeta): Outcome<{ missing?: { uri: string; message: string } }> {
    const max = LIMITS.subscriptionsPerCaller;
    return this.runner.run(meta, "read", ({ db, now }) => {
      if (this.ctx.getWebSockets(listener).length === 0) return { value: {} };
      const missing = listen(db, listener, readerOf(meta), entries, now, max);
      return { value: missing ? { missing } : {} };
    });
  }
  /** The Worker closed a stream (its client left, or its caller was revoked: `code`): close this end too, and drop what it held. */
  override webSocketClose(ws: WebSocket, code: number): void {
    this.subscribers.closed(ws, code);
    try {
      ws.close(1000, "stream closed");
    } catch {
      // Already closed.
    }
  }

  // ---- History (src/history)
  /** memory_history: changes newest first, filtered. */
  history(query: HistoryQuery, meta: CallMeta): Outcome<{ changes: ChangeInfo[]; more: boolean }> {
    return this.runner.run(meta, "read", ({ db }) => ({ value: listChanges(db, query) }));
  }
  /** undo: reverts changes as one new change, or fails naming the conflicting ones. */
  undo(request: UndoRequest, meta: CallMeta): Outcome<UndoResult> {
    return this.runner.run(meta, "write", (w) => ({ value: undo(w, INVERSES, request, meta) }));
  }
}
