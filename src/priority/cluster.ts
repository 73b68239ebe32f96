/**
 * An item's cluster: the distinct items related to it, by relations (an
 * entity's neighbours either way) and by co-visitation (items used together
 * with it in at least MIN_COVISITS sessions). Its size feeds the priority's
 * cluster bonus and the promotion to long term (src/priority/model.ts).
 *
 * Reads only indexed rows of the items asked about, never the whole graph.
 */
import { chunksFor, placeholders, type Db } from "../context/sql";
import type { ItemRef } from "./items";

/** A co-visit pair counts as a relation once seen in this many sessions. */
export const MIN_COVISITS = 2;
/** Counting stops here: the model only asks whether a cluster reaches its threshold. */
const COUNT_CAP = 1000;

/** The cluster size of each item in `refs`, by key. */
export function clusterSizes(db: Db, refs: readonly ItemRef[]): Map<string, number> {
  const related = new Map<string, Set<string>>(refs.map((r) => [r.key, new Set<string>()]));
  const keys = [...related.keys()];
  for (const chunk of chunksFor(keys, 1, 2)) {
    const rows = db.all<{ item: string; other: string }>(
      `SELECT item, other FROM (
         SELECT item, other, row_number() OVER (PARTITION BY item) AS n FROM covisit_pairs
         WHERE item IN (${placeholders(chunk.length)}) AND count >= ?
       ) WHERE n <= ?`,
      ...chunk,
      MIN_COVISITS,
      COUNT_CAP,
    );
    for (const r of rows) related.get(r.item)?.add(r.other);
  }
  const entities = refs.filter((r) => r.kind === "entity").map((r) => r.name);
  for (const chunk of chunksFor([...new Set(entities)], 2, 1)) {
    const rows = db.all<{ name: string; other: string }>(
      `SELECT e.name AS name, o.name AS other FROM entities e JOIN relations r ON r.from_id = e.id JOIN entities o ON o.id = r.to_id
         WHERE e.name IN (${placeholders(chunk.length)})
       UNION
       SELECT e.name AS name, o.name AS other FROM entities e JOIN relations r ON r.to_id = e.id JOIN entities o ON o.id = r.from_id
         WHERE e.name IN (${placeholders(chunk.length)})
       LIMIT ?`,
      ...chunk,
      ...chunk,
      COUNT_CAP * chunk.length,
    );
    for (const r of rows) if (r.other !== r.name) related.get(`entity:${r.name}`)?.add(`entity:${r.other}`);
  }
  return new Map([...related].map(([k, s]) => [k, Math.min(s.size, COUNT_CAP)]));
}
