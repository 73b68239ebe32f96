/**
 * An item's cluster: the distinct items related to it, by relations (an
 * entity's neighbours either way) and by co-visitation (items used together
 * with it in at least MIN_COVISITS sessions). Its size feeds the priority's
 * cluster bonus and the promotion to long term (src/priority/model.ts).
 *
 * ## Bounded per item
 * The model only asks whether a cluster reaches SEMANTIC_CLUSTER_THRESHOLD,
 * so a size is exact up to CLUSTER_COUNT_CAP (64) and CLUSTER_COUNT_CAP for
 * anything larger. Each item is counted on its own, with one statement of
 * index ranges each capped at CLUSTER_COUNT_CAP rows: the relations'
 * UNIQUE (from_id, to_id, relation_type) index one way, search_relations_by_to
 * (to_id, from_id) the other, covisit_pairs' primary key (item, other) for
 * co-visitation. So a hub with thousands of relations costs at most
 * 3 × CLUSTER_COUNT_CAP rows, and never crowds out another item of the same
 * call. (Each source's distinct rows are capped separately; if one source is
 * cut off it alone holds CLUSTER_COUNT_CAP items, so the union is still
 * exact up to the cap.)
 */
import type { Db } from "../context/sql";
import type { ItemRef } from "./items";

/** A co-visit pair counts as a relation once seen in this many sessions. */
export const MIN_COVISITS = 2;
/** Cluster sizes are exact up to this, and this for larger clusters (well above any sensible SEMANTIC_CLUSTER_THRESHOLD). */
export const CLUSTER_COUNT_CAP = 64;

/** One entity's neighbours by relation (names, capped per direction) and its co-visited items (keys, capped). */
const ENTITY_CLUSTER = `
  SELECT 'entity:' || o.name AS other FROM (
    SELECT DISTINCT r.to_id AS id FROM relations r
    WHERE r.from_id = (SELECT id FROM entities WHERE name = ?1) AND r.to_id != r.from_id LIMIT ?3
  ) x JOIN entities o ON o.id = x.id
  UNION ALL
  SELECT 'entity:' || o.name FROM (
    SELECT DISTINCT r.from_id AS id FROM relations r
    WHERE r.to_id = (SELECT id FROM entities WHERE name = ?1) AND r.to_id != r.from_id LIMIT ?3
  ) y JOIN entities o ON o.id = y.id
  UNION ALL
  SELECT other FROM (SELECT other FROM covisit_pairs WHERE item = ?2 AND count >= ?4 LIMIT ?3)`;

const COVISIT_CLUSTER = "SELECT other FROM covisit_pairs WHERE item = ?1 AND count >= ?3 LIMIT ?2";

/** The cluster size of each item in `refs`, by key (at most CLUSTER_COUNT_CAP). */
export function clusterSizes(db: Db, refs: readonly ItemRef[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const ref of refs) {
    if (out.has(ref.key)) continue;
    const rows =
      ref.kind === "entity"
        ? db.all<{ other: string }>(ENTITY_CLUSTER, ref.name, ref.key, CLUSTER_COUNT_CAP, MIN_COVISITS)
        : db.all<{ other: string }>(COVISIT_CLUSTER, ref.key, CLUSTER_COUNT_CAP, MIN_COVISITS);
    const related = new Set(rows.map((r) => r.other));
    related.delete(ref.key);
    out.set(ref.key, Math.min(related.size, CLUSTER_COUNT_CAP));
  }
  return out;
}
