/**
 * As-of reads: the graph as it stood at a past time (open_nodes, read_graph
 * and search_nodes with `asOf`), and superseded observations with their
 * dates (open_nodes `includeSuperseded`).
 *
 * ## How the past is rebuilt
 * The change log (src/history) holds, for every write, the inverse ops that
 * take it back (writes.ts lists them). The graph at `asOf` is the graph now
 * with every change made after `asOf` taken back, newest first: what undoing
 * all of them would leave. `rewind` does that in memory and writes nothing.
 * Only the entities a replayed op names are rebuilt (`changed`); any other
 * entity is as it is now, with its observations and relations, because a
 * change to it, or to a relation touching it, would have named it.
 * Replaying the log (rather than keeping validity intervals on every row)
 * keeps the tables and every current read as they were, is exact across
 * undo and redo (an undo is a change like any other), and reaches back over
 * everything written before this feature existed; docs/history.md says more.
 *
 * ## Bounds
 * A read replays at most LIMITS.asOfChanges changes holding at most
 * LIMITS.asOfChars characters of inverse JSON (an open_nodes only the
 * changes that touched its names), all held in memory at once, and refuses an asOf older than what retention kept
 * (historyHorizon). An asOf before anything existed is an empty answer.
 * Rows are also kept only when created at or before asOf, which covers
 * entities written before history was recorded.
 */
import { DomainError } from "../errors";
import { changesAfter, historyHorizon, inverseOpsTakingBack, type InverseOp } from "../history";
import { itemKey } from "../items";
import { LIMITS } from "../limits";
import { jsonBatches, type Db } from "../storage/sql";
import { decodeCursor, encodeCursor, type ReadGraphOptions } from "./read";
import { RELATION_SELECT } from "./rows";
import type { Entity, GraphPage, Relation } from "./types";
import type { GraphOp } from "./writes";

export interface PastObservation {
  id: number;
  content: string;
  createdAt: number;
}
export interface PastSuperseded extends PastObservation {
  supersededAt: number;
}
export interface PastEntity {
  id: number;
  name: string;
  entityType: string;
  createdAt: number;
  observations: Map<string, PastObservation>;
  /** By row id: one text can be superseded more than once. */
  superseded: Map<number, PastSuperseded>;
}
export interface PastRelation extends Relation {
  id: number;
  createdAt: number;
}

/** A superseded observation as open_nodes shows it. */
export interface SupersededInfo {
  text: string;
  addedAt: string;
  supersededAt: string;
}
/** An entity in the official shape, plus its superseded observations when asked for. */
export type EntityAt = Entity & { superseded?: SupersededInfo[] };

const iso = (t: number) => new Date(t).toISOString();
const ISO_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * An asOf argument as epoch ms: an ISO 8601 time ("2026-03-01",
 * "2026-03-01T12:00:00Z"; no zone means UTC) or epoch milliseconds (a
 * number or a string of digits). Unparsable or later than `now`: Invalid.
 */
export function parseAsOf(value: string | number, now: number): number {
  const text = typeof value === "string" ? value.trim() : "";
  let t = Number.NaN;
  if (typeof value === "number") t = Number.isSafeInteger(value) ? value : Number.NaN;
  else if (/^\d{1,16}$/.test(text)) t = Number(text);
  else if (ISO_TIME.test(text)) t = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(text) || !text.includes(":") ? text : `${text}Z`);
  if (!Number.isFinite(t) || t < 0) {
    throw new DomainError(
      "Invalid",
      `asOf: ${JSON.stringify(typeof value === "string" ? value.slice(0, 40) : value)} is not a time; give an ISO 8601 time such as "2026-03-01T12:00:00Z" or epoch milliseconds.`,
    );
  }
  if (t > now) throw new DomainError("Invalid", `asOf: ${iso(t)} is in the future (now is ${iso(now)}); omit asOf for what holds now.`);
  return t;
}

const relKey = (r: Relation) => JSON.stringify([r.from, r.to, r.relationType]);

/** The current rows of the named entities that exist, with their observations and superseded observations. */
export function loadEntities(db: Db, names: readonly string[]): Map<string, PastEntity> {
  const out = new Map<string, PastEntity>();
  const byId = new Map<number, PastEntity>();
  const IN = "IN (SELECT value FROM json_each(?))";
  for (const batch of jsonBatches([...new Set(names)])) {
    for (const r of db.all<{ id: number; name: string; entity_type: string; created_at: number }>(
      `SELECT id, name, entity_type, created_at FROM entities WHERE name ${IN}`,
      batch,
    )) {
      const e: PastEntity = { id: r.id, name: r.name, entityType: r.entity_type, createdAt: r.created_at, observations: new Map(), superseded: new Map() };
      out.set(r.name, e);
      byId.set(r.id, e);
    }
  }
  for (const batch of jsonBatches([...byId.keys()])) {
    for (const o of db.all<{ id: number; entity_id: number; content: string; created_at: number }>(
      `SELECT id, entity_id, content, created_at FROM observations WHERE entity_id ${IN} ORDER BY id`,
      batch,
    )) {
      byId.get(o.entity_id)?.observations.set(o.content, { id: o.id, content: o.content, createdAt: o.created_at });
    }
    for (const s of db.all<{ id: number; entity_id: number; content: string; created_at: number; superseded_at: number }>(
      `SELECT id, entity_id, content, created_at, superseded_at FROM superseded_observations WHERE entity_id ${IN}`,
      batch,
    )) {
      byId.get(s.entity_id)?.superseded.set(s.id, { id: s.id, content: s.content, createdAt: s.created_at, supersededAt: s.superseded_at });
    }
  }
  return out;
}

/** Current relations with an end among `ids` (`outgoing`: only those from them). */
function loadRelations(db: Db, ids: readonly number[], outgoing = false): PastRelation[] {
  const out = new Map<number, PastRelation>();
  const select = RELATION_SELECT.replace("SELECT r.id,", "SELECT r.id, r.created_at,");
  for (const batch of jsonBatches(ids)) {
    for (const end of outgoing ? ["r.from_id"] : ["r.from_id", "r.to_id"]) {
      for (const r of db.all<{ id: number; created_at: number; from_name: string; to_name: string; relation_type: string }>(
        `${select} WHERE ${end} IN (SELECT value FROM json_each(?))`,
        batch,
      )) {
        out.set(r.id, { id: r.id, from: r.from_name, to: r.to_name, relationType: r.relation_type, createdAt: r.created_at });
      }
    }
  }
  return [...out.values()];
}

/** The entities changed since asOf, as they were then; see the module note. */
export interface Rewound {
  /** Entity names a replayed op named (within the scope asked for). */
  changed: Set<string>;
  /** Those of them that existed at asOf (check createdAt too). */
  entities: Map<string, PastEntity>;
  /** Relations with an end in `changed`, as they were at asOf. */
  relations: Map<string, PastRelation>;
}

const GRAPH_KINDS = new Set(["entity", "observation", "relation", "superseded"]);
const isGraphOp = (op: InverseOp): op is InverseOp & GraphOp => GRAPH_KINDS.has(op.kind);
const namesOf = (op: GraphOp): string[] => (op.kind === "entity" ? [op.name] : op.kind === "relation" ? [op.from, op.to] : [op.entity]);

const tooFar = (asOf: number, what: string) =>
  new DomainError("TooLarge", `asOf ${iso(asOf)}: more than ${what} were made since then to replay in one read; ask for a later time.`);

/** Takes back, in memory, every change made after `asOf` to the entities in `scope` (null: all). */
export function rewind(db: Db, asOf: number, scope: readonly string[] | null): Rewound {
  const horizon = historyHorizon(db);
  if (horizon !== null && asOf < horizon) {
    throw new DomainError(
      "Invalid",
      `asOf ${iso(asOf)}: history before ${iso(horizon)} was trimmed by retention, so the context cannot be rebuilt as it was then; ask for ${iso(horizon)} or later.`,
    );
  }
  const seqs = changesAfter(db, asOf, scope?.map(itemKey.entity), LIMITS.asOfChanges);
  if (seqs.length > LIMITS.asOfChanges) throw tooFar(asOf, `${LIMITS.asOfChanges} changes`);
  const inScope = scope === null ? null : new Set(scope);
  const out: Rewound = { changed: new Set(), entities: new Map(), relations: new Map() };

  // The entities the ops name are loaded as they are now, in bulk (the replay writes nothing), then the
  // ops are taken back, newest first.
  const ops = inverseOpsTakingBack(db, seqs, LIMITS.asOfChars)?.filter(isGraphOp);
  if (ops === undefined) throw tooFar(asOf, `${LIMITS.asOfChars / (1024 * 1024)} MB of changes`);
  for (const op of ops) for (const n of namesOf(op)) if (inScope === null || inScope.has(n)) out.changed.add(n);
  const loaded = loadEntities(db, [...out.changed]);
  for (const [n, e] of loaded) out.entities.set(n, e);
  for (const r of loadRelations(
    db,
    [...loaded.values()].map((e) => e.id),
  )) {
    out.relations.set(relKey(r), r);
  }
  for (const op of ops) takeBack(out, op);
  return out;
}

/** Applies one inverse op to the in-memory past; ops about entities outside the scope find nothing and do nothing. */
function takeBack(out: Rewound, op: GraphOp): void {
  if (op.kind === "relation") {
    if (!out.changed.has(op.from) && !out.changed.has(op.to)) return;
    const r = { from: op.from, to: op.to, relationType: op.relationType };
    if (op.prior === null) out.relations.delete(relKey(r));
    else out.relations.set(relKey(r), { ...r, id: op.prior.id, createdAt: op.prior.createdAt });
    return;
  }
  if (op.kind === "entity") {
    if (!out.changed.has(op.name)) return;
    if (op.prior === null) {
      out.entities.delete(op.name);
      for (const [k, r] of out.relations) if (r.from === op.name || r.to === op.name) out.relations.delete(k);
    } else {
      const p = op.prior;
      out.entities.set(op.name, { id: p.id, name: op.name, entityType: p.entityType, createdAt: p.createdAt, observations: new Map(), superseded: new Map() });
    }
    return;
  }
  const e = out.entities.get(op.entity);
  if (!e) return;
  if (op.kind === "observation") {
    if (op.prior === null) e.observations.delete(op.content);
    else e.observations.set(op.content, { id: op.prior.id, content: op.content, createdAt: op.prior.createdAt });
  } else if (op.prior === null) {
    e.superseded.delete(op.id);
  } else {
    e.superseded.set(op.id, { id: op.id, content: op.content, ...op.prior });
  }
}

const byId = <T extends { id: number }>(a: T, b: T) => a.id - b.id;

/** An entity as it stood at `asOf`, in the official shape; superseded observations too when `withSuperseded`. */
export function entityAt(e: PastEntity, asOf: number, withSuperseded: boolean): EntityAt {
  const observations = [...e.observations.values()]
    .filter((o) => o.createdAt <= asOf)
    .sort(byId)
    .map((o) => o.content);
  const out: EntityAt = { name: e.name, entityType: e.entityType, observations };
  if (withSuperseded) {
    out.superseded = [...e.superseded.values()]
      .filter((s) => s.supersededAt <= asOf)
      .sort((a, b) => a.supersededAt - b.supersededAt || a.id - b.id)
      .map((s) => ({ text: s.content, addedAt: iso(s.createdAt), supersededAt: iso(s.supersededAt) }));
  }
  return out;
}

const plain = (r: PastRelation): Relation => ({ from: r.from, to: r.to, relationType: r.relationType });

/** The named entities as they stood at `asOf` (in id order), the relations touching them then, and the names that did not exist then. */
export function entitiesAt(db: Db, names: readonly string[], asOf: number): { entities: PastEntity[]; relations: PastRelation[]; notFound: string[] } {
  const unique = [...new Set(names)];
  const past = rewind(db, asOf, unique);
  const current = loadEntities(
    db,
    unique.filter((n) => !past.changed.has(n)),
  );
  const entities = unique
    .map((n) => (past.changed.has(n) ? past.entities.get(n) : current.get(n)))
    .filter((e): e is PastEntity => e !== undefined && e.createdAt <= asOf)
    .sort(byId);
  const found = new Set(entities.map((e) => e.name));
  const relations = new Map<string, PastRelation>();
  for (const r of past.relations.values()) if (found.has(r.from) || found.has(r.to)) relations.set(relKey(r), r);
  const cleanIds = entities.filter((e) => !past.changed.has(e.name)).map((e) => e.id);
  for (const r of loadRelations(db, cleanIds)) if (!relations.has(relKey(r))) relations.set(relKey(r), r);
  return {
    entities,
    relations: [...relations.values()].filter((r) => r.createdAt <= asOf).sort(byId),
    notFound: unique.filter((n) => !found.has(n)),
  };
}

/** open_nodes with asOf or includeSuperseded: like graph.openNodes, at `asOf` (now, when only superseded observations were asked for). */
export function openNodesAt(
  db: Db,
  names: readonly string[],
  asOf: number,
  withSuperseded: boolean,
  maxRelations: number,
): { entities: EntityAt[]; relations: Relation[]; notFound: string[]; relationsTruncated: boolean } {
  const at = entitiesAt(db, names, asOf);
  return {
    entities: at.entities.map((e) => entityAt(e, asOf, withSuperseded)),
    relations: at.relations.slice(0, maxRelations).map(plain),
    notFound: at.notFound,
    relationsTruncated: at.relations.length > maxRelations,
  };
}

/**
 * read_graph with asOf: the same pages as readGraph (entities in id order,
 * each with its outgoing relations, cut by count and bytes), of the graph at
 * `asOf`. The whole log since asOf is replayed for every page (bounded).
 */
export function readGraphAt(db: Db, opts: ReadGraphOptions, asOf: number): GraphPage {
  const limit = Math.min(opts.limit ?? LIMITS.readGraphPageEntities, LIMITS.readGraphPageEntities);
  const { after } = decodeCursor(opts.cursor);
  const past = rewind(db, asOf, null);

  // Unchanged entities come from their rows, skipping changed ones; changed ones from the replay.
  const clean: { id: number; name: string }[] = [];
  let from = after;
  while (clean.length < limit + 1) {
    const rows = db.all<{ id: number; name: string }>("SELECT id, name FROM entities WHERE id > ? AND created_at <= ? ORDER BY id LIMIT ?", from, asOf, limit + 1);
    for (const r of rows) if (!past.changed.has(r.name)) clean.push(r);
    const last = rows[rows.length - 1];
    if (rows.length <= limit || !last) break;
    from = last.id;
  }
  const changed = [...past.entities.values()].filter((e) => e.id > after && e.createdAt <= asOf);
  const order = [...clean.map((r) => ({ id: r.id, name: r.name, changed: false })), ...changed.map((e) => ({ id: e.id, name: e.name, changed: true }))]
    .sort((a, b) => a.id - b.id || a.name.localeCompare(b.name))
    .slice(0, limit + 1);
  const hasMore = order.length > limit;
  const pageRows = order.slice(0, limit);
  if (pageRows.length === 0) return { entities: [], relations: [] };

  const current = loadEntities(
    db,
    pageRows.filter((r) => !r.changed).map((r) => r.name),
  );
  const entityOf = (r: (typeof pageRows)[number]) => (r.changed ? past.entities.get(r.name) : current.get(r.name)) as PastEntity;
  const outgoing = new Map<string, Relation[]>();
  const addOut = (r: PastRelation) => {
    if (r.createdAt > asOf) return;
    const list = outgoing.get(r.from) ?? [];
    list.push(plain(r));
    outgoing.set(r.from, list);
  };
  const cleanIds = pageRows.filter((r) => !r.changed).map((r) => r.id);
  for (const r of loadRelations(db, cleanIds, true).sort(byId)) addOut(r);
  const pageChanged = new Set(pageRows.filter((r) => r.changed).map((r) => r.name));
  for (const r of [...past.relations.values()].sort(byId)) if (pageChanged.has(r.from)) addOut(r);

  const full = opts.mode !== "summary";
  const page: GraphPage = { entities: [], relations: [] };
  let used = 0;
  let lastKept = after;
  for (const row of pageRows) {
    const e = entityOf(row);
    const entity = full ? entityAt(e, asOf, false) : { name: e.name, entityType: e.entityType };
    const rels = outgoing.get(e.name) ?? [];
    const size = JSON.stringify(entity).length + rels.reduce((n, r) => n + JSON.stringify(r).length, 0);
    if (page.entities.length > 0 && used + size > LIMITS.readGraphPageBytes) break;
    page.entities.push(entity);
    page.relations.push(...rels);
    used += size;
    lastKept = row.id;
  }
  if (hasMore || page.entities.length < pageRows.length) {
    page.nextCursor = encodeCursor({ after: lastKept });
    page.note = `Partial graph as of ${iso(asOf)}: ${page.entities.length} entities in this page. Call read_graph with this cursor and the same asOf for the next page.`;
  }
  return page;
}
