/**
 * Live subscriptions of a context: which resource URIs each listening
 * session asked to hear about, and which of them a change touched. Read and
 * written in the context's object; the streams live in
 * src/context/subscribers.ts, the protocol in src/mcp/subscriptions.ts.
 *
 * ## Storage layout
 * `subscriptions(listener, uri, item, seen_at, reader)` (migrations/0023_subscriptions.sql,
 * migrations/0026_subscription_readers.sql): one row per session and URI.
 * `listener` starts with the caller's id (`sessionListener`, `listenListener`),
 * so no caller can listen to another's. `item` is the item key the URI names,
 * or BRIEF for memory://brief, which every change touches. `reader` is the
 * token behind the caller (src/history/since.ts), whose rows in the context
 * are capped whatever session ids it makes up. The change log says what
 * changed: a change touches the items of its `change_items` rows (a rename
 * both names, a merge every entity it folded).
 *
 * ## Lifecycle
 * A 2025-era session's row lives until the session unsubscribes, or until
 * the session has neither subscribed nor had its stream open for the idle
 * window (`dropIdle`, run at each stream connection). A `subscriptions/listen`
 * stream's rows (listener `LISTEN_PREFIX`…) live as long as its stream: they
 * are written when it opens (`listen`) and dropped when it closes
 * (`dropListener`), or, after an eviction, at the next stream connection.
 * A stream closed because its caller was revoked takes every row of that
 * caller in the context with it (`dropCaller`).
 */
import { DomainError } from "../errors";
import { ITEM_TABLES, itemKey, type ItemRef } from "../items";
import type { Db } from "../storage/sql";

/** The `item` of a memory://brief subscription. */
export const BRIEF = "brief";

/** What a URI names: the brief, or one item (its key's name part as the client wrote it). */
export type SubscriptionTarget = typeof BRIEF | ItemRef;

/** The item key a target names, with the name as the item has it (a case-insensitive entity name still matches its changes); the item must exist now. */
function itemOf(db: Db, target: SubscriptionTarget): string {
  if (target === BRIEF) return BRIEF;
  const { table, keyColumn } = ITEM_TABLES[target.kind];
  const row = db.one<{ name: string }>(`SELECT ${keyColumn} AS name FROM ${table} WHERE ${keyColumn} = ?`, target.name);
  if (!row) {
    throw new DomainError(
      "NotFound",
      `no ${target.kind === "doc" ? "document" : target.kind} ${JSON.stringify(target.name)} in this context; subscribe to memory://brief to hear of new items`,
    );
  }
  return itemKey[target.kind](row.name);
}

/** The prefix of a `subscriptions/listen` stream's listener key: its rows live only as long as its stream. */
const LISTEN_PREFIX = "listen ";

/** A session that neither subscribed nor had its stream open for this many hours loses its subscriptions (`dropIdle`). */
export const SUBSCRIPTION_IDLE_HOURS = 24;

/** The listener key of a 2025-era session's subscriptions: the caller's id, then the session's. */
export const sessionListener = (callerId: string, session: string): string => `${callerId}/${session}`;

/** A new `subscriptions/listen` stream's listener key: the caller's id, then an id of its own. */
export const listenListener = (callerId: string): string => `${LISTEN_PREFIX}${callerId} ${crypto.randomUUID()}`;

/** How many subscriptions one session, and one reader in all, may hold in a context (LIMITS). */
export interface SubscriptionCaps {
  perSession: number;
  perCaller: number;
}

/** Refuses `adding` more rows for `reader` past its cap (`replacing`: a row it holds that the insert replaces). */
function checkCallerCap(db: Db, reader: string, adding: number, max: number, replacing?: { listener: string; uri: string }): void {
  const held = replacing
    ? db.one<{ n: number }>("SELECT COUNT(*) AS n FROM subscriptions WHERE reader = ? AND NOT (listener = ? AND uri = ?)", reader, replacing.listener, replacing.uri)
    : db.one<{ n: number }>("SELECT COUNT(*) AS n FROM subscriptions WHERE reader = ?", reader);
  if ((held?.n ?? 0) + adding > max) {
    throw new DomainError(
      "TooLarge",
      `a caller holds at most ${max} subscriptions in a context, across its sessions and listen streams; unsubscribe from some or close a stream first (a session's go after ${SUBSCRIPTION_IDLE_HOURS} hours without its stream)`,
    );
  }
}

/**
 * Subscribes `listener` (of `reader`) to `uri`. An item must exist now; a
 * session holds at most `caps.perSession` URIs, a reader `caps.perCaller` in all.
 */
export function subscribe(db: Db, listener: string, reader: string, uri: string, target: SubscriptionTarget, now: number, caps: SubscriptionCaps): void {
  const item = itemOf(db, target);
  const held = db.one<{ n: number }>("SELECT COUNT(*) AS n FROM subscriptions WHERE listener = ? AND uri <> ?", listener, uri)?.n ?? 0;
  if (held >= caps.perSession) throw new DomainError("TooLarge", `a session holds at most ${caps.perSession} subscriptions; unsubscribe from one first`);
  checkCallerCap(db, reader, 1, caps.perCaller, { listener, uri });
  db.run("INSERT OR REPLACE INTO subscriptions (listener, uri, item, seen_at, reader) VALUES (?, ?, ?, ?, ?)", listener, uri, item, now, reader);
}

/**
 * A `subscriptions/listen` filter's URIs, all or none: every item must
 * exist now, and `reader` may hold at most `maxPerCaller` in all. The first
 * missing one is returned, with why, and nothing is stored.
 */
export function listen(
  db: Db,
  listener: string,
  reader: string,
  entries: readonly { uri: string; target: SubscriptionTarget }[],
  now: number,
  maxPerCaller: number,
): { uri: string; message: string } | undefined {
  const items: { uri: string; item: string }[] = [];
  for (const { uri, target } of entries) {
    try {
      items.push({ uri, item: itemOf(db, target) });
    } catch (error) {
      if (error instanceof DomainError && error.kind === "NotFound") return { uri, message: error.message };
      throw error;
    }
  }
  checkCallerCap(db, reader, items.length, maxPerCaller);
  for (const { uri, item } of items) {
    db.run("INSERT OR REPLACE INTO subscriptions (listener, uri, item, seen_at, reader) VALUES (?, ?, ?, ?, ?)", listener, uri, item, now, reader);
  }
  return undefined;
}

/** Drops a `subscriptions/listen` stream's rows once its stream has closed (a 2025-era session's rows outlive its stream). */
export function dropListener(db: Db, listener: string): void {
  if (listener.startsWith(LISTEN_PREFIX)) db.run("DELETE FROM subscriptions WHERE listener = ?", listener);
}

/**
 * Drops every row of the caller `listener` belongs to, its other sessions'
 * and listen streams' included: its token was revoked or its grant ended.
 */
export function dropCaller(db: Db, listener: string): void {
  // Caller ids (`callerIdOf`: a token's or an OAuth grant's id, admin, local) hold neither "/" nor a space: the caller ends at the first.
  const callerId = listener.startsWith(LISTEN_PREFIX) ? listener.slice(LISTEN_PREFIX.length).split(" ")[0] : listener.split("/")[0];
  if (!callerId) return;
  const session = sessionListener(callerId, "");
  const stream = `${LISTEN_PREFIX}${callerId} `;
  db.run("DELETE FROM subscriptions WHERE substr(listener, 1, ?) = ? OR substr(listener, 1, ?) = ?", session.length, session, stream.length, stream);
}

/** Whether `listener` was subscribed to `uri` (it is not any more). */
export function unsubscribe(db: Db, listener: string, uri: string): boolean {
  return db.all("DELETE FROM subscriptions WHERE listener = ? AND uri = ? RETURNING uri", listener, uri).length > 0;
}

/**
 * Marks listeners with an open stream as seen, then drops every session idle
 * since `before`, and every listen stream's rows whose stream is gone (an
 * eviction closes streams without telling the object).
 */
export function dropIdle(db: Db, live: readonly string[], now: number, before: number): void {
  const open = JSON.stringify(live);
  if (live.length > 0) db.run("UPDATE subscriptions SET seen_at = ? WHERE listener IN (SELECT value FROM json_each(?))", now, open);
  db.run("DELETE FROM subscriptions WHERE seen_at < ?", before);
  db.run(
    "DELETE FROM subscriptions WHERE substr(listener, 1, ?) = ? AND listener NOT IN (SELECT value FROM json_each(?))",
    LISTEN_PREFIX.length,
    LISTEN_PREFIX,
    open,
  );
}

/** The latest change's seq (0 before any). */
export const lastSeq = (db: Db): number => db.one<{ seq: number | null }>("SELECT MAX(seq) AS seq FROM changes")?.seq ?? 0;

/**
 * The URIs each listener hears of for the changes after `after` (the brief's
 * with any change), and the seq they go up to.
 */
export function touchedSince(db: Db, after: number): { upTo: number; byListener: Map<string, string[]> } {
  const upTo = lastSeq(db);
  const byListener = new Map<string, string[]>();
  if (upTo <= after) return { upTo, byListener };
  const rows = db.all<{ listener: string; uri: string }>(
    `SELECT listener, uri FROM subscriptions
     WHERE item = ? OR item IN (SELECT item FROM change_items WHERE seq > ? AND seq <= ?)
     ORDER BY listener, uri`,
    BRIEF,
    after,
    upTo,
  );
  for (const { listener, uri } of rows) {
    const uris = byListener.get(listener);
    if (uris) uris.push(uri);
    else byListener.set(listener, [uri]);
  }
  return { upTo, byListener };
}
