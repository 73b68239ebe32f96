/**
 * Read-only numbers about one context for people looking at it (the web
 * page's overview and an entity's access statistics): counts across every
 * domain and the access and priority columns the access hook keeps on
 * entities, with the priority they give now (src/priority/model.ts); the
 * stats route's numbers in one read; and memory_stats, priority's numbers
 * joined with the search mode.
 *
 * A store module: the only SQL here is plain counting and lookup. Reading
 * these numbers is not an access: nothing here writes, so looking at an
 * entity's statistics never changes them.
 */
import { evaluationOptions } from "../priority/evaluate";
import { ACCESS_WEIGHTS, DEFAULT_MODEL, priority, type ModelOptions } from "../priority/model";
import { priorityInputOf } from "../priority/columns";
import { clustersPending } from "../priority/queue";
import { memoryStats, priorityOverview, type MemoryStats, type PriorityOverview } from "../priority/stats";
import { modelOptions } from "../priority/weights";
import { compacting, indexShape, SEARCH_INDEXES } from "../search/compact";
import { embeddingStatus, type EmbeddingStatus } from "../search/semantic";
import type { Settings } from "../settings";
import { chunksFor, placeholders, type Db } from "../storage/sql";

export interface ContextCounts {
  entities: number;
  relations: number;
  observations: number;
  files: number;
  documents: number;
  /** Change records kept (history retention trims them). */
  changes: number;
  /** The newest change's #seq, 0 before the first write. */
  lastChange: number;
  /** Bytes the context's SQLite database takes. */
  bytes: number;
  /** FTS5 segments across the search indexes (2 once compacted) and whether a compaction is under way (src/search/compact.ts). */
  searchIndex: { segments: number; compacting: boolean };
  /** Entity ids bulk writes queued for a cluster count and the alarm has not counted yet, one per queued row that holds it (src/priority/queue.ts). */
  clustersPending: number;
}

export interface EntityAccessStats {
  name: string;
  entityType: string;
  /** Times the entity was retrieved: opened plus found in search (`openedCount + searchCount`). */
  accessCount: number;
  /** Times it was opened: open_nodes (which the web page's detail panel calls too), or restored from the archive. */
  openedCount: number;
  /** Times it came back in a search's results without being opened. */
  searchCount: number;
  lastAccessedAt: number | null;
  createdAt: number;
  updatedAt: number;
  category: string;
  /** Marked important with mark_important. */
  important: boolean;
  tier: string;
  /** The priority now (4 significant digits). */
  priority: number;
}

interface StatsRow extends Record<string, SqlStorageValue> {
  name: string;
  entity_type: string;
  access_count: number;
  last_accessed_at: number | null;
  created_at: number;
  updated_at: number;
  category: string;
  important: number;
  tier: string;
  uses: number;
  cluster_size: number;
  base_relevance: number;
}

export function contextCounts(db: Db): ContextCounts {
  const row = db.one<{ e: number; r: number; o: number; f: number; d: number; c: number; s: number | null }>(
    `SELECT (SELECT COUNT(*) FROM entities) AS e, (SELECT COUNT(*) FROM relations) AS r,
            (SELECT COUNT(*) FROM observations) AS o, (SELECT COUNT(*) FROM files) AS f,
            (SELECT COUNT(*) FROM documents) AS d, (SELECT COUNT(*) FROM changes) AS c,
            (SELECT MAX(seq) FROM changes) AS s`,
  );
  return {
    entities: row?.e ?? 0,
    relations: row?.r ?? 0,
    observations: row?.o ?? 0,
    files: row?.f ?? 0,
    documents: row?.d ?? 0,
    changes: row?.c ?? 0,
    lastChange: row?.s ?? 0,
    bytes: db.sql.databaseSize,
    searchIndex: {
      segments: SEARCH_INDEXES.reduce((sum, index) => sum + indexShape(db, index).segments, 0),
      compacting: compacting(db),
    },
    clustersPending: clustersPending(db),
  };
}

/**
 * How many of `accessCount` retrievals were direct reads. Each retrieval adds
 * 1 to access_count and its weight to uses (src/priority/track.ts: direct 1,
 * search a quarter), so the split follows from the two columns without a
 * column of its own. Rows from before the weights existed count every
 * retrieval as direct (their uses were set to access_count), and an undo of
 * such a row restores no uses at all: the clamp keeps both counts in range.
 */
export function openedCount(accessCount: number, uses: number): number {
  const { direct, search } = ACCESS_WEIGHTS;
  const opened = Math.round((uses - search * accessCount) / (direct - search));
  return Math.min(accessCount, Math.max(0, opened));
}

/** Access statistics of the named entities that exist, in the order asked, each once; `now` dates the priority. */
export function entityAccessStats(db: Db, names: readonly string[], now: number, model: ModelOptions = DEFAULT_MODEL): EntityAccessStats[] {
  const found = new Map<string, EntityAccessStats>();
  for (const chunk of chunksFor([...new Set(names)])) {
    const rows = db.all<StatsRow>(
      `SELECT name, entity_type, access_count, last_accessed_at, created_at, updated_at, category, important, tier, uses, cluster_size, base_relevance
       FROM entities WHERE name IN (${placeholders(chunk.length)})`,
      ...chunk,
    );
    for (const r of rows) {
      const p = priority(priorityInputOf(r), now, model);
      const opened = openedCount(r.access_count, r.uses);
      found.set(r.name, {
        name: r.name,
        entityType: r.entity_type,
        accessCount: r.access_count,
        openedCount: opened,
        searchCount: r.access_count - opened,
        lastAccessedAt: r.last_accessed_at,
        createdAt: r.created_at,
        updatedAt: r.updated_at,
        category: r.category,
        important: r.important === 1,
        tier: r.tier,
        priority: Number(p.toPrecision(4)),
      });
    }
  }
  return [...new Set(names)].flatMap((n) => found.get(n) ?? []);
}

/** memory_stats: priority's numbers (src/priority/stats.ts) and the search mode and embedding lag (src/search/semantic/queue.ts). */
export function toolStats(db: Db, now: number, s: Settings): MemoryStats & { search: EmbeddingStatus } {
  return { ...memoryStats(db, now, evaluationOptions(s)), search: embeddingStatus(db, now) };
}

/** What the contexts API's stats route shows of the object, read in one call. */
export interface ContextStats {
  counts: ContextCounts;
  /** Capacity, use, archive and last evaluation, without memory_stats' scans. */
  priority: PriorityOverview;
  search: EmbeddingStatus;
  /** Each entity asked for that exists (entityAccessStats); absent when none was asked for. */
  entities?: EntityAccessStats[];
}

export function contextStats(db: Db, names: readonly string[], now: number, s: Settings): ContextStats {
  const out: ContextStats = { counts: contextCounts(db), priority: priorityOverview(db), search: embeddingStatus(db, now) };
  if (names.length > 0) out.entities = entityAccessStats(db, names, now, modelOptions(s));
  return out;
}
