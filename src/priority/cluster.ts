/**
 * An item's cluster: the distinct items related to it, by relations (an
 * entity's neighbours either way) and by co-visitation (items used together
 * with it in at least MIN_COVISITS sessions). Its size feeds the priority's
 * cluster bonus and the promotion to long term (src/priority/model.ts).
 *
 * ## Bounded per item
 * The model only asks whether a cluster reaches SEMANTIC_CLUSTER_THRESHOLD,
 * so a size is exact up to CLUSTER_COUNT_CAP (64) and CLUSTER_COUNT_CAP for
 * anything larger. Each item is counted on its own, by correlated
 * subqueries over index ranges each capped at CLUSTER_COUNT_CAP rows: the
 * relations' UNIQUE (from_id, to_id, relation_type) index one way,
 * search_relations_by_to (to_id, from_id) the other, covisit_pairs' primary
 * key (item, other) for co-visitation; up to 100 items per statement. So a hub with thousands of relations costs at most
 * 3 × CLUSTER_COUNT_CAP rows, and never crowds out another item of the same
 * call. (Each source's distinct rows are capped separately; if one source is
 * cut off it alone holds CLUSTER_COUNT_CAP items, so the union is still
 * exact up to the cap.)
 */
import type { Db } from "../storage/sql";
import type { ItemRef } from "../items";

/** A co-visit pair counts as a relation once seen in this many sessions. */
const MIN_COVISITS = 2;
/** Cluster sizes are exact up to this, and this for larger clusters (well above any sensible SEMANTIC_CLUSTER_THRESHOLD). */
export const CLUSTER_COUNT_CAP = 64;

/** Items per statement: the keys travel as one JSON parameter. */
const ITEMS_PER_STATEMENT = 100;

/**
 * Per entity (by name or by id, from ?1's JSON array): its id, its tier columns and
 * its cluster size, counted in SQLite: the distinct union of its neighbours'
 * ids by relation, capped per direction, and its co-visited items, capped,
 * a co-visited entity's key turned into its id (so an entity both related and
 * co-visited counts once), itself left out. Correlated subqueries, so each
 * entity's LIMIT applies to it alone. Neighbours are counted by id (a name
 * would cost a row read per relation end) and in SQLite (counting in
 * JavaScript would first carry every id out as JSON).
 * Ids are integers and other keys text, so the UNION never confuses them.
 */
const entityClustersBy = (key: "name" | "id") => `
  SELECT e.name AS k, e.id AS id, e.access_count, e.important, e.tier, e.cluster_size,
    (SELECT count(*) FROM (
       SELECT x.id AS m FROM (
         SELECT DISTINCT r.to_id AS id FROM relations r WHERE r.from_id = e.id AND r.to_id != e.id LIMIT ?3
       ) x
       UNION
       SELECT y.id FROM (
         SELECT DISTINCT r.from_id AS id FROM relations r WHERE r.to_id = e.id AND r.from_id != e.id LIMIT ?3
       ) y
       UNION
       SELECT coalesce(ce.id, c.other) FROM (
         SELECT other FROM covisit_pairs WHERE item = 'entity:' || e.name AND count >= ?2 LIMIT ?3
       ) c LEFT JOIN entities ce ON substr(c.other, 1, 7) = 'entity:' AND ce.name = substr(c.other, 8)
     ) WHERE m IS NOT e.id) AS size
  FROM json_each(?1) AS j JOIN entities e ON e.${key} = j.value`;
const ENTITY_CLUSTERS = { name: entityClustersBy("name"), id: entityClustersBy("id") };

/** Per item key (from ?1's JSON array): its co-visited items, capped, as a JSON array. */
const ITEM_CLUSTERS = `
  SELECT j.value AS k, '[]' AS outs, '[]' AS ins,
    (SELECT json_group_array(other) FROM (
       SELECT other FROM covisit_pairs WHERE item = j.value AND count >= ?2 LIMIT ?3
     )) AS cov
  FROM json_each(?1) AS j`;

interface ClusterRow extends Record<string, SqlStorageValue> {
  k: string;
  outs: string;
  ins: string;
  cov: string;
}

interface EntityClusterRow extends Record<string, SqlStorageValue> {
  k: string;
  id: number;
  access_count: number;
  important: number;
  tier: string;
  cluster_size: number;
  size: number;
}

/**
 * An entity's cluster size with what decides its tier, read in the same
 * statement as the count (the row is fetched for the count anyway), so a
 * refresh (./promote.ts) needs no second lookup by name and writes by id.
 */
export interface EntityCluster {
  name: string;
  id: number;
  size: number;
  accessCount: number;
  important: boolean;
  tier: string;
  /** The size stored now. */
  storedSize: number;
}

const ENTITY_PREFIX = "entity:";

/** The cluster size of each item in `refs`, by key (at most CLUSTER_COUNT_CAP); an entity that does not exist is left out. */
export function clusterSizes(db: Db, refs: readonly ItemRef[]): Map<string, number> {
  const out = new Map<string, number>();
  const entities = refs.filter((r) => r.kind === "entity").map((r) => r.name);
  for (const c of entityClusters(db, entities)) out.set(`${ENTITY_PREFIX}${c.name}`, c.size);
  const others = [...new Set(refs.filter((r) => r.kind !== "entity").map((r) => r.key))];
  for (let i = 0; i < others.length; i += ITEMS_PER_STATEMENT) {
    const rows = db.all<ClusterRow>(ITEM_CLUSTERS, JSON.stringify(others.slice(i, i + ITEMS_PER_STATEMENT)), MIN_COVISITS, CLUSTER_COUNT_CAP);
    for (const row of rows) {
      const related = new Set<string>(JSON.parse(row.cov) as string[]);
      related.delete(row.k);
      out.set(row.k, Math.min(related.size, CLUSTER_COUNT_CAP));
    }
  }
  return out;
}

/** The clusters of the entities named (each once; a name with no entity is left out). */
export function entityClusters(db: Db, names: readonly string[]): EntityCluster[] {
  return countEntityClusters(db, "name", [...new Set(names)]);
}

/** The clusters of the entities with these ids (each once; an id with no entity is left out), in the order given. */
export function entityClustersById(db: Db, ids: readonly number[]): EntityCluster[] {
  return countEntityClusters(db, "id", [...new Set(ids)]);
}

function countEntityClusters(db: Db, by: "name" | "id", keys: readonly (string | number)[]): EntityCluster[] {
  const out: EntityCluster[] = [];
  for (let i = 0; i < keys.length; i += ITEMS_PER_STATEMENT) {
    const rows = db.all<EntityClusterRow>(ENTITY_CLUSTERS[by], JSON.stringify(keys.slice(i, i + ITEMS_PER_STATEMENT)), MIN_COVISITS, CLUSTER_COUNT_CAP);
    for (const row of rows) {
      out.push({
        name: row.k,
        id: row.id,
        size: Math.min(row.size, CLUSTER_COUNT_CAP),
        accessCount: row.access_count,
        important: row.important === 1,
        tier: row.tier,
        storedSize: row.cluster_size,
      });
    }
  }
  return out;
}
