/**
 * Reading entities and relations out of SQL rows. Shared by every reader of
 * the graph (open_nodes, read_graph, search, export) so they all return the
 * same shapes in the same order: entities and observations in insertion order.
 */
import { chunksFor, jsonBatches, placeholders, sqlLimit, type Db } from "../storage/sql";
import type { Entity, Relation } from "./types";

export interface EntityRow extends Record<string, SqlStorageValue> {
  id: number;
  name: string;
  entity_type: string;
}

export interface RelationRow extends Record<string, SqlStorageValue> {
  id: number;
  from_name: string;
  to_name: string;
  relation_type: string;
}

/** EntityRow's columns, for Db.packed. */
export const ENTITY_COLUMNS = ["id", "name", "entity_type"] as const;

export const RELATION_SELECT = `SELECT r.id, f.name AS from_name, t.name AS to_name, r.relation_type
  FROM relations r JOIN entities f ON f.id = r.from_id JOIN entities t ON t.id = r.to_id`;

export const toRelation = (r: RelationRow): Relation => ({
  from: r.from_name,
  to: r.to_name,
  relationType: r.relation_type,
});

/** A relation as messages and summaries write it: "Alice -knows-> Bob". */
export const relationLabel = (r: Relation): string => `${r.from} -${r.relationType}-> ${r.to}`;

/** Attaches observations to entity rows, keeping the rows' order. */
export function withObservations(db: Db, rows: readonly EntityRow[]): Entity[] {
  const byId = new Map<number, Entity>();
  for (const r of rows) byId.set(r.id, { name: r.name, entityType: r.entity_type, observations: [] });
  for (const chunk of chunksFor(rows.map((r) => r.id))) {
    const obs = db.all<{ entity_id: number; content: string }>(
      `SELECT entity_id, content FROM observations WHERE entity_id IN (${placeholders(chunk.length)}) ORDER BY id`,
      ...chunk,
    );
    for (const o of obs) byId.get(o.entity_id)?.observations.push(o.content);
  }
  return rows.map((r) => byId.get(r.id) as Entity);
}

/** Looks up entity ids by name; names that do not exist are absent from the map. */
export function idsByName(db: Db, names: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  const unique = [...new Set(names)];
  // One statement per JSON batch (a create_relations of 1,000 relations names up to 2,000), not one per 100 bound names.
  for (const batch of jsonBatches(unique)) {
    const rows = db.all<{ id: number; name: string }>("SELECT id, name FROM entities WHERE name IN (SELECT value FROM json_each(?))", batch);
    for (const r of rows) out.set(r.name, r.id);
  }
  return out;
}

/** Relations with either end among `ids`, deduplicated, in insertion order: at most `limit + 1`, so the caller can tell when there were more. */
export function relationsTouching(db: Db, ids: readonly number[], limit: number): Relation[] {
  const seen = new Map<number, RelationRow>();
  // Each id is bound twice; the LIMIT is a literal (sql.ts sqlLimit).
  for (const chunk of chunksFor(ids, 2)) {
    const ph = placeholders(chunk.length);
    const rows = db.all<RelationRow>(
      `${RELATION_SELECT} WHERE r.from_id IN (${ph}) OR r.to_id IN (${ph}) ORDER BY r.id LIMIT ${sqlLimit(limit + 1)}`,
      ...chunk,
      ...chunk,
    );
    for (const r of rows) seen.set(r.id, r);
  }
  return [...seen.values()]
    .sort((a, b) => a.id - b.id)
    .slice(0, limit + 1)
    .map(toRelation);
}
