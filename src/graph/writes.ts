/**
 * The graph's recorded row writes. Every change to an entity, observation or
 * relation row goes through one of these functions, which notes the inverse
 * op with the change's recorder (src/history) in the same transaction. The
 * batch functions in store.ts and the undo appliers in inverse.ts are both
 * built from them, so an undo is recorded exactly like any other write.
 *
 * ## Inverse ops (JSON, stored in change_inverse)
 * - `{kind:"entity", name, prior}`: prior null = the entity was created (undo
 *   deletes it with whatever it holds); prior = its row before it was deleted,
 *   statistics included (`stats`, src/items/stats.ts).
 * - `{kind:"observation", entity, content, prior}`: prior null = added;
 *   prior `{id, createdAt, by?}` = deleted (`by`: its `written_by`, so a
 *   restore keeps who wrote it; absent when unknown).
 * - `{kind:"relation", from, to, relationType, prior}`: the same for relations.
 * - `{kind:"superseded", entity, id, content, prior}`: a superseded
 *   observation's row (update_observation, migrations/0014): prior null =
 *   created; prior `{createdAt, supersededAt}` = deleted (with its entity).
 *   update_observation notes three ops: the old observation deleted, its
 *   superseded row created, the new observation added.
 * As-of reads (rewind.ts) replay these ops backwards in memory: a new op kind
 * that changes entities, observations or relations must be replayed there too.
 * A deleted row's id is kept so a restore puts it back in its old place in
 * insertion order when that id is still free.
 *
 * Observations created together with their entity are not noted one by one:
 * undoing the creation deletes the entity and everything it holds.
 */
import { itemKey, STATS_COLUMNS, statsOf, statsPlaceholders, statsValues, type ItemStats, type StatsRow } from "../items";
import { jsonBatches, placeholders, type Db } from "../storage/sql";
import type { WriteScope } from "../history";
import type { Entity, EntityInput, Relation } from "./types";
import { removeAliasesOf } from "./aliases";

/** The history item key of an entity. Relations and observations count as changes to their entities. */
const entityItem = itemKey.entity;

export type EntityPrior = {
  id: number;
  entityType: string;
  createdAt: number;
  updatedAt: number;
  lastAccessedAt: number | null;
  accessCount: number;
  /** Its priority columns (absent in ops recorded before they existed). */
  stats?: ItemStats;
};
export type RowPrior = { id: number; createdAt: number };
/** A deleted observation: its row and, when known, who wrote it (`written_by`). */
export type ObservationPrior = RowPrior & { by?: string };
/** Who wrote an observation and when: kept when it moves (a merge) or comes back (an undo, a restore). */
export type Origin = { at: number; by: string | null };

export type EntityOp = { kind: "entity"; name: string; prior: EntityPrior | null };
export type ObservationOp = { kind: "observation"; entity: string; content: string; prior: ObservationPrior | null };
export type RelationOp = { kind: "relation"; from: string; to: string; relationType: string; prior: RowPrior | null };
export type SupersededOp = {
  kind: "superseded";
  entity: string;
  id: number;
  content: string;
  prior: { createdAt: number; supersededAt: number; by?: string } | null;
};
/** The graph's inverse ops, by kind. */
export type GraphOp = EntityOp | ObservationOp | RelationOp | SupersededOp;

/** An observation's prior for an inverse op, with its writer when known. */
const observationPrior = (row: { id: number; created_at: number; written_by: string | null }): ObservationPrior => ({
  id: row.id,
  createdAt: row.created_at,
  ...(row.written_by !== null ? { by: row.written_by } : {}),
});

/** `id` when no row of `table` has it, else null (let SQLite choose). */
function freeId(db: Db, table: "entities" | "observations" | "relations" | "superseded_observations", id: number | undefined): number | null {
  if (id === undefined) return null;
  return db.one(`SELECT 1 AS taken FROM ${table} WHERE id = ?`, id) ? null : id;
}

/**
 * Creates an entity; returns its id, or undefined when the name is taken.
 * A new entity gets `fresh` (its category, and the mark an import carries);
 * a restored one (`prior`) gets its old use, category, mark and tier back.
 */
export function insertEntity(
  w: WriteScope,
  name: string,
  entityType: string,
  prior?: EntityPrior,
  fresh: { category: string; important?: boolean } = { category: "general" },
): number | undefined {
  const stats: Partial<ItemStats> = prior
    ? (prior.stats ?? { accessCount: prior.accessCount, lastAccessedAt: prior.lastAccessedAt })
    : { important: fresh.important === true, tier: fresh.important ? "long" : "short" };
  const row = w.db.one<{ id: number }>(
    `INSERT INTO entities (id, name, entity_type, created_at, updated_at, ${STATS_COLUMNS})
     VALUES (${placeholders(5)}, ${statsPlaceholders()}) ON CONFLICT (name) DO NOTHING RETURNING id`,
    freeId(w.db, "entities", prior?.id),
    name,
    entityType,
    prior?.createdAt ?? w.now,
    prior?.updatedAt ?? w.now,
    ...statsValues(stats, fresh.category),
  );
  if (row) w.rec.note(entityItem(name), { kind: "entity", name, prior: null } satisfies EntityOp);
  return row?.id;
}

/**
 * Creates many entities with their observations, a table at a time, the
 * rows as one JSON parameter per statement (create_entities' path: two
 * statements for 1,000 entities with 5,000 observations, where bound
 * parameters would take 145). Same effect as insertEntity then insertObservation
 * per row: a name already taken, or repeated in the batch after its first
 * use, is skipped; an entity's repeated observations are kept once; ids
 * ascend in input order; one entity note per created entity, none per
 * observation (see the module note).
 */
export function insertNewEntities(w: WriteScope, entities: readonly (EntityInput & { category: string })[]): Entity[] {
  const first = new Map<string, EntityInput & { category: string }>();
  for (const e of entities) if (!first.has(e.name)) first.set(e.name, e);
  const ids = new Map<string, number>();
  const unique = [...first.values()];
  // The other priority columns start at their defaults (migrations/0006_priority.sql); a mark (from an import) starts long term.
  for (const batch of jsonBatches(unique.map((e) => [e.name, e.entityType, e.category, e.important === true ? 1 : 0]))) {
    const rows = w.db.all<{ id: number; name: string }>(
      `INSERT INTO entities (name, entity_type, category, important, tier, created_at, updated_at)
       SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, CASE WHEN value ->> 3 THEN 'long' ELSE 'short' END, ?2, ?2
       FROM json_each(?1) WHERE true
       ON CONFLICT (name) DO NOTHING RETURNING id, name`,
      batch,
      w.now,
    );
    for (const r of rows) ids.set(r.name, r.id);
  }
  const created: Entity[] = [];
  const observations: [number, string][] = [];
  for (const e of unique) {
    const id = ids.get(e.name);
    if (id === undefined) continue;
    w.rec.note(entityItem(e.name), { kind: "entity", name: e.name, prior: null } satisfies EntityOp);
    const kept = [...new Set(e.observations)];
    for (const content of kept) observations.push([id, content]);
    created.push({ name: e.name, entityType: e.entityType, observations: kept });
  }
  for (const batch of jsonBatches(observations)) {
    w.db.run(
      `INSERT INTO observations (entity_id, content, created_at, written_by)
       SELECT value ->> 0, value ->> 1, ?2, ?3 FROM json_each(?1) WHERE true
       ON CONFLICT (entity_id, content) DO NOTHING`,
      batch,
      w.now,
      w.by ?? null,
    );
  }
  return created;
}

interface EntityRowFull extends StatsRow, Record<string, SqlStorageValue> {
  id: number;
  name: string;
  entity_type: string;
  created_at: number;
  updated_at: number;
}

/** Deletes an entity with its observations and relations; returns how many relations went. */
export function deleteEntityRow(w: WriteScope, id: number): number {
  const e = w.db.one<EntityRowFull>("SELECT * FROM entities WHERE id = ?", id);
  if (!e) return 0;
  const relations = w.db.all<{ id: number; from_name: string; to_name: string; relation_type: string; created_at: number }>(
    `SELECT r.id, f.name AS from_name, t.name AS to_name, r.relation_type, r.created_at
     FROM relations r JOIN entities f ON f.id = r.from_id JOIN entities t ON t.id = r.to_id
     WHERE r.from_id = ? OR r.to_id = ? ORDER BY r.id`,
    id,
    id,
  );
  w.db.run("DELETE FROM relations WHERE from_id = ? OR to_id = ?", id, id);
  for (const r of relations) {
    w.rec.note([entityItem(r.from_name), entityItem(r.to_name)], {
      kind: "relation",
      from: r.from_name,
      to: r.to_name,
      relationType: r.relation_type,
      prior: { id: r.id, createdAt: r.created_at },
    } satisfies RelationOp);
  }
  const observations = w.db.all<{ id: number; content: string; created_at: number; written_by: string | null }>(
    "SELECT id, content, created_at, written_by FROM observations WHERE entity_id = ? ORDER BY id",
    id,
  );
  w.db.run("DELETE FROM observations WHERE entity_id = ?", id);
  deleteSupersededOf(w, id, e.name);
  // Noted before the entity, so an undo restores the entity first and then its aliases (./aliases.ts).
  removeAliasesOf(w, id, e.name);
  w.db.run("DELETE FROM entities WHERE id = ?", id);
  for (const o of observations) {
    w.rec.note(entityItem(e.name), {
      kind: "observation",
      entity: e.name,
      content: o.content,
      prior: observationPrior(o),
    } satisfies ObservationOp);
  }
  const prior: EntityPrior = {
    id: e.id,
    entityType: e.entity_type,
    createdAt: e.created_at,
    updatedAt: e.updated_at,
    lastAccessedAt: e.last_accessed_at,
    accessCount: e.access_count,
    stats: statsOf(e),
  };
  w.rec.note(entityItem(e.name), { kind: "entity", name: e.name, prior } satisfies EntityOp);
  return relations.length;
}

/**
 * Adds an observation; false when the entity already has it. `noted` false
 * is for observations created with their entity (see the module note).
 * Its provenance is `origin` (a merge moves it), else the prior row's (an
 * undo or a restore), else this write's (`w.by`, now).
 */
export function insertObservation(
  w: WriteScope,
  entityId: number,
  entity: string,
  content: string,
  opts: { prior?: ObservationPrior; origin?: Origin; noted?: boolean } = {},
): boolean {
  const origin = opts.origin ?? (opts.prior ? { at: opts.prior.createdAt, by: opts.prior.by ?? null } : { at: w.now, by: w.by ?? null });
  const written = w.db.run(
    "INSERT INTO observations (id, entity_id, content, created_at, written_by) VALUES (?, ?, ?, ?, ?) ON CONFLICT (entity_id, content) DO NOTHING",
    freeId(w.db, "observations", opts.prior?.id),
    entityId,
    content,
    origin.at,
    origin.by,
  );
  if (written > 0 && opts.noted !== false) {
    w.rec.note(entityItem(entity), { kind: "observation", entity, content, prior: null } satisfies ObservationOp);
  }
  return written > 0;
}

/** Deletes one observation; false when the entity did not have it. */
export function deleteObservation(w: WriteScope, entityId: number, entity: string, content: string): boolean {
  const row = w.db.one<{ id: number; created_at: number; written_by: string | null }>(
    "DELETE FROM observations WHERE entity_id = ? AND content = ? RETURNING id, created_at, written_by",
    entityId,
    content,
  );
  if (row) {
    w.rec.note(entityItem(entity), {
      kind: "observation",
      entity,
      content,
      prior: observationPrior(row),
    } satisfies ObservationOp);
  }
  return row !== undefined;
}

/** Marks an entity as modified now (not itself a recorded change). */
export function touchEntity(w: WriteScope, entityId: number): void {
  w.db.run("UPDATE entities SET updated_at = ? WHERE id = ?", w.now, entityId);
}

const relationOp = (r: Relation, prior: RowPrior | null): RelationOp => ({
  kind: "relation",
  from: r.from,
  to: r.to,
  relationType: r.relationType,
  prior,
});

/**
 * Adds many relations between existing entities in one statement per
 * JSON_PARAM_BYTES of rows (create_relations' path); same effect as
 * insertRelation per row, in input order: an existing relation, or one
 * repeated in the batch, is skipped. Returns whether each was created.
 */
export function insertNewRelations(w: WriteScope, rows: readonly { fromId: number; toId: number; relation: Relation }[]): boolean[] {
  const key = (from: number, to: number, type: string) => JSON.stringify([from, to, type]);
  const inserted = new Set<string>();
  for (const batch of jsonBatches(rows.map((r) => [r.fromId, r.toId, r.relation.relationType]))) {
    const written = w.db.all<{ from_id: number; to_id: number; relation_type: string }>(
      `INSERT INTO relations (from_id, to_id, relation_type, created_at)
       SELECT value ->> 0, value ->> 1, value ->> 2, ?2 FROM json_each(?1) WHERE true
       ON CONFLICT (from_id, to_id, relation_type) DO NOTHING RETURNING from_id, to_id, relation_type`,
      batch,
      w.now,
    );
    for (const r of written) inserted.add(key(r.from_id, r.to_id, r.relation_type));
  }
  return rows.map(({ fromId, toId, relation: r }) => {
    // The first of repeated rows is the one created.
    if (!inserted.delete(key(fromId, toId, r.relationType))) return false;
    w.rec.note([entityItem(r.from), entityItem(r.to)], relationOp(r, null));
    return true;
  });
}

/** Adds a relation between two existing entities; false when it already exists. */
export function insertRelation(w: WriteScope, fromId: number, toId: number, r: Relation, prior?: RowPrior): boolean {
  const written = w.db.run(
    "INSERT INTO relations (id, from_id, to_id, relation_type, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (from_id, to_id, relation_type) DO NOTHING",
    freeId(w.db, "relations", prior?.id),
    fromId,
    toId,
    r.relationType,
    prior?.createdAt ?? w.now,
  );
  if (written > 0) w.rec.note([entityItem(r.from), entityItem(r.to)], relationOp(r, null));
  return written > 0;
}

/** Deletes a relation; false when it did not exist. */
export function deleteRelation(w: WriteScope, fromId: number, toId: number, r: Relation): boolean {
  const row = w.db.one<{ id: number; created_at: number }>(
    "DELETE FROM relations WHERE from_id = ? AND to_id = ? AND relation_type = ? RETURNING id, created_at",
    fromId,
    toId,
    r.relationType,
  );
  if (row) w.rec.note([entityItem(r.from), entityItem(r.to)], relationOp(r, { id: row.id, createdAt: row.created_at }));
  return row !== undefined;
}

/** A superseded observation's row (migrations/0014_observation_validity.sql). */
export interface SupersededRow {
  id: number;
  content: string;
  createdAt: number;
  supersededAt: number;
  /** Who wrote it (`written_by`), when known. */
  by?: string | null;
}

/** Puts a superseded row in (under `row.id` when free); returns its id. */
export function insertSuperseded(w: WriteScope, entityId: number, entity: string, row: SupersededRow): number {
  const written = w.db.one<{ id: number }>(
    "INSERT INTO superseded_observations (id, entity_id, content, created_at, superseded_at, written_by) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
    freeId(w.db, "superseded_observations", row.id),
    entityId,
    row.content,
    row.createdAt,
    row.supersededAt,
    row.by ?? null,
  );
  if (!written) throw new Error("INSERT INTO superseded_observations returned no id");
  w.rec.note(entityItem(entity), { kind: "superseded", entity, id: written.id, content: row.content, prior: null } satisfies SupersededOp);
  return written.id;
}

/** Deletes one superseded row; false when there was none of that id. */
export function deleteSuperseded(w: WriteScope, entity: string, id: number): boolean {
  const row = w.db.one<{ content: string; created_at: number; superseded_at: number; written_by: string | null }>(
    "DELETE FROM superseded_observations WHERE id = ? RETURNING content, created_at, superseded_at, written_by",
    id,
  );
  if (row) {
    const prior = { createdAt: row.created_at, supersededAt: row.superseded_at, ...(row.written_by !== null ? { by: row.written_by } : {}) };
    w.rec.note(entityItem(entity), { kind: "superseded", entity, id, content: row.content, prior } satisfies SupersededOp);
  }
  return row !== undefined;
}

/** Deletes an entity's superseded rows (before the entity itself), each noted so an undo restores them. */
function deleteSupersededOf(w: WriteScope, entityId: number, entity: string): void {
  const ids = w.db.all<{ id: number }>("SELECT id FROM superseded_observations WHERE entity_id = ? ORDER BY id", entityId);
  for (const { id } of ids) deleteSuperseded(w, entity, id);
}

/**
 * Replaces the current observation `old` with `next`: `old` leaves
 * `observations` for `superseded_observations` (holding until now), `next`
 * is added. False when `old` is not a current observation; the caller
 * checks that `next` is not one already.
 */
export function supersedeObservation(w: WriteScope, entityId: number, entity: string, old: string, next: string): boolean {
  const row = w.db.one<{ id: number; created_at: number; written_by: string | null }>(
    "DELETE FROM observations WHERE entity_id = ? AND content = ? RETURNING id, created_at, written_by",
    entityId,
    old,
  );
  if (!row) return false;
  w.rec.note(entityItem(entity), { kind: "observation", entity, content: old, prior: observationPrior(row) } satisfies ObservationOp);
  insertSuperseded(w, entityId, entity, { id: row.id, content: old, createdAt: row.created_at, supersededAt: w.now, by: row.written_by });
  return insertObservation(w, entityId, entity, next);
}
