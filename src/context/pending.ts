/**
 * Search hits' access statistics, written in batches just after searches
 * answer instead of inside each search's transaction: a search never makes
 * its reply wait for a commit, and a run of searches shares one commit
 * instead of paying one each (a commit costs more than the hits' UPDATE
 * itself; see Cost).
 *
 * ## Guarantees
 * - Every call other than a search or read_graph, and the alarm, writes what
 *   is pending first: memory_stats, the evaluation, history, a restore and
 *   every direct retrieval see every earlier hit. read_graph answers with no
 *   statistics, so it leaves them pending rather than wait for their commit.
 * - A search does not: it ranks with the statistics committed so far, which
 *   lack the hits of about the last WRITE_DELAY_MS (each worth a quarter of
 *   a use, src/priority/model.ts).
 * - A timer set by the first pending search writes the batch WRITE_DELAY_MS
 *   later (at once when MAX_PENDING searches are waiting), in one
 *   transaction, with each search's own time and caller.
 * - The timer comes from an injectable Scheduler (real timers in the object),
 *   so tests advance time by hand instead of sleeping.
 * - Only the object's end (a crash, or an eviction before the timer ran)
 *   loses them; a failure to record is logged and never fails a call, as
 *   with the other access tracking (src/priority/track.ts).
 *
 * ## Cost
 * Writing one search's hits (up to 50 rows) costs less than the commit
 * around it, so one commit per batch leaves one context's single thread
 * more searches per second (bench/cpu-ab.mjs compares CPU per call). With
 * one client, latency is the same either way: the write runs while the
 * reply travels.
 */
import { recordAccess, type Access, type AccessOptions } from "./access";
import type { CallMeta } from "../storage/meta";
import type { Db } from "../storage/sql";

interface Pending {
  accesses: Access[];
  now: number;
  meta: CallMeta;
  options: AccessOptions;
}

/** Runs `fn` after `ms` milliseconds; the function returned cancels it. */
export type Scheduler = (fn: () => void, ms: number) => () => void;

/** The runtime's timers. */
export const realTimers: Scheduler = (fn, ms) => {
  const timer = setTimeout(fn, ms);
  return () => clearTimeout(timer);
};

/** How long the first pending search's hits wait for others to share their commit. */
export const WRITE_DELAY_MS = 1000;
/** Searches whose hits may wait at once; the next one has the batch written as soon as the object is idle. */
export const MAX_PENDING = 200;

export class PendingAccesses {
  private queue: Pending[] = [];
  /** Cancels the scheduled write, when one is scheduled. */
  private cancel: (() => void) | undefined;

  constructor(
    private readonly db: Db,
    /** Runs `fn` as one transaction (the object's transactionSync). */
    private readonly transaction: (fn: () => void) => void,
    private readonly schedule: Scheduler = realTimers,
    private readonly delayMs = WRITE_DELAY_MS,
  ) {}

  /** Queues one call's accesses; the first in a batch schedules the write, a full batch has it written at once. */
  add(p: Pending): void {
    if (p.accesses.length === 0) return;
    this.queue.push(p);
    if (this.queue.length === 1) this.writeIn(this.delayMs);
    else if (this.queue.length === MAX_PENDING) this.writeIn(0);
  }

  /** Writes everything pending now, oldest first. */
  flush(): void {
    this.unschedule();
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    try {
      this.transaction(() => {
        for (const p of batch) recordAccess(this.db, p.accesses, p.now, p.meta, p.options);
      });
    } catch (error) {
      console.error(JSON.stringify({ event: "access_flush_failed", accesses: batch.length, error: String(error) }));
    }
  }

  /** Forgets what is pending (the context is being wiped). */
  drop(): void {
    this.unschedule();
    this.queue = [];
  }

  private writeIn(delayMs: number): void {
    this.unschedule();
    this.cancel = this.schedule(() => this.flush(), delayMs);
  }

  private unschedule(): void {
    this.cancel?.();
    this.cancel = undefined;
  }
}
