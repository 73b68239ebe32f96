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
import type { Entity, GraphPage, KnowledgeGraph, ObservationAdd, ObservationDelete, Relation } from "../graph/types";
import { searchGraph, type SearchOptions } from "../search";
import * as documents from "../documents/store";
import type { DocumentHit } from "../documents/search";
import { settings } from "../settings";
import { itemKey, recordAccess } from "./access";
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
    });
  }

  /** Runs `fn` as one transaction; domain failures roll back and return as values. */
  private tx<T>(fn: (db: Db, now: number) => T): Outcome<T> {
    return capture(() => this.ctx.storage.transactionSync(() => fn(this.db, this.now())));
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

  searchNodes(query: string, opts: SearchOptions, _meta: CallMeta): Outcome<KnowledgeGraph> {
    return this.tx((db) => searchGraph(db, query, opts));
  }

  openNodes(names: string[], meta: CallMeta) {
    return this.tx((db, now) => {
      const found = graph.openNodes(db, names);
      recordAccess(db, found.entities.map((e) => ({ item: itemKey.entity(e.name), kind: "open" as const })), now, meta);
      return found;
    });
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
