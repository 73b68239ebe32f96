/**
 * The knowledge graph's writes and reads: entities, their observations and
 * the relations between them.
 *
 * ## Storage layout
 * `entities(name UNIQUE)`, `observations(entity_id, content) UNIQUE`,
 * `relations(from_id, to_id, relation_type) UNIQUE` (migrations/0001_init.sql).
 * Relations reference entities by id, so a relation can never dangle.
 *
 * ## Invariants
 * - Every function here runs inside the caller's transaction; a DomainError
 *   thrown part-way rolls back everything the call wrote.
 * - Writes go through writes.ts, which records each row change with the
 *   call's history recorder (`WriteScope.rec`).
 * - Duplicates (same entity name, same observation on an entity, same
 *   relation triple) are skipped and not reported as created, as in
 *   @modelcontextprotocol/server-memory.
 * - Unlike that server, a relation or observation naming a missing entity
 *   rejects the whole batch and names what was missing.
 */
import { DomainError, listNames } from "../errors";
import { jsonBatches, type Db } from "../storage/sql";
import type { WriteScope } from "../history";
import { classifyEntity, itemKey } from "../items";
import { refuseAliases, resolveAliases } from "./aliases";
import { idsByName, relationLabel, relationsTouching, withObservations, type EntityRow } from "./rows";
import {
  deleteEntityRow,
  deleteObservation,
  deleteRelation,
  insertNewEntities,
  insertNewRelations,
  insertObservation,
  supersedeObservation,
  touchEntity,
} from "./writes";
import type { DeleteReport, Entity, EntityInput, KnowledgeGraph, ObservationAdd, ObservationDelete, Relation } from "./types";

/** Relations open_nodes returns at most, so one hub entity cannot flood a context window. */
export const OPEN_NODES_MAX_RELATIONS = 1000;

export function createEntities(w: WriteScope, entities: readonly EntityInput[]): Entity[] {
  refuseAliases(
    w.db,
    entities.map((e) => e.name),
    "create_entities",
  );
  // An explicit category wins; otherwise the keyword classifier decides (src/items/classify.ts).
  return insertNewEntities(
    w,
    entities.map((e) => ({ ...e, category: e.category ?? classifyEntity(e.name, e.entityType, e.observations) })),
  );
}

/** Existing entities create_entities names at most when a new name differs from theirs only in letter case. */
const CASE_VARIANTS_MAX = 3;

/** A created entity's name beside an entity that existed before, whose name differs from it only in letter case. */
interface CaseVariant {
  name: string;
  existing: string;
}

export interface EntitiesCreated {
  entities: Entity[];
  /** The first CASE_VARIANTS_MAX, in the order the names were given. */
  caseVariants: CaseVariant[];
  /** Whether there were more than CASE_VARIANTS_MAX. */
  moreCaseVariants: boolean;
}

/**
 * The entities whose names differ from one of `names` only in letter case: one
 * range of the NOCASE index (migrations/0012) per name, so it folds ASCII
 * letters only, as SQLite's NOCASE does.
 */
function caseVariants(db: Db, names: readonly string[]): CaseVariant[] {
  const found: CaseVariant[] = [];
  for (const batch of jsonBatches([...new Set(names)])) {
    found.push(
      ...db.all<CaseVariant & Record<string, SqlStorageValue>>(
        `SELECT n.value AS name, e.name AS existing FROM json_each(?) n JOIN entities e ON e.name = n.value COLLATE NOCASE
         WHERE e.name <> n.value ORDER BY n.key, e.id`,
        batch,
      ),
    );
  }
  return found;
}

/**
 * create_entities: creates the entities, and names the entities that existed
 * before whose names differ from a created one only in letter case. Names are
 * case-sensitive, as in the official server, so both stand; the caller can
 * merge them if they are one thing.
 */
export function createEntitiesNamingVariants(w: WriteScope, entities: readonly EntityInput[]): EntitiesCreated {
  // Looked up before the insert, so every entity found existed before the call; kept for the names this call created
  // (a name that existed already was skipped, and its variants are not news). One index range per name: at 1,000,000
  // entities a second lookup per name (whether it exists) cost as much again.
  const variants = caseVariants(
    w.db,
    entities.map((e) => e.name),
  );
  const created = createEntities(w, entities);
  const names = new Set(created.map((e) => e.name));
  const news = variants.filter((v) => names.has(v.name));
  return { entities: created, caseVariants: news.slice(0, CASE_VARIANTS_MAX), moreCaseVariants: news.length > CASE_VARIANTS_MAX };
}

function requireEntities(db: Db, names: readonly string[], what: string): Map<string, number> {
  const ids = idsByName(db, names);
  const missing = [...new Set(names)].filter((n) => !ids.has(n));
  if (missing.length > 0) {
    // A name merged into another entity (./aliases.ts) is no entity, and create_entities refuses it: the error names the entity to use instead.
    const aliases = resolveAliases(db, missing);
    const absent = missing.filter((n) => !aliases.has(n));
    const said = [
      ...(absent.length > 0 ? [`no entity named ${listNames(absent)}; create ${absent.length === 1 ? "it" : "them"} with create_entities first.`] : []),
      ...[...aliases].map(([alias, entity]) => `${JSON.stringify(alias)} was merged into ${JSON.stringify(entity)}; use ${JSON.stringify(entity)}.`),
    ];
    throw new DomainError("NotFound", `${what}: ${said.join(" ")} Nothing was written.`);
  }
  return ids;
}

export function createRelations(w: WriteScope, relations: readonly Relation[]): Relation[] {
  const ids = requireEntities(
    w.db,
    relations.flatMap((r) => [r.from, r.to]),
    "create_relations",
  );
  const rows = relations.map((r) => ({
    fromId: ids.get(r.from) as number,
    toId: ids.get(r.to) as number,
    relation: { from: r.from, to: r.to, relationType: r.relationType },
  }));
  const created = insertNewRelations(w, rows);
  return rows.filter((_, i) => created[i]).map((r) => r.relation);
}

export function addObservations(w: WriteScope, items: readonly ObservationAdd[]): { entityName: string; addedObservations: string[] }[] {
  const ids = requireEntities(
    w.db,
    items.map((o) => o.entityName),
    "add_observations",
  );
  return items.map((o) => {
    const id = ids.get(o.entityName) as number;
    const added = o.contents.filter((content) => insertObservation(w, id, o.entityName, content));
    if (added.length > 0) touchEntity(w, id);
    return { entityName: o.entityName, addedObservations: added };
  });
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export type EntitiesDeleted = DeleteReport & { deleted: string[]; notFound: string[] };

/** Deletes the named entities with their observations and relations; each deleted entity is gone as an item too. */
export function deleteEntities(w: WriteScope, names: readonly string[]): EntitiesDeleted {
  const ids = idsByName(w.db, names);
  const notFound = [...new Set(names)].filter((n) => !ids.has(n));
  let relations = 0;
  for (const id of ids.values()) relations += deleteEntityRow(w, id);
  const deleted = [...ids.keys()];
  w.items.removed(deleted.map(itemKey.entity));
  let message = `Deleted ${plural(deleted.length, "entity", "entities")} and ${plural(relations, "relation")}.`;
  if (notFound.length > 0) message += ` Not found (nothing to delete): ${listNames(notFound)}.`;
  return { success: true, message, deleted, notFound };
}

export function deleteObservations(w: WriteScope, deletions: readonly ObservationDelete[]): DeleteReport {
  const ids = idsByName(
    w.db,
    deletions.map((d) => d.entityName),
  );
  const missingEntities = [...new Set(deletions.map((d) => d.entityName))].filter((n) => !ids.has(n));
  const missingObservations: string[] = [];
  let removed = 0;
  for (const d of deletions) {
    const id = ids.get(d.entityName);
    if (id === undefined) continue;
    let touched = 0;
    for (const content of d.observations) {
      if (deleteObservation(w, id, d.entityName, content)) touched++;
      else missingObservations.push(`${d.entityName}: ${content.slice(0, 60)}`);
    }
    if (touched > 0) touchEntity(w, id);
    removed += touched;
  }
  let message = `Deleted ${plural(removed, "observation")}.`;
  if (missingEntities.length > 0) message += ` No entity named ${listNames(missingEntities)}.`;
  if (missingObservations.length > 0) message += ` Not found (nothing to delete): ${listNames(missingObservations, 5)}.`;
  return { success: true, message };
}

/** update_observation's input: the entity, its current observation and the one that replaces it. */
export interface ObservationUpdate {
  entityName: string;
  old: string;
  new: string;
}

/**
 * Replaces a current observation with a newer one; the old one is kept as
 * superseded (it held until now). One recorded change, so undo restores it.
 */
export function updateObservation(w: WriteScope, u: ObservationUpdate): ObservationUpdate & { supersededAt: string } {
  const id = requireEntities(w.db, [u.entityName], "update_observation").get(u.entityName) as number;
  const what = `update_observation on ${JSON.stringify(u.entityName)}`;
  if (u.old === u.new) throw new DomainError("Invalid", `${what}: new is the same as old; nothing was changed.`);
  const has = (content: string) => w.db.one("SELECT 1 AS x FROM observations WHERE entity_id = ? AND content = ?", id, content) !== undefined;
  if (!has(u.old)) {
    const gone = w.db.one<{ at: number }>(
      "SELECT superseded_at AS at FROM superseded_observations WHERE entity_id = ? AND content = ? ORDER BY superseded_at DESC LIMIT 1",
      id,
      u.old,
    );
    const why = gone ? `it was superseded at ${new Date(gone.at).toISOString()}` : "open_nodes lists the current ones";
    throw new DomainError("NotFound", `${what}: old ${JSON.stringify(u.old.slice(0, 80))} is not a current observation (${why}); nothing was changed.`);
  }
  if (has(u.new)) {
    throw new DomainError(
      "Conflict",
      `${what}: new ${JSON.stringify(u.new.slice(0, 80))} is already a current observation; delete_observations removes old; nothing was changed.`,
    );
  }
  supersedeObservation(w, id, u.entityName, u.old, u.new);
  touchEntity(w, id);
  return { entityName: u.entityName, old: u.old, new: u.new, supersededAt: new Date(w.now).toISOString() };
}

export function deleteRelations(w: WriteScope, relations: readonly Relation[]): DeleteReport {
  const ids = idsByName(
    w.db,
    relations.flatMap((r) => [r.from, r.to]),
  );
  const notFound: string[] = [];
  let removed = 0;
  for (const r of relations) {
    const from = ids.get(r.from);
    const to = ids.get(r.to);
    const gone = from !== undefined && to !== undefined && deleteRelation(w, from, to, r);
    if (gone) removed++;
    else notFound.push(relationLabel(r));
  }
  let message = `Deleted ${plural(removed, "relation")}.`;
  if (notFound.length > 0) message += ` Not found (nothing to delete): ${listNames(notFound, 5)}.`;
  return { success: true, message };
}

export function openNodes(db: Db, names: readonly string[]): KnowledgeGraph & { notFound: string[]; relationsTruncated: boolean } {
  const ids = idsByName(db, names);
  const notFound = [...new Set(names)].filter((n) => !ids.has(n));
  const idList = [...new Set(names)].flatMap((n) => (ids.has(n) ? [ids.get(n) as number] : []));
  const rows: EntityRow[] = [];
  for (const id of idList.sort((a, b) => a - b)) {
    const row = db.one<EntityRow>("SELECT id, name, entity_type FROM entities WHERE id = ?", id);
    if (row) rows.push(row);
  }
  const relations = relationsTouching(db, idList, OPEN_NODES_MAX_RELATIONS);
  const relationsTruncated = relations.length > OPEN_NODES_MAX_RELATIONS;
  return {
    entities: withObservations(db, rows),
    relations: relations.slice(0, OPEN_NODES_MAX_RELATIONS),
    notFound,
    relationsTruncated,
  };
}

export type GraphCounts = { entities: number; relations: number; observations: number };

/** Counts for stats and for deciding whether read_graph must page. */
export function graphCounts(db: Db): GraphCounts {
  const row = db.one<{ e: number; r: number; o: number }>(
    `SELECT (SELECT COUNT(*) FROM entities) AS e, (SELECT COUNT(*) FROM relations) AS r,
            (SELECT COUNT(*) FROM observations) AS o`,
  );
  return { entities: row?.e ?? 0, relations: row?.r ?? 0, observations: row?.o ?? 0 };
}
