/**
 * The webhooks of a context: which URLs hear of every change, and how far
 * each has got. Read and written in the context's object; the sending lives
 * in src/context/webhooks.ts.
 *
 * ## Storage layout
 * `webhooks` (migrations/0021_team.sql): one row per webhook. The change log
 * is the queue: a webhook delivers the changes after its `delivered_seq`,
 * oldest first, one at a time, so deliveries are in seq order and a change
 * is retried until a 2xx answer moves the cursor (at least once).
 *
 * ## Lifecycle
 * A failed attempt counts toward `attempts` and sets `next_at` by
 * exponential backoff (`retryDelay`); the first failure of a streak sets
 * `failing_since`. Once a streak has lasted the give-up window, the webhook
 * is marked `failing` and delivers nothing more: its cursor stays where it
 * was, so the queue stops growing (changes after it are not delivered; the
 * administrator removes it and adds it again to start over from then). A
 * 2xx answer ends the streak. Retention trims the log, not the cursor: a
 * change trimmed before its delivery is skipped.
 */
import type { Db } from "../storage/sql";

/** What one webhook is, as the admin API lists it (never its secret). */
export interface WebhookInfo {
  id: string;
  url: string;
  createdAt: string;
  /** The last seq delivered (acknowledged with a 2xx). */
  deliveredSeq: number;
  /** Changes not yet delivered. */
  pending: number;
  /** The last attempt's answer: an HTTP status, "timeout" or "unreachable"; absent before any. */
  lastStatus?: string;
  lastAttemptAt?: string;
  /** Failed attempts in all. */
  failures: number;
  /** Set once it failed for the whole give-up window: it delivers nothing more. */
  failing: boolean;
  failingSince?: string;
  nextAttemptAt?: string;
}

interface WebhookRow extends Record<string, SqlStorageValue> {
  id: string;
  context: string;
  url: string;
  secret: string;
  created_at: number;
  delivered_seq: number;
  attempts: number;
  next_at: number | null;
  failing_since: number | null;
  failing: number;
  failures: number;
  last_status: string | null;
  last_at: number | null;
}

/** A change as a webhook's body carries it. */
interface ChangeEvent {
  context: string;
  seq: number;
  at: string;
  by: string;
  tool: string;
  summary: string;
}

/** A delivery due: the webhook, its secret and the next change it owes. */
export interface Due {
  id: string;
  url: string;
  secret: string;
  event: ChangeEvent;
}

const MAX_RETRY_MS = 10 * 60 * 1000;
/** The wait before retry `attempts` (1, 2, ...): 1 s, doubling, at most 10 minutes. */
const retryDelay = (attempts: number): number => Math.min(1000 * 2 ** Math.max(0, attempts - 1), MAX_RETRY_MS);

const iso = (t: number | null) => (t === null ? undefined : new Date(t).toISOString());
const topSeq = (db: Db) => db.one<{ seq: number | null }>("SELECT max(seq) AS seq FROM changes")?.seq ?? 0;

/** Adds a webhook that hears of every change from now on. */
export function addWebhook(db: Db, w: { id: string; context: string; url: string; secret: string }, now: number): void {
  db.run("INSERT INTO webhooks (id, context, url, secret, created_at, delivered_seq) VALUES (?, ?, ?, ?, ?, ?)", w.id, w.context, w.url, w.secret, now, topSeq(db));
}

/** Removes one; false when there was none of that id. */
export const removeWebhook = (db: Db, id: string): boolean => db.run("DELETE FROM webhooks WHERE id = ?", id) > 0;

export function listWebhooks(db: Db): WebhookInfo[] {
  const top = topSeq(db);
  return db.all<WebhookRow>("SELECT * FROM webhooks ORDER BY created_at, id").map((r) => ({
    id: r.id,
    url: r.url,
    createdAt: new Date(r.created_at).toISOString(),
    deliveredSeq: r.delivered_seq,
    pending: db.one<{ n: number }>("SELECT count(*) AS n FROM changes WHERE seq > ? AND seq <= ?", r.delivered_seq, top)?.n ?? 0,
    ...(r.last_status !== null ? { lastStatus: r.last_status } : {}),
    ...(r.last_at !== null ? { lastAttemptAt: iso(r.last_at) } : {}),
    failures: r.failures,
    failing: r.failing === 1,
    ...(r.failing_since !== null ? { failingSince: iso(r.failing_since) } : {}),
    ...(r.next_at !== null && r.failing === 0 ? { nextAttemptAt: iso(r.next_at) } : {}),
  }));
}

/** Whether any webhook may still deliver (a cheap check after every write). */
export const anyActive = (db: Db): boolean => db.one("SELECT 1 AS x FROM webhooks WHERE failing = 0 LIMIT 1") !== undefined;

/** The next delivery of each webhook that owes one and whose backoff has passed. */
export function dueDeliveries(db: Db, now: number): Due[] {
  const rows = db.all<WebhookRow>("SELECT * FROM webhooks WHERE failing = 0 AND (next_at IS NULL OR next_at <= ?) ORDER BY created_at, id", now);
  return rows.flatMap((r) => {
    const c = db.one<{ seq: number; at: number; caller: string; tool: string; summary: string }>(
      "SELECT seq, at, caller, tool, summary FROM changes WHERE seq > ? ORDER BY seq LIMIT 1",
      r.delivered_seq,
    );
    if (!c) return [];
    return [
      {
        id: r.id,
        url: r.url,
        secret: r.secret,
        event: { context: r.context, seq: c.seq, at: new Date(c.at).toISOString(), by: c.caller, tool: c.tool, summary: c.summary },
      },
    ];
  });
}

/** Records a 2xx answer: the cursor moves past `seq` and a failure streak ends. */
export function delivered(db: Db, id: string, seq: number, status: string, now: number): void {
  db.run(
    "UPDATE webhooks SET delivered_seq = max(delivered_seq, ?), attempts = 0, next_at = NULL, failing_since = NULL, last_status = ?, last_at = ? WHERE id = ?",
    seq,
    status,
    now,
    id,
  );
}

/** Records a failed attempt: the next after backoff, or the webhook marked failing once the streak lasted `giveUpMs`. */
export function attemptFailed(db: Db, id: string, status: string, now: number, giveUpMs: number): void {
  const row = db.one<{ attempts: number; failing_since: number | null }>("SELECT attempts, failing_since FROM webhooks WHERE id = ?", id);
  if (!row) return;
  const attempts = row.attempts + 1;
  const since = row.failing_since ?? now;
  const failing = now - since >= giveUpMs ? 1 : 0;
  db.run(
    "UPDATE webhooks SET attempts = ?, failures = failures + 1, failing_since = ?, failing = ?, next_at = ?, last_status = ?, last_at = ? WHERE id = ?",
    attempts,
    since,
    failing,
    failing ? null : now + retryDelay(attempts),
    status,
    now,
    id,
  );
}

/** When the earliest backoff ends among webhooks still delivering, if any waits. */
export const nextRetryAt = (db: Db): number | null =>
  db.one<{ at: number | null }>("SELECT min(next_at) AS at FROM webhooks WHERE failing = 0 AND next_at IS NOT NULL")?.at ?? null;
