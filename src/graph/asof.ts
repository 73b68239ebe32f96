/**
 * As-of reads: open_nodes, read_graph and search_nodes (src/search/asof.ts)
 * with `asOf`, answered from the graph as it stood then (./rewind.ts
 * rebuilds it), and superseded observations with their dates (open_nodes
 * `includeSuperseded`).
 *
 * An asOf before anything existed is an empty answer. Rows are kept only
 * when created at or before asOf, which covers entities written before
 * history was recorded.
 */
import { DomainError } from "../errors";
import { LIMITS } from "../limits";
import type { Db } from "../storage/sql";
import { decodeCursor, encodeCursor, readGraph, type ReadGraphOptions } from "./read";
import { loadEntities, loadRelations, relKey, rewind, type PastEntity, type PastRelation } from "./rewind";
import { idsByName } from "./rows";
import type { Entity, GraphPage, Relation } from "./types";

/** A superseded observation as open_nodes shows it. */
interface SupersededInfo {
  text: string;
  addedAt: string;
  supersededAt: string;
}
/** An entity in the official shape, plus its superseded observations when asked for. */
export type EntityAt = Entity & { superseded?: SupersededInfo[] };

const iso = (t: number) => new Date(t).toISOString();
const MAX_DATE = 8.64e15;
const shown = (value: string | number) => (typeof value === "string" ? value.slice(0, 40) : value);
const ISO_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * An asOf argument as epoch ms: an ISO 8601 time ("2026-03-01",
 * "2026-03-01T12:00:00Z"; no zone means UTC) or epoch milliseconds (a
 * number or a string of digits). Unparsable, past what a Date holds or
 * later than `now`: Invalid.
 */
export function parseAsOf(value: string | number, now: number): number {
  const text = typeof value === "string" ? value.trim() : "";
  let t = Number.NaN;
  if (typeof value === "number") t = Number.isSafeInteger(value) ? value : Number.NaN;
  else if (/^\d{1,16}$/.test(text)) t = Number(text);
  else if (ISO_TIME.test(text)) t = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(text) || !text.includes(":") ? text : `${text}Z`);
  // A Date holds times up to 8.64e15 ms (year 275760): past that there is no time to name, and nothing to read.
  if (t > MAX_DATE) {
    throw new DomainError(
      "Invalid",
      `asOf: ${JSON.stringify(shown(value))} is past the latest time a date can hold (${iso(MAX_DATE)}); omit asOf for what holds now.`,
    );
  }
  if (!Number.isFinite(t) || t < 0) {
    throw new DomainError(
      "Invalid",
      `asOf: ${JSON.stringify(shown(value))} is not a time; give an ISO 8601 time such as "2026-03-01T12:00:00Z" or epoch milliseconds.`,
    );
  }
  if (t > now) throw new DomainError("Invalid", `asOf: ${iso(t)} is in the future (now is ${iso(now)}); omit asOf for what holds now.`);
  return t;
}

/** Which of `names` are entities now: an as-of read may return one deleted since, which must not regain statistics or associations. */
export const existing = (db: Db, names: readonly string[]): string[] => {
  const ids = idsByName(db, names);
  return names.filter((n) => ids.has(n));
};

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
function entitiesAt(db: Db, names: readonly string[], asOf: number): { entities: PastEntity[]; relations: PastRelation[]; notFound: string[] } {
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

/** read_graph: of the graph now, or as it stood at `asOf` when given. */
export function readGraphAsOf(db: Db, opts: ReadGraphOptions, asOf: string | number | undefined, now: number): GraphPage {
  return asOf === undefined ? readGraph(db, opts) : readGraphAt(db, opts, parseAsOf(asOf, now));
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
