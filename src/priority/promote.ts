/**
 * Cluster promotion: an item whose cluster reached SEMANTIC_CLUSTER_THRESHOLD
 * goes to long term (src/priority/model.ts) whenever its cluster changes, not
 * only when it is read.
 *
 * - `refreshClusters` re-counts the clusters of the given items (./cluster.ts)
 *   and writes their cluster_size and tier where they changed. The runner
 *   hands it both ends of every relation a write call created or deleted
 *   (create_relations, delete_relations, delete_entities, import, undo,
 *   restore, pruning: `relationEnds` picks them from the ops the call noted),
 *   so relating a few items promotes them in the same transaction; a bulk
 *   write's ends wait for the alarm instead (./queue.ts).
 * - `promoteClustered` is the evaluation's pass over the short and mid tiers
 *   before it counts tier use: co-visitation grows during reads, which
 *   refresh only what they return. It refreshes at most
 *   CLUSTER_REFRESH_PER_RUN items per run, in key order, continuing where the
 *   previous run stopped (priority_state "cluster_refresh"), so each run is
 *   bounded and every item is reached in turn.
 */
import type { Db } from "../storage/sql";
import { clusterSizes, entityClusters, type EntityCluster } from "./cluster";
import { ITEM_KINDS, ITEM_TABLES, byKind, itemKey, type ItemKind, type ItemRef } from "../items";
import { tierFor, type ModelOptions, type Tier } from "./model";
import { readState, writeState } from "./state";

/** Items the evaluation's promotion pass refreshes per run at most. */
const CLUSTER_REFRESH_PER_RUN = 1000;
const PAGE = 100;
/** Rows per UPDATE: the changes travel as one JSON parameter, well under the statement limit. */
const UPDATES_PER_STATEMENT = 1000;

interface TierRow extends Record<string, SqlStorageValue> {
  k: string;
  access_count: number;
  important: number;
  tier: string;
  cluster_size: number;
}

/** Re-counts the clusters of `refs` and writes cluster_size and tier where they changed; returns the sizes by key. */
export function refreshClusters(db: Db, refs: readonly ItemRef[], model: ModelOptions): Map<string, number> {
  if (refs.length === 0) return new Map();
  const entities = refs.filter((r) => r.kind === "entity");
  const sizes = applyEntityClusters(
    db,
    entityClusters(
      db,
      entities.map((r) => r.name),
    ),
    model,
  );
  if (entities.length === refs.length) return sizes;
  const others = refs.filter((r) => r.kind !== "entity");
  for (const [key, size] of clusterSizes(db, others)) sizes.set(key, size);
  for (const [kind, ofKind] of byKind(others)) {
    const { table, keyColumn } = ITEM_TABLES[kind];
    const names = [...new Set(ofKind.map((r) => r.name))];
    for (let i = 0; i < names.length; i += PAGE) {
      const rows = db.all<TierRow>(
        `SELECT ${keyColumn} AS k, access_count, important, tier, cluster_size FROM ${table}
         WHERE ${keyColumn} IN (SELECT value FROM json_each(?))`,
        JSON.stringify(names.slice(i, i + PAGE)),
      );
      const updates: [string, number, Tier][] = [];
      for (const r of rows) {
        const size = sizes.get(`${kind}:${r.k}`) ?? r.cluster_size;
        const tier = tierFor(
          {
            accessCount: r.access_count,
            important: r.important === 1,
            tier: r.tier,
            clusterSize: size,
          },
          model,
        );
        if (size !== r.cluster_size || tier !== r.tier) updates.push([r.k, size, tier]);
      }
      if (updates.length === 0) continue;
      db.run(
        `UPDATE ${table} SET cluster_size = j.value ->> 1, tier = j.value ->> 2
         FROM json_each(?) AS j WHERE ${table}.${keyColumn} = j.value ->> 0`,
        JSON.stringify(updates),
      );
    }
  }
  return sizes;
}

/**
 * Writes counted entity clusters (./cluster.ts entityClusters, or
 * entityClustersById for the alarm's queue) and the tier they give, by id:
 * their rows come with the count, so an entity is looked up once, not again
 * by name to update it (bench/profile-write.mjs shows what a create_relations
 * batch spends). Returns the sizes by key.
 */
export function applyEntityClusters(db: Db, clusters: readonly EntityCluster[], model: ModelOptions): Map<string, number> {
  const sizes = new Map<string, number>();
  // Most refreshes change a size and keep the tier; setting tier at all rewrites the row's entry in
  // entities_by_tier_category, so those rows set cluster_size alone.
  const resized: [number, number][] = [];
  const retiered: [number, number, Tier][] = [];
  for (const c of clusters) {
    sizes.set(itemKey.entity(c.name), c.size);
    const tier = tierFor({ accessCount: c.accessCount, important: c.important, tier: c.tier, clusterSize: c.size }, model);
    if (tier !== c.tier) retiered.push([c.id, c.size, tier]);
    else if (c.size !== c.storedSize) resized.push([c.id, c.size]);
  }
  for (let i = 0; i < resized.length; i += UPDATES_PER_STATEMENT) {
    db.run(
      "UPDATE entities SET cluster_size = j.value ->> 1 FROM json_each(?) AS j WHERE entities.id = j.value ->> 0",
      JSON.stringify(resized.slice(i, i + UPDATES_PER_STATEMENT)),
    );
  }
  for (let i = 0; i < retiered.length; i += UPDATES_PER_STATEMENT) {
    db.run(
      `UPDATE entities SET cluster_size = j.value ->> 1, tier = j.value ->> 2
       FROM json_each(?) AS j WHERE entities.id = j.value ->> 0`,
      JSON.stringify(retiered.slice(i, i + UPDATES_PER_STATEMENT)),
    );
  }
  return sizes;
}

type Cursor = { kind: ItemKind; after: string };

/**
 * Refreshes the clusters of up to `budget` items in `tiers` (short and mid;
 * long is where a cluster promotes to), from where the last pass stopped.
 * Returns how many items it looked at.
 */
export function promoteClustered(db: Db, tiers: readonly Tier[], model: ModelOptions, budget = CLUSTER_REFRESH_PER_RUN): number {
  const wanted = tiers.filter((t) => t !== "long");
  if (wanted.length === 0) return 0;
  const saved = readState<Cursor>(db, "cluster_refresh");
  let kindIndex = Math.max(0, saved ? ITEM_KINDS.indexOf(saved.kind) : 0);
  let after = saved?.after ?? "";
  let seen = 0;
  // At most one full round: every kind once, then back to where it began.
  for (let turns = 0; seen < budget && turns <= ITEM_KINDS.length; ) {
    const kind = ITEM_KINDS[kindIndex] as ItemKind;
    const { table, keyColumn } = ITEM_TABLES[kind];
    const names = db
      .all<{ k: string }>(
        `SELECT ${keyColumn} AS k FROM ${table} WHERE ${keyColumn} > ? AND tier IN (SELECT value FROM json_each(?))
         ORDER BY ${keyColumn} LIMIT ?`,
        after,
        JSON.stringify(wanted),
        Math.min(PAGE, budget - seen),
      )
      .map((r) => String(r.k));
    if (names.length > 0) {
      refreshClusters(
        db,
        names.map((name) => ({ key: `${kind}:${name}`, kind, name })),
        model,
      );
      seen += names.length;
      after = names[names.length - 1] as string;
      continue;
    }
    kindIndex = (kindIndex + 1) % ITEM_KINDS.length;
    after = "";
    turns++;
  }
  writeState(db, "cluster_refresh", { kind: ITEM_KINDS[kindIndex] as ItemKind, after } satisfies Cursor);
  return seen;
}
