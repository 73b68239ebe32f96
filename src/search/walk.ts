/**
 * Steiner-tree approximation over the relation graph: connects the entry
 * nodes with short paths, walking the graph with indexed SQL one frontier at
 * a time (relations by from_id and by to_id, both directions), never loading
 * the graph.
 *
 * ## Method
 * One breadth-first search grows from all entry nodes at once; every reached
 * node remembers the nearest entry node and its parent (a Voronoi partition of
 * the graph around the entries, as in Mehlhorn's 2-approximation). A relation
 * between two regions joins their entries with a path of length
 * d(u) + 1 + d(v); for each pair of entries the shortest such path of at most
 * `maxPathLength` hops is kept. Regions only need to grow ceil(L / 2) levels
 * for paths of length L to meet, which keeps the walk small.
 *
 * ## Bounds
 * At most MAX_WALK_EDGES relations are used per search (each level's
 * statement reads up to the next power of two of what is left, so that its
 * LIMIT takes few values: sql.ts sqlLimit); a hub whose relations exceed
 * what is left stops the walk there, and the paths found so far stand.
 * The last level of an odd `maxPathLength` (the default 5) reads only the
 * relations that close a path (bridgesWithin): at 100,000 entities most walks
 * reach a hub by then, and materialising its thousands of relations would be
 * most of a search's time. Every relation of a node nearer than the frontier was
 * read when that node was expanded, so only relations with both ends on the
 * frontier are new there. SQLite scans the relations of the frontier's
 * ordinary nodes and returns only those whose other end is on the frontier;
 * a hub's (degree above HUB_DEGREE) relations to them are found from their
 * side, and relations between two hubs by one index seek per pair, so a hub
 * on the frontier costs a lookup, not a scan of its thousands of relations
 * (unless it has few next to the seeks a scan would replace: bridgesWithin).
 */
import { roundUp, sqlLimit, type Db } from "../storage/sql";
import { ENTITY_COLUMNS, RELATION_SELECT, type EntityRow, type RelationRow } from "../graph/rows";

/** Relations read per search at most, whatever the graph's size and shape. */
export const MAX_WALK_EDGES = 5_000;

interface Reached {
  source: number;
  depth: number;
  parent: number | undefined;
}

export interface Path {
  /** Entity ids from one entry node to another. */
  nodes: number[];
}

/** A relation read by the walk, as [the end already reached, the other end]. */
type Edge = [a: number, b: number];

/** Every relation of the frontier's nodes, both directions, at most `limit` (read up to the next power of two: sql.ts sqlLimit). */
function neighbours(db: Db, frontier: readonly number[], limit: number): Edge[] {
  return db
    .tuples<Edge>(
      ["a", "b"],
      `SELECT from_id AS a, to_id AS b FROM relations WHERE from_id IN (SELECT value FROM json_each(?1))
       UNION ALL
       SELECT to_id AS a, from_id AS b FROM relations WHERE to_id IN (SELECT value FROM json_each(?1))
       LIMIT ${sqlLimit(roundUp(limit))}`,
      [JSON.stringify(frontier)],
    )
    .slice(0, limit);
}

/** A frontier node with more relations than this is a hub: bridgesWithin seeks its relations instead of scanning them. */
export const HUB_DEGREE = 64;
/** Hubs on one frontier handled by pairwise seeks at most; with more, all of them are scanned like ordinary nodes. */
export const MAX_HUBS = 32;

/** Hubs read whole from the partial index (migrations/0010_search_hubs.sql) when there are at most this many. */
const HUB_LIST_MAX = 1000;

/** A hub on the frontier and its number of relations. */
type Hub = [id: number, degree: number];

/**
 * The hubs in `frontier`, at most MAX_HUBS + 1 (more means too many). A
 * graph with few hubs has them read whole from their partial index and
 * matched here: one short scan, where looking up each frontier node's
 * degree would take a primary-key seek per node, and frontiers hold
 * thousands of nodes in a large graph. A graph with more hubs than
 * `listMax` has them looked up per frontier node.
 */
function hubsOn(db: Db, frontier: readonly number[], listMax: number): Hub[] {
  const all = db.tuples<Hub>(
    ["id", "degree"],
    `SELECT entity_id AS id, degree FROM search_entity_stats WHERE degree > ${HUB_DEGREE} LIMIT ${sqlLimit(listMax + 1)}`,
  );
  if (all.length <= listMax) {
    const onFrontier = new Set(frontier);
    return all.filter(([id]) => onFrontier.has(id)).slice(0, MAX_HUBS + 1);
  }
  return db.tuples<Hub>(
    ["id", "degree"],
    `SELECT s.entity_id AS id, s.degree FROM json_each(?1) f JOIN search_entity_stats s ON s.entity_id = f.value
     WHERE s.degree > ${HUB_DEGREE} LIMIT ${sqlLimit(MAX_HUBS + 1)}`,
    [JSON.stringify(frontier)],
  );
}

/**
 * Index entries a scan reads in the time of one seek, roughly (Node's
 * SQLite at 100,000 entities): a hub is scanned rather than sought pair by
 * pair when its relations number at most this many times the seeks.
 */
const SCAN_PER_SEEK = 8;

/**
 * Relations with both ends in `frontier` and in different regions (`sourceOf`
 * names a node's region), in either direction; some within a region come
 * back too, and a relation may come back twice. Ordinary nodes' relations are
 * scanned in the covering indexes and tested against the frontier (the unary
 * + keeps it a test, not a second lookup per pair); a hub is never scanned:
 * its relations to ordinary nodes come from their side, and those between
 * hubs from a seek per pair of hubs (the from_id, to_id index), first, so a
 * budget cut falls on the scans.
 *
 * A relation between two regions needs only one of its ends scanned, so the
 * region with the most ordinary nodes is not scanned when the hubs outside
 * it can be covered another way: the hubs outside with the fewest relations
 * are scanned while their relations together number at most SCAN_PER_SEEK
 * times the seeks the skipped region saves (two per ordinary node in it, both
 * directions), and at most one hub is left, whose relations into the region
 * come from a seek per pair, which costs no more than the scan it replaces.
 * At 100,000 entities the largest region often holds most of the frontier,
 * and the frontier often holds a dozen or more hubs spread over the regions.
 * When the budget cuts this level short, the relations found are whichever
 * came first.
 */
function bridgesWithin(db: Db, frontier: readonly number[], sourceOf: (id: number) => number, limit: number, hubListMax: number): Edge[] {
  const hubs = hubsOn(db, frontier, hubListMax);
  // Too many hubs for pairwise seeks (a dense graph): scan them all, as ordinary nodes.
  const seek = hubs.length <= MAX_HUBS ? new Set(hubs.map(([id]) => id)) : new Set<number>();
  const ordinary = frontier.filter((id) => !seek.has(id));
  const counts = new Map<number, number>();
  for (const id of ordinary) {
    const source = sourceOf(id);
    counts.set(source, (counts.get(source) ?? 0) + 1);
  }
  let largest: number | undefined;
  for (const [source, n] of counts) if (largest === undefined || n > (counts.get(largest) as number)) largest = source;
  const inLargest = largest === undefined ? 0 : (counts.get(largest) as number);
  // The hubs outside the largest region, fewest relations first: scanned while their relations fit in what
  // skipping the region saves; a hub left over is sought pair by pair, and with two left the region is scanned.
  const outside = hubs.filter(([id]) => seek.has(id) && sourceOf(id) !== largest).sort((a, b) => a[1] - b[1]);
  const scanHubs: number[] = [];
  let allowance = SCAN_PER_SEEK * 2 * inLargest;
  for (const [id, degree] of outside) {
    if (degree > allowance) break;
    scanHubs.push(id);
    allowance -= degree;
  }
  const seekHubs = outside.slice(scanHubs.length).map(([id]) => id);
  const skip = largest !== undefined && seekHubs.length <= 1;
  const scanned = skip ? [...ordinary.filter((id) => sourceOf(id) !== largest), ...scanHubs] : ordinary;
  const partners = skip ? ordinary.filter((id) => sourceOf(id) === largest) : [];
  const pairSeekHubs = skip ? seekHubs : [];
  return db
    .tuples<Edge>(
      ["a", "b"],
      `SELECT r.from_id AS a, r.to_id AS b FROM json_each(?3) h1 CROSS JOIN json_each(?3) h2 CROSS JOIN relations r
       ON r.from_id = h1.value AND r.to_id = h2.value
     UNION ALL
     SELECT r.from_id AS a, r.to_id AS b FROM json_each(?4) h CROSS JOIN json_each(?5) o CROSS JOIN relations r
       ON r.from_id = h.value AND r.to_id = o.value
     UNION ALL
     SELECT r.from_id AS a, r.to_id AS b FROM json_each(?5) o CROSS JOIN json_each(?4) h CROSS JOIN relations r
       ON r.from_id = o.value AND r.to_id = h.value
     UNION ALL
     SELECT r.from_id AS a, r.to_id AS b FROM json_each(?1) f JOIN relations r ON r.from_id = f.value
     WHERE +r.to_id IN (SELECT value FROM json_each(?2))
     UNION ALL
     SELECT r.to_id AS a, r.from_id AS b FROM json_each(?1) f JOIN relations r ON r.to_id = f.value
     WHERE +r.from_id IN (SELECT value FROM json_each(?2))
     LIMIT ${sqlLimit(roundUp(limit))}`,
      [JSON.stringify(scanned), JSON.stringify(frontier), JSON.stringify([...seek]), JSON.stringify(pairSeekHubs), JSON.stringify(partners)],
    )
    .slice(0, limit);
}

function trace(reached: Map<number, Reached>, node: number): number[] {
  const out: number[] = [];
  for (let at: number | undefined = node; at !== undefined; at = reached.get(at)?.parent) out.push(at);
  return out; // node ... source
}

/**
 * Shortest connecting paths between pairs of `entries`, each at most
 * `maxPathLength` hops, shortest first, reading at most `maxEdges` relations
 * (MAX_WALK_EDGES; tests pass less, and a smaller `hubListMax` to take the
 * other way of finding hubs).
 */
export function connect(db: Db, entries: readonly number[], maxPathLength: number, maxEdges = MAX_WALK_EDGES, hubListMax = HUB_LIST_MAX): Path[] {
  if (entries.length < 2 || maxPathLength < 1) return [];
  const reached = new Map<number, Reached>();
  for (const id of entries) reached.set(id, { source: id, depth: 0, parent: undefined });
  // Best bridge per pair of sources: key "a:b" with a < b.
  const bridges = new Map<string, { length: number; u: number; v: number }>();
  const levels = Math.ceil(maxPathLength / 2);
  let frontier = [...entries];
  let budget = maxEdges;
  for (let level = 0; level < levels && frontier.length > 0 && budget > 0; level++) {
    // On the last level of an odd maxPathLength, a node reached now would sit at depth `levels`, and any
    // path through it would be at least 2 * levels > maxPathLength long: only relations back into
    // the regions already grown can still join two entries. Those to nodes nearer than the frontier
    // were read when those nodes were expanded (a level cut short by the budget ends the walk), so
    // only relations within the frontier are read.
    const last = level === levels - 1 && 2 * levels > maxPathLength;
    const edges = last ? bridgesWithin(db, frontier, (id) => (reached.get(id) as Reached).source, budget, hubListMax) : neighbours(db, frontier, budget);
    budget -= edges.length;
    const next: number[] = [];
    for (const [a, b] of edges) {
      if (a === b || reached.has(b)) continue;
      const from = reached.get(a) as Reached;
      reached.set(b, { source: from.source, depth: level + 1, parent: a });
      next.push(b);
    }
    for (const [a, b] of edges) {
      const ra = reached.get(a) as Reached;
      const rb = reached.get(b) as Reached;
      if (ra.source === rb.source) continue;
      const length = ra.depth + 1 + rb.depth;
      if (length > maxPathLength) continue;
      const [u, v] = ra.source < rb.source ? [a, b] : [b, a];
      const key = `${Math.min(ra.source, rb.source)}:${Math.max(ra.source, rb.source)}`;
      const best = bridges.get(key);
      if (!best || length < best.length) bridges.set(key, { length, u, v });
    }
    frontier = next;
  }
  return [...bridges.values()].sort((x, y) => x.length - y.length).map(({ u, v }) => ({ nodes: [...trace(reached, u).reverse(), ...trace(reached, v)] }));
}

/** Relations with both ends among `ids`, in insertion order, at most `limit + 1` (so the caller can tell there were more). */
export function relationsAmong(db: Db, ids: readonly number[], limit: number): RelationRow[] {
  if (ids.length === 0) return [];
  // Db.all, not Db.packed: 1,001 rows of two names and a type could come near the 2 MB cap on one value.
  return db.all<RelationRow>(
    `${RELATION_SELECT} WHERE r.from_id IN (SELECT value FROM json_each(?1)) AND r.to_id IN (SELECT value FROM json_each(?1))
     ORDER BY r.id LIMIT ${sqlLimit(limit + 1)}`,
    JSON.stringify(ids),
  );
}

/** Entity rows for `ids`, in the order of `ids`. */
export function entityRows(db: Db, ids: readonly number[]): EntityRow[] {
  if (ids.length === 0) return [];
  const rows = db.packed<EntityRow>(ENTITY_COLUMNS, "SELECT id, name, entity_type FROM entities WHERE id IN (SELECT value FROM json_each(?1))", [
    JSON.stringify(ids),
  ]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
