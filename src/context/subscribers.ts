/**
 * The open streams of live subscriptions (the store is
 * src/history/subscriptions.ts; the MCP side is src/mcp/subscriptions.ts).
 *
 * ## Streams
 * The Worker serving a session's GET stream opens a WebSocket to this
 * object (`accept`), tagged with the session's listener key, and turns what
 * arrives into server-sent events. The object accepts it as a hibernatable
 * WebSocket, so an idle context sleeps with its streams open.
 *
 * ## Delivery
 * After each committed change (`notify`, called by the runner's commit hook
 * and after the alarm's work) every listener with an open stream is sent
 * one message, `{"uris": [...]}`: the URIs it subscribed to that the
 * changes since the last notification touched. `notified` is that last
 * seq, in memory: it is set when the object starts and when the first
 * stream opens, so a stream hears of changes committed after it opened.
 *
 * ## Closing
 * The Worker closes a stream's socket when its client leaves, and with
 * CALLER_REVOKED when the caller's token was revoked or its OAuth grant
 * ended (src/mcp/watch.ts). `closed` then drops a listen stream's rows, or,
 * for CALLER_REVOKED, every row of that caller in the context.
 *
 * ## Eviction
 * Hibernation keeps the sockets. An eviction or restart (a deploy, a purge,
 * point-in-time recovery) closes them: the Worker ends the GET stream and
 * the client opens it again. Subscriptions are rows, so they survive; a
 * change committed while no stream was open is not sent later.
 */
import { dropCaller, dropIdle, dropListener, lastSeq, SUBSCRIPTION_IDLE_HOURS, touchedSince } from "../history/subscriptions";
import type { Db } from "../storage/sql";

/** The request header naming the listener a stream is for. */
export const LISTENER_HEADER = "X-Engram-Listener";

/** The close code of a stream whose caller may no longer read the context (an application code, 4000-4999). */
export const CALLER_REVOKED = 4401;

const SUBSCRIPTION_IDLE_MS = SUBSCRIPTION_IDLE_HOURS * 3600_000;

export interface SubscribersHost {
  state: DurableObjectState;
  db: Db;
  transaction: <T>(fn: () => T) => T;
  now: () => number;
}

export class Subscribers {
  private notified = 0;

  constructor(private readonly host: SubscribersHost) {}

  /** Starts the cursor at the latest change: called once the database is ready, and again after a purge. */
  start(): void {
    this.notified = lastSeq(this.host.db);
  }

  /** Answers the Worker's WebSocket upgrade for one listener's stream. */
  accept(request: Request): Response {
    const listener = request.headers.get(LISTENER_HEADER);
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket" || !listener) {
      return Response.json({ error: "invalid_request", message: `Expected a WebSocket upgrade with ${LISTENER_HEADER}.` }, { status: 400 });
    }
    const { state, db, transaction, now } = this.host;
    if (state.getWebSockets().length === 0) this.notified = lastSeq(db);
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    state.acceptWebSocket(server, [listener]);
    transaction(() => dropIdle(db, this.listeners(), now(), now() - SUBSCRIPTION_IDLE_MS));
    return new Response(null, { status: 101, webSocket: client });
  }

  /** The listener keys with an open stream. */
  listeners(): string[] {
    return [...new Set(this.host.state.getWebSockets().flatMap((ws) => this.host.state.getTags(ws)))];
  }

  /**
   * The Worker closed a stream: its listen stream's rows go, and for
   * CALLER_REVOKED every row of its caller. A socket this object never
   * accepted (seen when the test runner replaces an object while a stream
   * closes) has no tags: getTags throws for it, and a close handler must not.
   */
  closed(ws: WebSocket, code: number): void {
    let listeners: string[];
    try {
      listeners = this.host.state.getTags(ws);
    } catch {
      listeners = [];
    }
    const { db, transaction } = this.host;
    for (const listener of listeners) transaction(() => (code === CALLER_REVOKED ? dropCaller(db, listener) : dropListener(db, listener)));
  }

  /** Sends each open stream the URIs of its subscriptions the changes since the last call touched. Never throws. */
  notify(): void {
    const { state, db } = this.host;
    if (state.getWebSockets().length === 0) return;
    const { upTo, byListener } = touchedSince(db, this.notified);
    this.notified = upTo;
    for (const [listener, uris] of byListener) {
      const message = JSON.stringify({ uris });
      for (const ws of state.getWebSockets(listener)) {
        try {
          ws.send(message);
        } catch {
          // A socket closing as we send: its stream has ended, and the client opens another.
        }
      }
    }
  }
}
