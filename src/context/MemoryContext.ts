/**
 * MemoryContext: one memory context, one SQLite-backed Durable Object.
 * A thin RPC surface: each method is one call of the runner (./runner.ts),
 * which decides how a call meets the database (transaction, change record,
 * pending search hits, the access hook, upkeep); the domains do the work.
 *
 * ## Lifecycle
 * The constructor applies pending migrations inside `blockConcurrencyWhile`,
 * so no call ever sees an old schema.
 *
 * ## Concurrency and atomicity
 * Every RPC method is synchronous inside one `transactionSync`: the object
 * serialises calls, and a call's writes commit together or not at all. A
 * domain failure (missing entity, bad cursor) rolls the transaction back and
 * comes back as a value, never as a thrown error; so does an internal error,
 * as a reference to the line the runner logged (./runner.ts).
 *
 * ## History
 * Each domain's inverse kinds are joined in INVERSES below; the runner's
 * writes record changes with them (src/history).
 *
 * ## Helpers
 * Upkeep (the alarm: history retention, co-visitation cleanup, the
 * priority evaluation of src/priority/evaluate.ts) lives in ./upkeep.ts and
 * point-in-time recovery in ./pitr.ts; the RPC methods here delegate to
 * them.
 */
import { DurableObject } from "cloudflare:workers";
import * as documents from "../documents/store";
import { documentInverses } from "../documents/inverse";
import { ROOT_ID } from "../documents/links";
import { ensureRoot } from "../documents/rows";
import type { DocumentHit } from "../documents/search";
import { DomainError, type Outcome } from "../errors";
import * as files from "../files/commands";
import { fileInverses } from "../files/inverse";
import { graphInverses } from "../graph/inverse";
import { exportPage, readGraph, type ReadGraphOptions } from "../graph/read";
import { openNodesAt, parseAsOf, readGraphAt } from "../graph/asof";
import { idsByName } from "../graph/rows";
import * as graph from "../graph/store";
import { findDuplicates, type DuplicateOptions, type DuplicateReport } from "../graph/duplicates";
import { mergeEntities, mergeInverses, openByAlias, type MergeResult } from "./merge";
import type { Entity, EntityInput, GraphPage, ObservationAdd, ObservationDelete, Relation } from "../graph/types";
import { exportChanges, inverseRegistry, listChanges, undo, type ChangeInfo, type HistoryQuery, type UndoRequest, type UndoResult } from "../history";
import { itemKey, listItems, type AccessKind, type ItemEffects, type ItemKind, type ItemListing, type ItemPosition } from "../items";
import { archiveInverses } from "../priority/archive";
import { brief, type Brief, type BriefOptions } from "../priority/brief";
import { completeItems, type Completion } from "../priority/complete";
import { checkLimits, writeCapacity, type CapacityLimits } from "../priority/capacity";
import { EVALUATION_META, evaluateIfDue, evaluationOptions, planEvaluation } from "../priority/evaluate";
import { markImportant, priorityInverses, type MarkResult } from "../priority/mark";
import { listArchive, restoreArchived, type ArchiveListing, type RestoreReport, type RestoreSelection } from "../priority/restore";
import { writeReadOnly } from "../storage/registration";
import { memoryStats, priorityOverview, type MemoryStats } from "../priority/stats";
import { exportArchivePage } from "../priority/transfer";
import { modelOptions } from "../priority/weights";
import { searchGraph, searchParams, type SearchOptions, type SearchResult } from "../search";
import { searchGraphAt } from "../search/asof";
import type { WeightedTerm } from "../search/expand";
import type { RankedId } from "../search/fuse";
import { expansionFor, SEMANTIC_CANDIDATES, searchMode, semanticEntities } from "../search/meaning";
import { recall, type RecallResult } from "../search/recall";
import { flushSearchIndex } from "../search/indexer";
import { withAliasHits } from "../search/aliases";
import { applySegmentPolicy } from "../search/segments";
import {
  configureEmbedding,
  embeddingQueued,
  embeddingStatus,
  indexBehind,
  WorkersAiEmbedder,
  nearestToQuery,
  type Embedder,
  type EmbeddingStatus,
  type Neighbour,
} from "../search/semantic";
import { settings, type Settings } from "../settings";
import type { CallMeta } from "../storage/meta";
import { migrate } from "../storage/migrations";
import { Db } from "../storage/sql";
import type { RelatedItem } from "./access";
import { PendingAccesses, realTimers, type Scheduler } from "./pending";
import { importBatch, type ImportBatchResult, type ImportLine } from "./importing";
import { preparePitr, type PitrPlan, type PitrTarget } from "./pitr";
import { applyRegistration, type RegistrationPush } from "./registration";
import { Runner } from "./runner";
import { contextCounts, entityAccessStats, type ContextCounts, type EntityAccessStats } from "./stats";
import { Upkeep } from "./upkeep";

/** Every domain's undo appliers; a new domain adds its own here. */
export const INVERSES = inverseRegistry(graphInverses, fileInverses, documentInverses, archiveInverses, priorityInverses, mergeInverses);

/** Which of `names` are entities now: an as-of read may return one deleted since, which must not regain statistics or associations. */
const existing = (db: Db, names: readonly string[]): string[] => {
  const ids = idsByName(db, names);
  return names.filter((n) => ids.has(n));
};

/** Effects of a call that accessed `items` in one way and removed or moved none. */
const accessed = (items: readonly string[], kind: AccessKind): ItemEffects => ({ accesses: items.map((item) => ({ item, kind })), removed: [], moved: [] });

export type { CallMeta } from "../storage/meta";

export class MemoryContext extends DurableObject<Env> {
  private readonly db: Db;
  /** The object's clock. Tests replace it (through runInDurableObject) instead of sleeping. */
  now: () => number = Date.now;
  /** The timers that write pending search hits (./pending.ts). Tests replace it (like `now`) to advance time by hand. */
  schedule: Scheduler = realTimers;
  /** The deployment's settings. Tests replace it (like `now`) to try other values. */
  config: () => Settings = () => settings(this.env);
  private readonly upkeep: Upkeep;
  /** Search hits not yet recorded (./pending.ts): written before any call but a search reads or writes. */
  private readonly pending: PendingAccesses;
  private readonly runner: Runner;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = new Db(ctx.storage.sql);
    this.pending = new PendingAccesses(
      this.db,
      (fn) => ctx.storage.transactionSync(fn),
      (fn, ms) => this.schedule(fn, ms),
    );
    this.upkeep = new Upkeep(ctx.storage, this.db, (s, now) => this.evaluate(s, now));
    this.runner = new Runner({
      db: this.db,
      transaction: (fn) => ctx.storage.transactionSync(fn),
      now: () => this.now(),
      config: () => this.config(),
      pending: this.pending,
      upkeep: this.upkeep,
      inverses: INVERSES,
    });
    void ctx.blockConcurrencyWhile(async () => {
      migrate(this.db, (fn) => ctx.storage.transactionSync(fn));
      // Index and count whatever a migration left to do (search catches up with existing rows);
      // writes leave FTS5 merging to the alarm (src/search/segments.ts).
      ctx.storage.transactionSync(() => {
        applySegmentPolicy(this.db);
        flushSearchIndex(this.db);
      });
      await this.upkeep.load();
      this.useEmbedder(this.deploymentEmbedder());
    });
  }

  /** Workers AI over the `AI` binding, when the deployment has one (and valid settings): the context searches by meaning too. */
  private deploymentEmbedder(): Embedder | null {
    if (!this.env.AI) return null;
    try {
      return new WorkersAiEmbedder(this.env.AI, this.config().EMBEDDING_MODEL);
    } catch (error) {
      // Bad settings: every call is refused with the same message, so no model is set (nothing is dropped either way).
      console.error(JSON.stringify({ event: "embedder_unavailable", error: String(error) }));
      return null;
    }
  }

  /**
   * The embedder this context uses (null: lexical mode). The constructor sets the
   * deployment's; tests call it through runInDurableObject with one over a fake binding.
   * A change of model drops the other model's vectors and queues every item (src/search/semantic/queue.ts).
   */
  useEmbedder(embedder: Embedder | null): void {
    this.ctx.storage.transactionSync(() => configureEmbedding(this.db, embedder?.model ?? null, this.now()));
    this.upkeep.embedder = embedder;
    // Items to embed, or an index to build (an existing context's vectors, once): the alarm does it in steps.
    if (embedder && (embeddingQueued(this.db) || indexBehind(this.db, embedder.model))) this.upkeep.schedule(this.now());
  }

  /** Upkeep: trims history, drops idle co-visitation sessions and weak associations, embeds queued items (./upkeep.ts). */
  override async alarm(): Promise<void> {
    this.pending.flush();
    this.upkeep.run(this.config, this.now());
    await this.upkeep.embed(() => this.now());
  }

  /** The alarm's priority evaluation: one transaction, recorded as "system" / "memory_evaluation" when it prunes. */
  private evaluate(s: Settings, now: number): { next: number | null; recorded: boolean } {
    const opts = evaluationOptions(s);
    const { value: next, recorded } = this.runner.recorded(EVALUATION_META, now, opts.model, (w) => evaluateIfDue(w, opts));
    return { next, recorded };
  }

  /**
   * The capacity the contexts API set (null: none). The first evaluation is
   * due MEMORY_EVALUATION_MINUTES from now; with no capacity, none is.
   */
  setCapacity(limits: CapacityLimits | null): Outcome<{ capacity: CapacityLimits | null; nextEvaluation: number | null }> {
    const interval = evaluationOptions(this.config()).intervalMs;
    const out = this.runner.run(undefined, "read", ({ db, now }) => {
      const checked = limits === null ? null : checkLimits(limits);
      if (checked && !checked.ok) throw new DomainError("Invalid", checked.message);
      writeCapacity(db, checked ? checked.limits : null);
      return {
        value: { capacity: checked && Object.keys(checked.limits).length > 0 ? checked.limits : null, nextEvaluation: planEvaluation(db, now + interval) },
      };
    });
    if (out.ok && out.value.nextEvaluation !== null) this.upkeep.schedule(out.value.nextEvaluation);
    return out;
  }

  /** The Registry's read-only flag, pushed by the contexts API: a read-only context is never pruned. */
  setReadOnly(readOnly: boolean): Outcome<{ readOnly: boolean }> {
    return this.runner.run(undefined, "read", ({ db }) => {
      writeReadOnly(db, readOnly);
      return { value: { readOnly } };
    });
  }

  /** A registration fact pushed by the Registry (./registration.ts): what this object admits from now on. */
  setRegistration(push: RegistrationPush): Outcome<RegistrationPush> {
    return this.runner.run(undefined, "read", ({ db }) => {
      applyRegistration(db, push);
      return { value: push };
    });
  }

  /** memory_stats: counts by tier and category, capacity use, the archive, the last evaluation, the top items, the search mode. */
  memoryStats(meta: CallMeta): Outcome<MemoryStats & { search: EmbeddingStatus }> {
    return this.runner.run(meta, "read", ({ db, now }) => ({
      value: { ...memoryStats(db, now, evaluationOptions(this.config())), search: embeddingStatus(db, now) },
    }));
  }

  /** The search mode and embedding lag alone (the web page's stats). */
  searchStatus(): Outcome<EmbeddingStatus> {
    return this.runner.run(undefined, "read", ({ db, now }) => ({ value: embeddingStatus(db, now) }));
  }

  /** memory://brief: marked, most used and most recent items within a token budget (src/priority/brief.ts). Not an access. */
  brief(opts: BriefOptions, meta: CallMeta): Outcome<Brief> {
    return this.runner.run(meta, "read", ({ db }) => ({ value: brief(db, opts) }));
  }

  /** completion/complete: names of one kind by prefix, best priority first (src/priority/complete.ts). Not an access. */
  completeItems(kind: ItemKind, prefix: string, meta: CallMeta): Outcome<Completion> {
    const model = modelOptions(this.config());
    return this.runner.run(meta, "read", ({ db, now }) => ({ value: completeItems(db, kind, prefix, now, model) }));
  }

  /** resources/list: one page of the items of `kinds`, after `after` (src/items/list.ts). Not an access. */
  listItems(kinds: ItemKind[], after: ItemPosition | undefined, limit: number, meta: CallMeta): Outcome<ItemListing> {
    return this.runner.run(meta, "read", ({ db }) => ({ value: listItems(db, kinds, after, limit) }));
  }

  /** Capacity, use, archive and last evaluation, without the scans (the contexts API's stats). */
  priorityOverview() {
    return this.runner.run(undefined, "read", ({ db }) => ({ value: priorityOverview(db) }));
  }

  /** restore: brings archived items back as one recorded change. */
  restoreArchived(selection: RestoreSelection, meta: CallMeta): Outcome<RestoreReport & { change?: number }> {
    return this.runner.run(meta, "write", (w) => {
      const report = restoreArchived(w, selection);
      // Something was written exactly when an item or a kept relation came back (deferrals go with a restored entity).
      return { value: report.restored.length > 0 || report.relationsRestored.length > 0 ? { ...report, change: w.rec.seq() } : report };
    });
  }

  /** What the archive holds, newest first. */
  listArchive(opts: { before?: number; limit: number; kind?: string }, meta: CallMeta): Outcome<ArchiveListing> {
    return this.runner.run(meta, "read", ({ db }) => ({ value: listArchive(db, opts) }));
  }

  createEntities(entities: EntityInput[], meta: CallMeta): Outcome<Entity[]> {
    return this.runner.run(meta, "write", (w) => ({ value: graph.createEntities(w, entities) }));
  }

  createRelations(relations: Relation[], meta: CallMeta): Outcome<Relation[]> {
    return this.runner.run(meta, "write", (w) => ({ value: graph.createRelations(w, relations) }));
  }

  addObservations(items: ObservationAdd[], meta: CallMeta): Outcome<{ entityName: string; addedObservations: string[] }[]> {
    return this.runner.run(meta, "write", (w) => ({ value: graph.addObservations(w, items) }));
  }

  deleteEntities(names: string[], meta: CallMeta) {
    return this.runner.run(meta, "write", (w) => {
      const report = graph.deleteEntities(w, names);
      w.items.removed(report.deleted.map(itemKey.entity));
      return { value: report };
    });
  }

  deleteObservations(deletions: ObservationDelete[], meta: CallMeta) {
    return this.runner.run(meta, "write", (w) => ({ value: graph.deleteObservations(w, deletions) }));
  }

  /** update_observation: supersedes one observation with a newer one, as one change (src/graph/store.ts). */
  updateObservation(update: graph.ObservationUpdate, meta: CallMeta) {
    return this.runner.run(meta, "write", (w) => ({ value: graph.updateObservation(w, update) }));
  }

  deleteRelations(relations: Relation[], meta: CallMeta) {
    return this.runner.run(meta, "write", (w) => ({ value: graph.deleteRelations(w, relations) }));
  }

  /** mark_important: one recorded change; a bad or missing key rejects the whole call (src/priority/mark.ts). */
  markImportant(items: string[], important: boolean, meta: CallMeta): Outcome<MarkResult> {
    const { rootTemplate } = this.documentOptions;
    return this.runner.run(meta, "write", (w) => {
      // The root document exists from the start, even before its lazy creation (src/documents/store.ts).
      if (items.includes(itemKey.doc(ROOT_ID))) ensureRoot(w.db, rootTemplate, w.now);
      return { value: markImportant(w, items, important, w.model) };
    });
  }

  /** find_duplicates: candidate pairs scored from names, types, observations and neighbours (src/graph/duplicates.ts). */
  findDuplicates(opts: DuplicateOptions, meta: CallMeta): Outcome<DuplicateReport> {
    return this.runner.run(meta, "read", ({ db }) => ({ value: findDuplicates(db, opts) }));
  }

  /** merge_entities: one recorded change; `change` is its number, for undo (./merge.ts). */
  mergeEntities(target: string, sources: string[], meta: CallMeta): Outcome<MergeResult & { change: number }> {
    return this.runner.run(meta, "write", (w) => ({ value: mergeEntities(w, target, sources) }));
  }

  /** A listing without hits: it runs as a search, so it neither waits for earlier searches' hits nor records any (./runner.ts). */
  readGraph(opts: ReadGraphOptions, meta: CallMeta, asOf?: string | number): Outcome<GraphPage> {
    return this.runner.run(meta, "search", ({ db, now }) => ({ value: asOf === undefined ? readGraph(db, opts) : readGraphAt(db, opts, parseAsOf(asOf, now)) }));
  }

  /**
   * What the ranking gets beyond the query's words (src/search/meaning.ts): synonyms unless SEARCH_EXPANSION is off,
   * and in hybrid mode the entities nearest in meaning. The model call is the only await, before the call's transaction.
   */
  private async beyondWords(query: string, s: Settings): Promise<{ expansion?: WeightedTerm[]; semantic?: RankedId[]; near?: Neighbour[] }> {
    const expansion = s.SEARCH_EXPANSION ? expansionFor(query) : undefined;
    const embedder = this.upkeep.embedder;
    const near = embedder ? await nearestToQuery(this.db, embedder, query, SEMANTIC_CANDIDATES) : null;
    return near ? { expansion, semantic: semanticEntities(this.db, near), near } : { expansion };
  }

  /** Every entity a search returns counts as a (light) retrieval of it: see src/priority/track.ts. */
  async searchNodes(query: string, opts: SearchOptions, meta: CallMeta, asOf?: string | number): Promise<Outcome<SearchResult>> {
    const s = this.config();
    const params = searchParams(opts, s);
    const model = modelOptions(s);
    // As of a past time, entities are matched on their words then (src/search/asof.ts): no synonyms or vectors.
    const rank = asOf === undefined ? await this.beyondWords(query, s) : {};
    return this.runner.run(meta, "search", ({ db, now }) => {
      // Now, a query naming an entity merged into another finds that entity (src/search/aliases.ts);
      // as of a past time, names are read as they were then.
      const result =
        asOf === undefined
          ? withAliasHits(db, searchGraph(db, query, params, now, model, rank), query)
          : searchGraphAt(db, query, params, now, parseAsOf(asOf, now), model);
      const names = result.entities.map((e) => e.name);
      return {
        value: result,
        effects: accessed((asOf === undefined ? names : existing(db, names)).map(itemKey.entity), "search"),
      };
    });
  }

  /** recall: the best items across kinds within a token budget (src/search/recall.ts); each item returned counts as a search hit. */
  async recall(query: string, opts: { budgetTokens: number; kinds: ItemKind[] }, meta: CallMeta): Promise<Outcome<RecallResult>> {
    const s = this.config();
    const model = modelOptions(s);
    const { expansion, semantic } = await this.beyondWords(query, s);
    return this.runner.run(meta, "search", ({ db, now }) => {
      const result = recall(db, query, { ...opts, now, model, expansion, semantic, mode: searchMode(expansion, semantic) });
      return {
        value: result,
        effects: accessed(
          result.items.map((i) => i.key),
          "search",
        ),
      };
    });
  }

  /**
   * With asOf or includeSuperseded, the entities as they stood then, through src/graph/asof.ts.
   * A name merged into another entity opens that entity (./merge.ts) in reads of now; as of a past time, names are read as they were then.
   */
  openNodes(names: string[], meta: CallMeta, opts: { asOf?: string | number; includeSuperseded?: boolean } = {}) {
    return this.runner.run(meta, "read", ({ db, now }) => {
      const past = opts.asOf !== undefined || opts.includeSuperseded === true;
      const { names: resolved, aliases } = opts.asOf === undefined ? openByAlias(db, names) : { names, aliases: {} };
      const at = opts.asOf === undefined ? now : parseAsOf(opts.asOf, now);
      const read = past ? openNodesAt(db, resolved, at, opts.includeSuperseded === true, graph.OPEN_NODES_MAX_RELATIONS) : graph.openNodes(db, resolved);
      const found = { ...read, aliases };
      const opened = found.entities.map((e) => e.name);
      return {
        value: found,
        effects: accessed((past ? existing(db, opened) : opened).map(itemKey.entity), "open"),
      };
    });
  }

  viewFile(path: string, viewRange: number[] | undefined, meta: CallMeta) {
    return this.runner.run(meta, "read", ({ db }) => files.view(db, path, viewRange));
  }

  createFile(path: string, content: string, overwrite: boolean, meta: CallMeta) {
    return this.runner.run(meta, "write", (w) => files.create(w, path, content, overwrite));
  }

  strReplace(path: string, oldStr: string, newStr: string, meta: CallMeta) {
    return this.runner.run(meta, "write", (w) => files.strReplace(w, path, oldStr, newStr));
  }

  insertText(path: string, after: number, text: string, meta: CallMeta) {
    return this.runner.run(meta, "write", (w) => files.insert(w, path, after, text));
  }

  deletePath(path: string, meta: CallMeta) {
    return this.runner.run(meta, "write", (w) => files.remove(w, path));
  }

  renamePath(oldPath: string, newPath: string, meta: CallMeta) {
    return this.runner.run(meta, "write", (w) => files.rename(w, oldPath, newPath));
  }

  /** The graph's counts. */
  stats() {
    return this.runner.run(undefined, "read", ({ db }) => ({ value: graph.graphCounts(db) }));
  }

  /** Counts across every domain, for people (the web page's overview). Reading them is not an access. */
  overview(): Outcome<ContextCounts> {
    return this.runner.run(undefined, "read", ({ db }) => ({ value: contextCounts(db) }));
  }

  /** Entities' access statistics as stored; reading them is not an access, so it never changes them. */
  entityStats(names: string[]): Outcome<EntityAccessStats[]> {
    const model = modelOptions(this.config());
    return this.runner.run(undefined, "read", ({ db, now }) => ({ value: entityAccessStats(db, names, now, model) }));
  }

  exportPage(cursor: string | undefined, maxLines: number): Outcome<{ lines: string[]; next?: string }> {
    return this.runner.run(undefined, "read", ({ db }) => ({ value: exportPage(db, cursor, maxLines) }));
  }

  /** The archive's graph rows as export lines, after the entity and relation lines (src/priority/transfer.ts). */
  exportArchive(after: number, maxLines: number, maxChars: number): Outcome<{ lines: string[]; next?: number }> {
    return this.runner.run(undefined, "read", ({ db }) => ({ value: exportArchivePage(db, after, maxLines, maxChars) }));
  }

  /** One batch of import lines: every good line applied, a line that fails rejected with its number (./importing.ts). */
  importBatch(items: ImportLine[], meta: CallMeta): ImportBatchResult {
    return importBatch(this.runner, items, meta);
  }

  /** memory_history: changes newest first, filtered. */
  history(query: HistoryQuery, meta: CallMeta): Outcome<{ changes: ChangeInfo[]; more: boolean }> {
    return this.runner.run(meta, "read", ({ db }) => ({ value: listChanges(db, query) }));
  }

  /** undo: reverts changes as one new change, or fails naming the conflicting ones. */
  undo(request: UndoRequest, meta: CallMeta): Outcome<UndoResult> {
    return this.runner.run(meta, "write", (w) => ({ value: undo(w, INVERSES, request, meta) }));
  }

  /** History lines of an export (`type: "change"`), oldest first, after seq `after`. */
  exportHistory(after: number, maxChars: number): Outcome<{ lines: string[]; next?: number }> {
    return this.runner.run(undefined, "read", ({ db }) => ({ value: exportChanges(db, after, maxChars) }));
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
      migrate(this.db, (fn) => this.ctx.storage.transactionSync(fn));
      this.ctx.storage.transactionSync(() => {
        applySegmentPolicy(this.db);
        applyRegistration(this.db, { name, status: "purged" });
      });
      await this.upkeep.load();
      this.useEmbedder(this.upkeep.embedder);
    });
  }

  private get documentOptions(): documents.DocumentOptions {
    const s = this.config();
    return { rootTemplate: s.ROOT_TEMPLATE, maxDepth: s.DOCUMENT_MAX_DEPTH };
  }

  readDocument(id: string, meta: CallMeta): Outcome<{ id: string; content: string; related: RelatedItem[] }> {
    return this.runner.run(meta, "read", ({ db, now }) => ({
      value: documents.readDocument(db, id, this.documentOptions, now),
      effects: accessed([itemKey.doc(id)], "view"),
    }));
  }

  /** One recorded change, whatever the update created and removed; the document and its new children count as written. */
  updateDocument(id: string, content: string, meta: CallMeta): Outcome<documents.UpdateResult> {
    return this.runner.run(meta, "write", (w) => {
      const result = documents.updateDocument(w, id, content, this.documentOptions);
      return { value: result, effects: { ...accessed([id, ...result.created].map(itemKey.doc), "write"), removed: result.removed.map(itemKey.doc) } };
    });
  }

  // The tree lists every document without showing any, so it is not an access to them.
  documentTree(meta: CallMeta): Outcome<{ root: documents.TreeNode; count: number }> {
    return this.runner.run(meta, "read", ({ db, now }) => ({ value: documents.documentTree(db, this.documentOptions, now) }));
  }

  searchDocuments(query: string, limit: number, meta: CallMeta): Outcome<DocumentHit[]> {
    return this.runner.run(meta, "search", ({ db, now }) => {
      const hits = documents.searchDocuments(db, query, limit, this.documentOptions, now);
      return {
        value: hits,
        effects: accessed(
          hits.map((h) => itemKey.doc(h.id)),
          "search",
        ),
      };
    });
  }
}
