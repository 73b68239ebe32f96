/**
 * Sending a context's changes to its webhooks (the store is
 * src/history/webhooks.ts).
 *
 * ## Lifecycle
 * A committed write kicks `pump()` without awaiting it, so a webhook never
 * slows or fails a write. A pump runs rounds while anything is due: each
 * webhook owed a change gets one POST at a time, in seq order, until one
 * fails. A failure sets the webhook's backoff, and the object's alarm is set
 * for the earliest retry (the alarm pumps again). While a pump runs, a new
 * kick asks for one more round rather than a second pump, so one webhook
 * never has two deliveries in flight.
 *
 * ## Eviction
 * The cursor moves only after a 2xx answer, so a delivery cut short by an
 * eviction is sent again (receivers deduplicate by seq). Before each round
 * the alarm is set for just past one attempt's timeout, so a pump lost to an
 * eviction is picked up by the alarm (which finds a live pump busy and
 * leaves the work to it).
 *
 * The body is the JSON of one change; `X-Engram-Signature` is
 * `sha256=<hex HMAC-SHA256 of the body with the webhook's secret>`.
 */
import { anyActive, attemptFailed, delivered, dueDeliveries, nextRetryAt, type Due } from "../history/webhooks";
import type { Settings } from "../settings";
import type { Db } from "../storage/sql";

/** How the object sends a request; tests replace it (MemoryContext.send) with a local handler. */
export type Send = (request: Request) => Promise<Response>;

export interface SenderHost {
  db: Db;
  transaction: <T>(fn: () => T) => T;
  now: () => number;
  config: () => Settings;
  send: Send;
  /** Sets the object's alarm for `at` unless it is due sooner. */
  wakeAt: (at: number) => void;
}

/** Deliveries one webhook makes in one round at most, so a long backlog leaves room for the others' turns. */
const ROUND_DELIVERIES = 100;

const encoder = new TextEncoder();

async function signature(secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(body)));
  return `sha256=${[...mac].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export class WebhookSender {
  private running: Promise<void> | null = null;
  private again = false;

  constructor(private readonly host: SenderHost) {}

  /** Delivers what is due; resolves when nothing due is left (a pump already running takes the work). */
  pump(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    if (!anyActive(this.host.db)) return Promise.resolve();
    this.running = (async () => {
      do {
        this.again = false;
        await this.round();
      } while (this.again);
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async round(): Promise<void> {
    const { db, now, config } = this.host;
    const s = config();
    const timeoutMs = s.WEBHOOK_TIMEOUT_SECONDS * 1000;
    const due = dueDeliveries(db, now());
    if (due.length > 0) this.host.wakeAt(now() + timeoutMs + 1000);
    await Promise.all(due.map((d) => this.drain(d, timeoutMs, s.WEBHOOK_GIVE_UP_HOURS * 3600_000)));
    const retry = nextRetryAt(db);
    if (retry !== null) this.host.wakeAt(retry);
  }

  /** One webhook's deliveries for this round: the next change after each success, until one fails. */
  private async drain(first: Due, timeoutMs: number, giveUpMs: number): Promise<void> {
    let next: Due | undefined = first;
    for (let i = 0; next && i < ROUND_DELIVERIES; i++) {
      const d: Due = next;
      const status = await this.attempt(d, timeoutMs);
      const { db, transaction, now } = this.host;
      const ok = /^2\d\d$/.test(status);
      transaction(() => (ok ? delivered(db, d.id, d.event.seq, status, now()) : attemptFailed(db, d.id, status, now(), giveUpMs)));
      if (!ok) {
        console.error(JSON.stringify({ event: "webhook_failed", webhook: d.id, seq: d.event.seq, status }));
        return;
      }
      next = dueDeliveries(db, now()).find((x) => x.id === d.id);
    }
    // Work left after the round's share: another round.
    if (next) this.again = true;
  }

  /** One POST: its status as text, "timeout" or "unreachable". */
  private async attempt(d: Due, timeoutMs: number): Promise<string> {
    const body = JSON.stringify(d.event);
    try {
      const request = new Request(d.url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Engram-Signature": await signature(d.secret, body), "User-Agent": "engram-webhook" },
        body,
        signal: AbortSignal.timeout(timeoutMs),
        redirect: "manual",
      });
      const res = await this.host.send(request);
      // The body is not read: only the status counts.
      await res.body?.cancel();
      return String(res.status);
    } catch (error) {
      return error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError") ? "timeout" : "unreachable";
    }
  }
}
