/**
 * Live subscriptions of a context: which resource URIs each listening
 * session asked to hear about, and which of them a change touched. Read and
 * written in the context's object; the streams live in
 * src/context/subscribers.ts, the protocol in src/mcp/subscriptions.ts.
 *
 * ## Storage layout
 * `subscriptions(listener, uri, item, seen_at)` (migrations/0023_subscriptions.sql):
 * one row per session and URI. `item` is the item key the URI names, or
 * BRIEF for memory://brief, which every change touches. The change log says
 * what changed: a change touches the items of its `change_items` rows
 * (a rename both names, a merge every entity it folded).
 *
 * ## Lifecycle
 * A row lives until the session unsubscribes, or until the session has
 * neither subscribed nor had its stream open for the idle window
 * (`dropIdle`, run at each subscribe and stream connection).
 */
import { DomainError } from "../errors";
import { ITEM_TABLES, itemKey, type ItemRef } from "../items";
import type { Db } from "../storage/sql";

/** The `item` of a memory://brief subscription. */
export const BRIEF = "brief";

/** What a URI names: the brief, or one item (its key's name part as the client wrote it). */
export type SubscriptionTarget = typeof BRIEF | ItemRef;

/**
 * Subscribes `listener` to `uri`. An item must exist now (its key is stored
 * with the name as the item has it, so a case-insensitive entity name still
 * matches its changes); a session holds at most `max` URIs.
 */
export function subscribe(db: Db, listener: string, uri: string, target: SubscriptionTarget, now: number, max: number): void {
  let item = BRIEF;
  if (target !== BRIEF) {
    const { table, keyColumn } = ITEM_TABLES[target.kind];
    const row = db.one<{ name: string }>(`SELECT ${keyColumn} AS name FROM ${table} WHERE ${keyColumn} = ?`, target.name);
    if (!row) {
      throw new DomainError(
        "NotFound",
        `no ${target.kind === "doc" ? "document" : target.kind} ${JSON.stringify(target.name)} in this context; subscribe to memory://brief to hear of new items`,
      );
    }
    item = itemKey[target.kind](row.name);
  }
  const held = db.one<{ n: number }>("SELECT COUNT(*) AS n FROM subscriptions WHERE listener = ? AND uri <> ?", listener, uri)?.n ?? 0;
  if (held >= max) throw new DomainError("TooLarge", `a session holds at most ${max} subscriptions; unsubscribe from one first`);
  db.run("INSERT OR REPLACE INTO subscriptions (listener, uri, item, seen_at) VALUES (?, ?, ?, ?)", listener, uri, item, now);
}

/** Whether `listener` was subscribed to `uri` (it is not any more). */
export function unsubscribe(db: Db, listener: string, uri: string): boolean {
  return db.all("DELETE FROM subscriptions WHERE listener = ? AND uri = ? RETURNING uri", listener, uri).length > 0;
}

/** Marks listeners with an open stream as seen, then drops every session idle since `before`. */
export function dropIdle(db: Db, live: readonly string[], now: number, before: number): void {
  if (live.length > 0) db.run("UPDATE subscriptions SET seen_at = ? WHERE listener IN (SELECT value FROM json_each(?))", now, JSON.stringify(live));
  db.run("DELETE FROM subscriptions WHERE seen_at < ?", before);
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
