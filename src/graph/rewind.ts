/**
 * The replay behind as-of reads (./asof.ts): the graph as it stood at a past
 * time, rebuilt in memory from the change log.
 *
 * The change log (src/history) holds, for every write, the inverse ops that
 * take it back (writes.ts lists them). The graph at `asOf` is the graph now
 * with every change made after `asOf` taken back, newest first: what undoing
 * all of them would leave. `rewind` does that in memory and writes nothing.
 * Only the entities a replayed op names are rebuilt (`changed`); any other
 * entity is as it is now, with its observations and relations, because a
 * change to it, or to a relation touching it, would have named it.
 * docs/history.md says why this replay rather than validity intervals.
 *
 * ## Bounds
 * A rewind replays at most LIMITS.asOfChanges changes holding at most
 * LIMITS.asOfChars characters of inverse JSON (with a scope, only the
 * changes that touched it), all held in memory at once, and refuses an asOf
 * older than what retention kept (historyHorizon).
 */
import { DomainError } from "../errors";
import { changesAfter, historyHorizon, inverseOpsTakingBack, type InverseOp } from "../history";
import { itemKey } from "../items";
import { LIMITS } from "../limits";
import { jsonBatches, type Db } from "../storage/sql";
import { RELATION_SELECT } from "./rows";
import type { Relation } from "./types";
import type { GraphOp } from "./writes";

const iso = (t: number) => new Date(t).toISOString();

interface PastObservation {
  id: number;
  content: string;
  createdAt: number;
}
interface PastSuperseded extends PastObservation {
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

export const relKey = (r: Relation) => JSON.stringify([r.from, r.to, r.relationType]);

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
export function loadRelations(db: Db, ids: readonly number[], outgoing = false): PastRelation[] {
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
