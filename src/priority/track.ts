/**
 * Access tracking: what a retrieval does to the items it returned. Called by
 * the access hook (src/context/access.ts) once per call, inside the call's
 * transaction, with every item the call returned to the agent.
 *
 * Per retrieved item (entity, file or document), once per call:
 *   access_count     += 1
 *   uses             += ACCESS_WEIGHTS[weight]      (direct 1, search 0.25)
 *   last_accessed_at  = now
 *   base_relevance    = min(RELEVANCE_CAP, base_relevance + RELEVANCE_STEP × weight)
 *   cluster_size      = clusterSizes() now (relations and co-visitation), on a
 *                       direct retrieval only (see Cost)
 *   tier              = tierFor(the row after the above)
 * An item returned twice in one call (opened and found) counts once, at its
 * heaviest weight. Writes are not retrievals and never come here.
 *
 * ## Cost
 * Batched per call: one UPDATE per kind, weight and chunk of 90 keys (the
 * keys and cluster sizes travel as one JSON parameter), RETURNING what the
 * tier needs; a second UPDATE only for the rows whose tier moves, which is
 * rare (first retrieval, promotion). Items that no longer exist are skipped.
 * Counting an item's cluster (./cluster.ts) costs one statement per item
 * (index ranges of at most CLUSTER_COUNT_CAP rows per source), more than
 * the rest of the tracking together; search_nodes returns up to 50
 * entities on every query, so a search hit keeps the stored cluster size,
 * which the next direct retrieval (open_nodes, view, read_document), a write
 * that relates the item (./promote.ts) or the evaluation refreshes.
 */
import { chunksFor, type Db } from "../storage/sql";
import { clusterSizes } from "./cluster";
import { ITEM_TABLES, byKind, itemRef, type ItemRef } from "../items";
import { ACCESS_WEIGHTS, DEFAULT_MODEL, RELEVANCE_CAP, RELEVANCE_STEP, tierFor, type AccessWeightKind, type ModelOptions } from "./model";

export interface Retrieval {
  /** `entity:<name>`, `file:<path>` or `doc:<id>`. */
  item: string;
  weight: AccessWeightKind;
}

/** Keys per UPDATE: the statement binds a handful of scalars and one JSON array. */
const KEYS_PER_UPDATE = 90;

interface Returned extends Record<string, SqlStorageValue> {
  k: string;
  access_count: number;
  important: number;
  tier: string;
  cluster_size: number;
}

/**
 * Cluster sizes, or undefined when the association index cannot be read:
 * a retrieval must still answer (as co-visitation's own failures do), so the
 * stored sizes stay until the next access or evaluation refreshes them.
 */
function safeClusterSizes(db: Db, refs: readonly ItemRef[]): Map<string, number> | undefined {
  if (refs.length === 0) return new Map();
  try {
    return clusterSizes(db, refs);
  } catch (error) {
    console.error(JSON.stringify({ event: "priority_cluster_failed", error: String(error) }));
    return undefined;
  }
}

/** Records one call's retrievals; returns how many item rows were updated. */
export function trackRetrievals(db: Db, retrievals: readonly Retrieval[], now: number, model: ModelOptions = DEFAULT_MODEL): number {
  const heaviest = new Map<string, AccessWeightKind>();
  for (const r of retrievals) {
    const prev = heaviest.get(r.item);
    if (prev === undefined || ACCESS_WEIGHTS[r.weight] > ACCESS_WEIGHTS[prev]) heaviest.set(r.item, r.weight);
  }
  const refs = [...heaviest.keys()].flatMap((k) => itemRef(k) ?? []);
  if (refs.length === 0) return 0;
  const clusters = safeClusterSizes(
    db,
    refs.filter((r) => heaviest.get(r.key) === "direct"),
  );
  let updated = 0;
  for (const [kind, ofKind] of byKind(refs)) {
    const { table, keyColumn } = ITEM_TABLES[kind];
    const moves = new Map<string, string[]>();
    for (const weight of Object.keys(ACCESS_WEIGHTS) as AccessWeightKind[]) {
      const group = ofKind.filter((r) => heaviest.get(r.key) === weight);
      const w = ACCESS_WEIGHTS[weight];
      for (const chunk of chunksFor(group, 1, 100 - KEYS_PER_UPDATE)) {
        const rows = db.all<Returned>(
          `UPDATE ${table} SET access_count = access_count + 1, uses = uses + ?1, last_accessed_at = ?2,
             base_relevance = min(?3, base_relevance + ?4), cluster_size = coalesce(j.value ->> 1, cluster_size)
           FROM json_each(?5) AS j WHERE ${table}.${keyColumn} = j.value ->> 0
           RETURNING ${keyColumn} AS k, access_count, important, tier, cluster_size`,
          w,
          now,
          RELEVANCE_CAP,
          RELEVANCE_STEP * w,
          JSON.stringify(chunk.map((r: ItemRef) => [r.name, clusters?.get(r.key) ?? null])),
        );
        updated += rows.length;
        for (const row of rows) {
          const next = tierFor(
            {
              accessCount: row.access_count,
              important: row.important === 1,
              tier: row.tier,
              clusterSize: row.cluster_size,
            },
            model,
          );
          if (next !== row.tier) moves.set(next, [...(moves.get(next) ?? []), row.k]);
        }
      }
    }
    for (const [tier, names] of moves) {
      for (const chunk of chunksFor(names, 1, 1)) {
        db.run(`UPDATE ${table} SET tier = ? WHERE ${keyColumn} IN (SELECT value FROM json_each(?))`, tier, JSON.stringify(chunk));
      }
    }
  }
  return updated;
}
