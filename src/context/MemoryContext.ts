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
 */
import { DurableObject } from "cloudflare:workers";
import { capture, type Outcome } from "../errors";
import * as graph from "../graph/store";
import { exportPage, readGraph, type ReadGraphOptions } from "../graph/read";
import { importItems, type ImportItem, type ImportReport } from "../graph/import";
import type { Entity, GraphPage, ObservationAdd, ObservationDelete, Relation } from "../graph/types";
import { searchGraph, searchParams, type SearchOptions, type SearchResult } from "../search";
import { flushSearchIndex } from "../search/indexer";
import { settings } from "../settings";
import { migrate } from "./migrations";
import { Db } from "./sql";

/** Who is calling and from where; recorded with changes by later features. */
export interface CallMeta {
  /** The caller's identity: "admin", "local" or a token's name. */
  caller: string;
  /** The tool (or API route) that made the call. */
  tool: string;
  /** Session key, when the client has one (see src/mcp/server.ts). */
  session?: string;
}

export class MemoryContext extends DurableObject<Env> {
  private readonly db: Db;
  /** The object's clock. Tests replace it (through runInDurableObject) instead of sleeping. */
  now: () => number = Date.now;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = new Db(ctx.storage.sql);
    void ctx.blockConcurrencyWhile(async () => {
      migrate(this.db, (fn) => ctx.storage.transactionSync(fn));
      // Index whatever a migration queued (the search backfill).
      ctx.storage.transactionSync(() => flushSearchIndex(this.db));
    });
  }

  /**
   * Runs `fn` as one transaction; domain failures roll back and return as values.
   * The search indexes catch up with the rows `fn` wrote before it commits.
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
    return this.tx((db) => graph.deleteEntities(db, names));
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

  searchNodes(query: string, opts: SearchOptions, _meta: CallMeta): Outcome<SearchResult> {
    const params = searchParams(opts, settings(this.env));
    return this.tx((db, now) => searchGraph(db, query, params, now));
  }

  openNodes(names: string[], _meta: CallMeta) {
    return this.tx((db) => graph.openNodes(db, names));
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
