/**
 * Search hits' access statistics, written just after a search answers
 * instead of inside its transaction: a search's own hits never make its
 * reply wait for a commit (about 0.5 ms a search under wrangler dev,
 * bench/ab.mjs). A search that arrives before the timer below ran first
 * commits the earlier search's hits, like any other call.
 *
 * ## Guarantees
 * - Nothing can observe the statistics without them: MemoryContext writes
 *   what is pending at the start of every other call and of the alarm, so
 *   memory_stats, the evaluation and the next search see every earlier hit.
 * - Otherwise a zero-delay timer set with the first pending search writes
 *   them once the object is idle (the runtime may run a call that is already
 *   waiting first; that call then writes them), in one transaction per batch,
 *   with each search's own time and caller.
 * - Only the object's end (a crash, or an eviction before the timer ran)
 *   loses them; a failure to record is logged and never fails a call, as
 *   with the other access tracking (src/priority/track.ts).
 */
import { recordAccess, type Access, type AccessOptions } from "./access";
import type { CallMeta } from "./meta";
import type { Db } from "./sql";

interface Pending {
  accesses: Access[];
  now: number;
  meta: CallMeta;
  options: AccessOptions;
}

export class PendingAccesses {
  private queue: Pending[] = [];

  constructor(
    private readonly db: Db,
    /** Runs `fn` as one transaction (the object's transactionSync). */
    private readonly transaction: (fn: () => void) => void,
  ) {}

  /** Queues one call's accesses; the first in a batch schedules the write. */
  add(p: Pending): void {
    if (p.accesses.length === 0) return;
    this.queue.push(p);
    if (this.queue.length === 1) setTimeout(() => this.flush(), 0);
  }

  /** Writes everything pending now, oldest first. */
  flush(): void {
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
    this.queue = [];
  }
}
