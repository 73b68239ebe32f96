/**
 * Keeps an open stream of live subscriptions (./subscriptions.ts) to a
 * caller that may still read its context. The Worker holds both the stream
 * and the credential the stream was opened with, and runs for as long as
 * the stream is open, so it re-checks the caller the way the caller's next
 * request would be checked (src/auth/recheck.ts, through the isolate's
 * caches):
 *
 * - before each delivery: a message from the context's object is written
 *   only once the check passes, in the order the messages came, so nothing
 *   reaches a caller revoked more than TOKEN_CACHE_SECONDS ago;
 * - every TOKEN_CACHE_SECONDS (at least MIN_RECHECK_SECONDS apart), so an
 *   idle stream is checked too.
 *
 * A failed check closes the socket with CALLER_REVOKED, on which the
 * context's object drops the caller's subscriptions
 * (src/context/subscribers.ts), and ends the stream. A check that throws
 * (the Registry unreachable) ends the stream as an eviction does, keeping
 * the subscriptions: the client opens it again, authenticated anew.
 */
import { CALLER_REVOKED } from "../context/subscribers";
import { realTimers, type Scheduler } from "../context/pending";
import { describeThrown } from "../errors";

/** The shortest time between two periodic checks of one stream, whatever TOKEN_CACHE_SECONDS is. */
const MIN_RECHECK_SECONDS = 5;

/** The timers the checks wait on. Tests replace `schedule` (like the context object's) to move time by hand. */
export const watchTimers: { schedule: Scheduler } = { schedule: realTimers };

/** How a stream re-checks its caller. */
export interface StreamCheck {
  /** Whether the caller may still read the stream's context. */
  mayRead: () => Promise<boolean>;
  /** TOKEN_CACHE_SECONDS: how long the isolate trusts a lookup. */
  cacheSeconds: number;
}

export class CallerWatch {
  /** The deliveries and checks, one after another. */
  private queue: Promise<void> = Promise.resolve();
  private cancel: (() => void) | undefined;
  private over = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly check: StreamCheck,
    /** Ends the stream, once. */
    private readonly end: () => void,
  ) {
    this.schedule();
  }

  /** Runs `write` once the caller passes its check, after every earlier delivery. */
  deliver(write: () => void): void {
    this.enqueue(async () => {
      if (await this.passes()) write();
    });
  }

  /** Stops checking: the stream has ended. */
  stop(): void {
    this.over = true;
    this.cancel?.();
    this.cancel = undefined;
  }

  private schedule(): void {
    const ms = Math.max(this.check.cacheSeconds, MIN_RECHECK_SECONDS) * 1000;
    this.cancel = watchTimers.schedule(() => {
      this.enqueue(async () => {
        if (await this.passes()) this.schedule();
      });
    }, ms);
  }

  private enqueue(step: () => Promise<void>): void {
    this.queue = this.queue.then(step).catch((error: unknown) => {
      console.error(JSON.stringify({ event: "stream_failed", ...describeThrown(error) }));
    });
  }

  private async passes(): Promise<boolean> {
    if (this.over) return false;
    let may: boolean;
    try {
      may = await this.check.mayRead();
    } catch (error) {
      console.error(JSON.stringify({ event: "stream_check_failed", ...describeThrown(error) }));
      this.close(1011, "check failed");
      return false;
    }
    if (!may) this.close(CALLER_REVOKED, "caller revoked");
    return may && !this.over;
  }

  private close(code: number, reason: string): void {
    if (this.over) return;
    this.stop();
    try {
      this.ws.close(code, reason);
    } catch {
      // Already closed by the object.
    }
    this.end();
  }
}
