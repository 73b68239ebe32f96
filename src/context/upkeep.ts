/**
 * The context object's one alarm and what it does: trim history to the
 * retention settings (src/history/retention.ts), keep the co-visitation
 * index bounded (src/covisit/maintenance.ts) and, while the context has a
 * capacity, run the priority evaluation when it is due
 * (src/priority/evaluate.ts), then set itself again for the earliest time
 * any task wants.
 *
 * ## Invariants
 * - `alarmAt` mirrors the storage's alarm, so a call can ask for upkeep
 *   without awaiting getAlarm(); `schedule` only ever brings it forward.
 * - A write that recorded a change asks for a trim within TRIM_AFTER_WRITE_MS;
 *   a call that may have started a session asks for a run once it can idle out.
 * - Bad settings skip the run (logged); the next call sets the alarm again.
 * - The evaluation runs in its own transaction (it records a change when it
 *   prunes): a failure there is logged and does not undo the trim.
 * - Search index compaction (src/search/compact.ts) waits until the indexes
 *   have not been written for COMPACT_QUIET_MS, so it never competes with a
 *   bulk load; then one bounded step per run, in its own transaction, the
 *   next run at once while work remains. A write of COMPACT_CHECK_AFTER or
 *   more documents asks for a run once writes pause; smaller ones wait for
 *   whatever run comes next (the trim after a write, at the latest).
 * - With an embedder (the `AI` binding), a write that left items in the
 *   embedding queue asks for a run within EMBED_AFTER_WRITE_MS, which embeds
 *   one batch (src/search/semantic/queue.ts) and runs again at once while
 *   items wait; a failed model call is logged and retried after
 *   EMBED_RETRY_MS. The write itself never waits for the model. Each run
 *   then does one bounded step of the vectors' IVF index (training, assigning,
 *   splitting, rebuilding blocks), the next run at once while work remains.
 * - FTS5 merging (src/search/segments.ts) never runs inside a write: once
 *   SEGMENTS_PER_LEVEL writes have added segments, the alarm is asked for at
 *   once, and each run does one bounded slice (its own transaction, first,
 *   so the rest of upkeep sees merged indexes), then asks for the next run at
 *   once while a slice may have been cut short by its budget. Writes in
 *   between go on as usual: a call waits for at most one slice.
 * - Cluster counts a bulk write queued (src/priority/queue.ts) are counted
 *   once writes have queued none for CLUSTER_QUIET_MS, or once the oldest
 *   has waited CLUSTER_MAX_LAG_MS: one slice per run, in its own
 *   transaction, the next run at once while the pass has rows left. A
 *   failed slice is logged, its rows stay queued, and the alarm tries
 *   again after CLUSTER_RETRY_MS. These slices run before the evaluation,
 *   which waits while counts are queued (it counts items by tier), at most
 *   EVALUATION_HOLD_MAX_MS.
 */
import { maintainCovisit } from "../covisit";
import { nextTrimAt, trimHistory } from "../history";
import { compacting, compactionStep } from "../search/compact";
import { blocksStale, catchUp, embeddingQueued, type Embedder, indexBehind, indexStep } from "../search/semantic";
import { SEGMENTS_PER_LEVEL, mergeSegments } from "../search/segments";
import { CLUSTER_MAX_LAG_MS, CLUSTER_QUIET_MS, ClusterDrain, clustersQueuedSince } from "../priority/queue";
import { modelOptions } from "../priority/weights";
import type { Settings } from "../settings";
import type { Db } from "../storage/sql";

/** After a write, the alarm trims history within this long. */
const TRIM_AFTER_WRITE_MS = 60 * 60 * 1000;
/** The search indexes are compacted once they have not been written for this long. */
export const COMPACT_QUIET_MS = 10_000;
/** Documents indexed since the last compaction check that ask for one as soon as writes pause. */
const COMPACT_CHECK_AFTER = 1000;
/** After a write that queued items to embed, the alarm embeds them within this long (a burst of writes shares batches). */
const EMBED_AFTER_WRITE_MS = 1000;
/** The evaluation waits for queued cluster counts at most this long (a context written in bulk without pause keeps a queue). */
const EVALUATION_HOLD_MAX_MS = CLUSTER_MAX_LAG_MS;
/** After a failed slice of cluster counts, the next try. */
const CLUSTER_RETRY_MS = 60_000;
/** After a failed model call, the next try. */
const EMBED_RETRY_MS = 60_000;

/** The evaluation step: runs it if due; says when it is due next and whether it recorded a change. */
export type EvaluationStep = (s: Settings, now: number) => { next: number | null; recorded: boolean };

export class Upkeep {
  private alarmAt: number | null = null;
  /** When a write last changed the search indexes, and how many documents since the last compaction check (this instance's). */
  private lastIndexWrite = 0;
  private indexedSinceCheck = 0;
  /** The model that embeds queued items; null in lexical mode (MemoryContext.useEmbedder sets it). */
  embedder: Embedder | null = null;
  /** Writes that added segments since the last merge slice (this instance's), and whether a slice is wanted. */
  private writesSinceMerge = 0;
  private mergeWanted = false;
  /** When a write last queued cluster counts (this instance's), and the passes over that queue. */
  private lastClusterQueue = 0;
  private readonly clusterDrain = new ClusterDrain();
  /** Since when the evaluation has waited for queued cluster counts (null: it is not waiting). */
  private evaluationHeldSince: number | null = null;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly db: Db,
    private readonly evaluation: EvaluationStep = () => ({ next: null, recorded: false }),
  ) {}

  /** Reads the alarm the storage holds (at start, and after a purge). */
  async load(): Promise<void> {
    this.clusterDrain.reset();
    this.alarmAt = await this.storage.getAlarm();
  }

  /** Sets the alarm for `at` unless it is already due sooner. */
  schedule(at: number): void {
    if (this.alarmAt !== null && this.alarmAt <= at) return;
    this.alarmAt = at;
    this.storage.setAlarm(at).catch((error: unknown) => console.error(JSON.stringify({ event: "set_alarm_failed", error: String(error) })));
  }

  /** After a call that recorded a change. */
  changeRecorded(now: number): void {
    this.schedule(now + TRIM_AFTER_WRITE_MS);
  }

  /** After a write that indexed or removed `documents` search documents. */
  indexWritten(now: number, documents: number): void {
    if (documents === 0) return;
    this.lastIndexWrite = now;
    this.indexedSinceCheck += documents;
    if (this.indexedSinceCheck >= COMPACT_CHECK_AFTER) this.schedule(now + COMPACT_QUIET_MS);
    if (++this.writesSinceMerge >= SEGMENTS_PER_LEVEL) {
      this.mergeWanted = true;
      this.schedule(now);
    }
  }

  /** After a write that queued `entities` cluster counts: the alarm counts them once writes pause. */
  clustersQueued(now: number, entities: number): void {
    if (entities === 0) return;
    this.lastClusterQueue = now;
    this.schedule(now + CLUSTER_QUIET_MS);
  }

  /** After any write: items it queued to embed are embedded soon, by the alarm, and vector blocks it made stale are rebuilt. */
  written(now: number): void {
    if (this.embedder && (embeddingQueued(this.db) || blocksStale(this.db))) this.schedule(now + EMBED_AFTER_WRITE_MS);
  }

  /** The alarm's embedding step: one batch; the next at once while items wait, later after a failure. */
  async embed(now: () => number): Promise<void> {
    if (!this.embedder) return;
    try {
      const { taken, remaining } = await catchUp(this.db, (fn) => this.storage.transactionSync(fn), this.embedder, now);
      if (taken > 0 && remaining > 0) this.schedule(now());
    } catch (error) {
      console.error(JSON.stringify({ event: "embedding_failed", model: this.embedder.model, error: String(error) }));
      this.schedule(now() + EMBED_RETRY_MS);
    }
    this.index(this.embedder.model, now());
  }

  /** The alarm's vector index step (src/search/semantic/ivf.ts): one bounded step, the next at once while work remains. */
  private index(model: string, now: number): void {
    try {
      if (this.storage.transactionSync(() => indexBehind(this.db, model) && indexStep(this.db, model) !== null)) this.schedule(now);
    } catch (error) {
      // Logged, not retried in a loop: the next alarm tries again (queries read stale lists from their rows meanwhile).
      console.error(JSON.stringify({ event: "vector_index_failed", model, error: String(error) }));
    }
  }

  /** After a call that may have started a co-visitation session idling out after `idleMs`. */
  sessionsMayIdle(now: number, idleMs: number): void {
    this.schedule(now + idleMs + 1);
  }

  /** The alarm: one upkeep pass at `now`, then the next alarm. */
  run(config: () => Settings, now: number): void {
    this.alarmAt = null;
    let s: Settings;
    try {
      s = config();
    } catch (error) {
      // The Worker refuses requests with bad settings too; the next call sets the alarm again.
      console.error(JSON.stringify({ event: "maintenance_skipped", error: String(error) }));
      return;
    }
    const mergeAt = this.runSegmentSlice(now);
    const retention = { maxChanges: s.HISTORY_MAX_CHANGES, maxDays: s.HISTORY_MAX_DAYS };
    const next = this.storage.transactionSync(() => {
      const { more } = trimHistory(this.db, retention, now);
      const trimAt = more ? now : nextTrimAt(this.db, retention, now);
      const covisitAt = maintainCovisit(this.db, now, s);
      const times = [trimAt, covisitAt].filter((t): t is number => t !== null);
      return times.length > 0 ? Math.min(...times) : null;
    });
    const times = next === null ? [] : [next];
    // Queued cluster counts first: the evaluation counts items by tier, and a queued entity's tier is not yet known.
    const clustersAt = this.clusters(s, now);
    if (clustersAt !== null) times.push(clustersAt);
    if (clustersAt === null || now >= (this.evaluationHeldSince ??= now) + EVALUATION_HOLD_MAX_MS) {
      this.evaluationHeldSince = null;
      try {
        const evaluated = this.evaluation(s, now);
        if (evaluated.next !== null) times.push(evaluated.next);
        if (evaluated.recorded) times.push(now + TRIM_AFTER_WRITE_MS);
      } catch (error) {
        // Logged, not retried in a loop: the next alarm or capacity change runs it again.
        console.error(JSON.stringify({ event: "evaluation_failed", error: String(error) }));
      }
      // Its pruning may have queued counts too (a bulk delete's neighbours).
      if (this.storage.transactionSync(() => clustersQueuedSince(this.db)) !== null) times.push(now + CLUSTER_QUIET_MS);
    }
    const compactAt = this.compaction(now);
    if (compactAt !== null) times.push(compactAt);
    if (mergeAt !== null) times.push(mergeAt);
    if (times.length > 0) this.schedule(Math.min(...times));
  }

  /** One merge slice if writes asked for one; returns when the next is due (now, while work may remain), if any. */
  private runSegmentSlice(now: number): number | null {
    if (!this.mergeWanted) return null;
    this.writesSinceMerge = 0;
    try {
      this.mergeWanted = this.storage.transactionSync(() => mergeSegments(this.db));
    } catch (error) {
      // Logged, not retried in a loop: the next writes ask again (FTS5's crisis merge bounds the segments meanwhile).
      console.error(JSON.stringify({ event: "merge_failed", error: String(error) }));
      this.mergeWanted = false;
    }
    return this.mergeWanted ? now : null;
  }

  /** One slice of queued cluster counts if they are due; returns when the next is due, if any. */
  private clusters(s: Settings, now: number): number | null {
    try {
      return this.storage.transactionSync(() => {
        const since = clustersQueuedSince(this.db);
        if (since === null) return null;
        // A pass starts once writes have queued none for a while, or the oldest row has waited long enough.
        const dueAt = (oldest: number) => Math.min(this.lastClusterQueue + CLUSTER_QUIET_MS, oldest + CLUSTER_MAX_LAG_MS);
        if (!this.clusterDrain.active && now < dueAt(since)) return dueAt(since);
        if (this.clusterDrain.step(this.db, modelOptions(s))) return now;
        const next = clustersQueuedSince(this.db);
        return next === null ? null : dueAt(next);
      });
    } catch (error) {
      // Rolled back: the rows stay queued, the ids the slice marked are forgotten, and a run tries again later.
      console.error(JSON.stringify({ event: "cluster_count_failed", error: String(error) }));
      this.clusterDrain.reset();
      return now + CLUSTER_RETRY_MS;
    }
  }

  /** One compaction step if writes have paused; returns when the next is due, if any. */
  private compaction(now: number): number | null {
    try {
      const quietAt = this.lastIndexWrite + COMPACT_QUIET_MS;
      if (now < quietAt) {
        const wanted = this.indexedSinceCheck >= COMPACT_CHECK_AFTER || compacting(this.db);
        return wanted ? quietAt : null;
      }
      this.indexedSinceCheck = 0;
      return this.storage.transactionSync(() => compactionStep(this.db)) ? now : null;
    } catch (error) {
      // Logged, not retried in a loop: the next alarm tries again (searches work on an uncompacted index).
      console.error(JSON.stringify({ event: "compaction_failed", error: String(error) }));
      return null;
    }
  }
}
