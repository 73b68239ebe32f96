/**
 * Cluster counts after bulk writes: the write call queues the ends, the
 * alarm counts them.
 *
 * Relating items can put them in a cluster (long term, src/priority/model.ts),
 * so the ends of every relation a write call creates or deletes are counted
 * again (./promote.ts refreshClusters). A call that touches the relations of
 * at most CLUSTER_INLINE_MAX entities (an agent relating a few things) does
 * it in its own transaction. A bulk write (a large
 * create_relations batch, an import, an undo of one) appends the entities' ids to
 * `cluster_queue` (migrations/0019_cluster_queue.sql) instead: counting
 * 2,000 ends and writing their sizes is a large share of a 1,000-relation
 * batch in a large context (docs/priority.md), and a load names each entity
 * about four times, so counting once after the load does a quarter of the
 * work.
 *
 * ## The alarm's side (`ClusterDrain`, driven by src/context/upkeep.ts)
 * - It starts once writes have queued nothing for CLUSTER_QUIET_MS, or once
 *   the oldest queued chunk has waited CLUSTER_MAX_LAG_MS (so a context
 *   written without pause still catches up).
 * - A pass covers the rows queued when it started. Each alarm run counts one
 *   slice of about CLUSTER_SLICE entities, in id order, in its own
 *   transaction, then deletes the rows it read; the next run comes at once
 *   while the pass has rows left.
 * - Within a pass each entity is counted once, however many rows name it
 *   (a bitmap of ids held by the object). Rows queued during a pass wait for
 *   the next one, so a relation written after an entity was counted is
 *   always counted again. An object that restarts mid-pass forgets the
 *   bitmap and may count an entity twice; the queue itself is durable.
 * - The queue holds ids: a write resolves the names it noted (one statement
 *   per row, over pages the write itself just read), so a slice skips an
 *   entity counted earlier in the pass before any lookup. An id whose
 *   entity is gone by then is dropped.
 *
 * Until its row is counted, an entity's stored cluster_size and tier are
 * those from before the write. The priority evaluation waits while counts
 * are queued (it counts items by tier; src/context/upkeep.ts), at most
 * CLUSTER_MAX_LAG_MS, and counts the clusters of what it evaluates itself.
 */
import type { InverseOp } from "../history";
import type { Db } from "../storage/sql";
import { entityClusters, entityClustersById } from "./cluster";
import type { ModelOptions } from "./model";
import { applyEntityClusters } from "./promote";

/** Entities a write call may relate or unrelate and still have their clusters counted in its own transaction. */
export const CLUSTER_INLINE_MAX = 256;
/** Rows a slice reads at most: near a pass's end most ids were counted already, and a slice still reads a bounded amount. */
const ROWS_PER_SLICE = 16;
/** Entities per queued row, and the entities a slice gathers before it stops reading rows (so under 1,000 per slice; a call waits for at most one slice). */
export const CLUSTER_SLICE = 500;
/** The alarm counts queued clusters once writes have queued none for this long... */
export const CLUSTER_QUIET_MS = 2000;
/** ...or once the oldest queued row has waited this long, writes or not. */
export const CLUSTER_MAX_LAG_MS = 5 * 60_000;

/** The entity names a noted op relates (both ends of a created or deleted relation), else none. */
function relationEnds(op: InverseOp): string[] {
  if (op.kind !== "relation" || typeof op.from !== "string" || typeof op.to !== "string") return [];
  return [op.from, op.to];
}

/**
 * Collects the entities whose relations a write call changed (`onNote`, for
 * the ChangeRecorder); `settle` counts their clusters at the end of the call
 * (at most CLUSTER_INLINE_MAX of them) or queues them for the alarm, and
 * returns how many it queued.
 */
export function relationWatch(): { onNote: (op: InverseOp) => void; settle: (db: Db, model: ModelOptions, now: number) => number } {
  const ends = new Set<string>();
  return {
    onNote: (op) => {
      for (const name of relationEnds(op)) ends.add(name);
    },
    settle: (db, model, now) => {
      if (ends.size === 0) return 0;
      const names = [...ends];
      if (names.length > CLUSTER_INLINE_MAX) return queueClusters(db, names, now);
      applyEntityClusters(db, entityClusters(db, names), model);
      return 0;
    },
  };
}

/**
 * Appends the ids of the entities named (those that exist: a deleted end has
 * no cluster left to count) to the queue, CLUSTER_SLICE names per row, each
 * row's ids in order; returns how many it queued.
 */
function queueClusters(db: Db, names: readonly string[], now: number): number {
  let queued = 0;
  for (let i = 0; i < names.length; i += CLUSTER_SLICE) {
    const row = db.one<{ n: number }>(
      `INSERT INTO cluster_queue (at, n, ids)
       SELECT ?1, count(*), json_group_array(id) FROM (SELECT id FROM entities WHERE name IN (SELECT value FROM json_each(?2)) ORDER BY id)
       HAVING count(*) > 0 RETURNING n`,
      now,
      JSON.stringify(names.slice(i, i + CLUSTER_SLICE)),
    );
    queued += row?.n ?? 0;
  }
  return queued;
}

/** When the oldest queued row was written, or null when nothing waits. */
export function clustersQueuedSince(db: Db): number | null {
  return db.one<{ at: number }>("SELECT at FROM cluster_queue ORDER BY seq LIMIT 1")?.at ?? null;
}

/** Entities waiting in the queue (one named by several rows counts once per row). */
export function clustersPending(db: Db): number {
  return db.one<{ n: number }>("SELECT coalesce(sum(n), 0) AS n FROM cluster_queue")?.n ?? 0;
}

/** The alarm's passes over the queue (see the module's comment); one object per context object. */
export class ClusterDrain {
  /** The last row of the pass under way, or null between passes. */
  private end: number | null = null;
  /** Ids counted in this pass, a bit each. */
  private counted = new Uint8Array(0);

  /** Whether a pass is under way (its next slice is due at once). */
  get active(): boolean {
    return this.end !== null;
  }

  /** Forgets the pass under way (a failed slice, a purged database): the rows it did not finish stay queued. */
  reset(): void {
    this.end = null;
    this.counted = new Uint8Array(0);
  }

  /**
   * Counts one slice in the caller's transaction: starts a pass if none is
   * under way, reads whole rows until they hold CLUSTER_SLICE entities not
   * yet counted in this pass (at most ROWS_PER_SLICE rows, and not past the
   * pass's last), counts those and writes
   * their clusters, and deletes the rows. Returns whether the pass has rows
   * left.
   */
  step(db: Db, model: ModelOptions): boolean {
    if (this.end === null) {
      const last = db.one<{ seq: number | null }>("SELECT max(seq) AS seq FROM cluster_queue")?.seq ?? null;
      if (last === null) return false;
      this.end = last;
      this.counted = new Uint8Array(0);
    }
    const fresh: number[] = [];
    let through = 0;
    for (let rows = 0; fresh.length < CLUSTER_SLICE && rows < ROWS_PER_SLICE; rows++) {
      const row = db.one<{ seq: number; ids: string }>("SELECT seq, ids FROM cluster_queue WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT 1", through, this.end);
      // Rows are taken whole, so a slice ends with 500 to 999 entities (or fewer at its pass's end): taking a row only while
      // the slice stays within 500 would take one row per slice, and a bulk load's catch-up would need far more alarm runs.
      if (!row) break;
      through = row.seq;
      for (const id of JSON.parse(row.ids) as number[]) if (this.mark(id)) fresh.push(id);
    }
    if (through > 0) {
      // In id order: neighbouring ids share pages of the entity table and the relations' indexes.
      fresh.sort((a, b) => a - b);
      applyEntityClusters(db, entityClustersById(db, fresh), model);
      db.run("DELETE FROM cluster_queue WHERE seq <= ?", through);
    }
    const left = db.one("SELECT 1 FROM cluster_queue WHERE seq <= ? LIMIT 1", this.end) !== undefined;
    if (!left) this.reset();
    return left;
  }

  /** Marks `id` counted in this pass; false if it already was. */
  private mark(id: number): boolean {
    const byte = id >> 3;
    if (byte >= this.counted.length) {
      const grown = new Uint8Array(Math.max(byte + 1, this.counted.length * 2, 1024));
      grown.set(this.counted);
      this.counted = grown;
    }
    const bit = 1 << (id & 7);
    const held = this.counted[byte] ?? 0;
    if (held & bit) return false;
    this.counted[byte] = held | bit;
    return true;
  }
}
