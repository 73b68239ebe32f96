/**
 * Live subscriptions over 2025-era Streamable HTTP: `resources/subscribe`
 * and `resources/unsubscribe` for memory://brief and the item templates, and
 * the session's GET stream, on which `notifications/resources/updated`
 * arrive. The context's object holds the subscriptions and the streams
 * (src/context/subscribers.ts); every request is still served statelessly.
 *
 * ## Sessions
 * A 2025-era `initialize` is answered with an `Mcp-Session-Id` (`issueSession`).
 * Nothing is stored for it: it only names the session's subscriptions, keyed
 * by the caller's stable id and the session id (`listenerOf`), so a caller
 * can never listen to another's. The context is the request's (the URL's,
 * else the caller's active one), for subscribing and for the stream alike.
 *
 * ## The stream
 * A GET with the session id opens a WebSocket to the context's object and
 * writes each URI it sends as one server-sent event, with a comment line as
 * a keep-alive every KEEP_ALIVE_MS. When the object closes the socket (an
 * eviction, a deploy) the stream ends and the client opens it again.
 * Every stream, this one and a listen's, is kept to a caller that may still
 * read its context (./watch.ts): a revoked token's or ended grant's stream
 * is closed, and its subscriptions dropped.
 *
 * ## 2026-07-28: subscriptions/listen
 * A listen request whose filter names resource URIs is checked here
 * (`listenUris`, `checkListen`), then its stream's WebSocket is opened to
 * the context's object, which stores the filter's URIs for as long as the
 * socket lives (`openFeed`). The SDK's own listen router, in a handler made
 * for this one request (src/mcp/http.ts), writes the acknowledgement, the
 * stamped notifications and the keep-alives; it is fed by the socket
 * (`ContextFeed`), not by an in-process bus. When the client leaves, the
 * router unsubscribes and the socket closes; when the object closes the
 * socket, the router ends the stream with the empty listen result (the
 * spec's graceful close) and the client listens again.
 */
import { ProtocolError, ProtocolErrorCode, UriTemplate, type McpServer, type ServerEvent, type ServerEventBus } from "@modelcontextprotocol/server";
import { callerIdOf, type Caller } from "../auth/caller";
import { describeThrown, errorRef } from "../errors";
import { itemRef, itemKey, type ItemKind } from "../items";
import { LISTENER_HEADER } from "../context/subscribers";
import { BRIEF, listenListener, sessionListener, type SubscriptionTarget } from "../history/subscriptions";
import { LIMITS } from "../limits";
import { decodeName, runGuarded, servedKinds, unwrapped, type GuideScope } from "./guide";
import type { ResolvedContext } from "./tool";
import { CallerWatch, type StreamCheck } from "./watch";

const BRIEF_URI = "memory://brief";
const KEEP_ALIVE_MS = 25_000;

/** The prefix of the session ids this server issues (co-visitation leaves them out, src/index.ts). */
export const SESSION_PREFIX = "engram-";

/** A new 2025-era session id. */
export const issueSession = () => `${SESSION_PREFIX}${crypto.randomUUID()}`;

const listenerOf = (caller: Caller, session: string) => sessionListener(callerIdOf(caller), session);

/** Where each served item kind's URIs are matched. */
const TEMPLATES: Readonly<Record<ItemKind, UriTemplate>> = {
  entity: new UriTemplate("memory://entity/{name}"),
  file: new UriTemplate("memory://file/{+path}"),
  doc: new UriTemplate("memory://doc/{id}"),
};

const VARIABLE: Readonly<Record<ItemKind, string>> = { entity: "name", file: "path", doc: "id" };

/** What a URI names among the served kinds, or the protocol error saying which URIs can be subscribed to. */
function targetOf(uri: unknown, kinds: readonly ItemKind[]): SubscriptionTarget {
  if (uri === BRIEF_URI) return BRIEF;
  if (typeof uri === "string") {
    for (const kind of kinds) {
      const name = decodeName(TEMPLATES[kind].match(uri)?.[VARIABLE[kind]]);
      const ref = name ? itemRef(itemKey[kind](name)) : undefined;
      if (ref) return ref;
    }
  }
  const served = [BRIEF_URI, ...kinds.map((k) => TEMPLATES[k].toString())].join(", ");
  return fail(`Unknown resource URI ${JSON.stringify(uri)}: subscribe to one of ${served}.`);
}

function fail(message: string): never {
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, message);
}

const NO_SESSION =
  "resources/subscribe needs a session: initialize over Streamable HTTP, send the Mcp-Session-Id header the answer carries, and open the GET stream on which notifications arrive.";

/**
 * Declares resources.subscribe, on both lanes; a 2025-era request's server
 * also answers resources/subscribe and resources/unsubscribe (a 2026-07-28
 * client listens instead, served in front of the SDK: src/mcp/http.ts).
 */
export function registerSubscriptions(server: McpServer, scope: GuideScope, caller: Caller, session: string | undefined, legacy: boolean): void {
  const kinds = servedKinds(scope.toolsets);
  server.server.registerCapabilities({ resources: { subscribe: true } });
  if (!legacy) return;
  const listener = () => (session ? listenerOf(caller, session) : fail(NO_SESSION));
  server.server.setRequestHandler("resources/subscribe", (request) =>
    runGuarded("resources/subscribe", async () => {
      const key = listener();
      const uri = request.params.uri;
      const target = targetOf(uri, kinds);
      const opened = await scope.open("resources/subscribe");
      unwrapped(await opened.stub.subscribe(key, uri, target, opened.meta), uri);
      return {};
    }),
  );
  server.server.setRequestHandler("resources/unsubscribe", (request) =>
    runGuarded("resources/unsubscribe", async () => {
      const key = listener();
      targetOf(request.params.uri, kinds);
      const opened = await scope.open("resources/unsubscribe");
      unwrapped(await opened.stub.unsubscribe(key, request.params.uri, opened.meta));
      return {};
    }),
  );
}

const encoder = new TextEncoder();

const updated = (uri: string) =>
  encoder.encode(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } })}\n\n`);

/** The URIs of one message from the context's object, or none for anything else. */
function urisOf(data: unknown): string[] {
  if (typeof data !== "string") return [];
  try {
    const parsed = JSON.parse(data) as { uris?: unknown };
    return Array.isArray(parsed.uris) ? parsed.uris.filter((u): u is string => typeof u === "string") : [];
  } catch {
    return [];
  }
}

/** The session's GET stream, opened on `opened` (the request's context), kept to a caller that passes `check`. */
export async function serveStream(opened: ResolvedContext, caller: Caller, session: string, check: StreamCheck): Promise<Response> {
  const upgrade = await opened.stub.fetch("https://context/listen", { headers: { Upgrade: "websocket", [LISTENER_HEADER]: listenerOf(caller, session) } });
  const ws = upgrade.webSocket;
  if (!ws) {
    const ref = errorRef();
    console.error(JSON.stringify({ event: "stream_refused", ref, status: upgrade.status }));
    return Response.json({ jsonrpc: "2.0", error: { code: -32603, message: `Internal error (ref ${ref}).` }, id: null }, { status: 500 });
  }
  ws.accept();
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  let end = () => {};
  const watch = new CallerWatch(ws, check, () => end());
  const stop = () => {
    clearInterval(keepAlive);
    watch.stop();
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      end = () => {
        stop();
        try {
          controller.close();
        } catch {
          // Already cancelled by the client.
        }
      };
      ws.addEventListener("message", (event) => {
        const uris = urisOf(event.data);
        if (uris.length === 0) return;
        watch.deliver(() => {
          try {
            for (const uri of uris) controller.enqueue(updated(uri));
          } catch (error) {
            console.error(JSON.stringify({ event: "stream_failed", ...describeThrown(error) }));
          }
        });
      });
      ws.addEventListener("close", end);
      ws.addEventListener("error", end);
      keepAlive = setInterval(() => {
        try {
          controller.enqueue(encoder.encode(": keep-alive\n\n"));
        } catch {
          stop();
        }
      }, KEEP_ALIVE_MS);
    },
    cancel() {
      stop();
      try {
        ws.close(1000, "client left");
      } catch {
        // Already closed by the object.
      }
    },
  });
  return new Response(body, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", "Mcp-Session-Id": session } });
}

/**
 * The resource URIs of a `subscriptions/listen` request, or undefined when
 * its filter names none in a form the SDK accepts: the SDK answers those
 * itself (its -32602 for a missing or malformed filter, else the
 * acknowledgement of what it honors).
 */
export function listenUris(body: unknown): string[] | undefined {
  const params = (body as { params?: { notifications?: { resourceSubscriptions?: unknown } } } | undefined)?.params;
  const uris = params?.notifications?.resourceSubscriptions;
  if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u): u is string => typeof u === "string")) return undefined;
  return [...new Set(uris)];
}

/** The filter's URIs with their targets, or the protocol error for the first unknown one (nothing is opened or stored). */
export function checkListen(uris: readonly string[], kinds: readonly ItemKind[]): { uri: string; target: SubscriptionTarget }[] {
  const max = LIMITS.subscriptionsPerSession;
  if (uris.length > max) fail(`A subscriptions/listen filter holds at most ${max} resource URIs; listen on more streams for more.`);
  return uris.map((uri) => ({ uri, target: targetOf(uri, kinds) }));
}

/**
 * The change feed of one listen stream, as the SDK's ServerEventBus: the
 * URIs the context's object sends over the socket become `resource_updated`
 * events for the one listener the SDK's router registers, once the caller
 * passes its check (./watch.ts). Its unsubscribing (the client left) closes
 * the socket; the socket closing (an eviction) or the caller failing its
 * check calls `ended`.
 */
class ContextFeed implements ServerEventBus {
  private listener: ((event: ServerEvent) => void) | undefined;
  private subscribed = false;
  private readonly watch: CallerWatch;
  /** Whether the socket has closed. */
  gone = false;
  /** Called when the socket closes. */
  ended: () => void = () => {};

  constructor(
    private readonly ws: WebSocket,
    check: StreamCheck,
  ) {
    const end = () => {
      if (this.gone) return;
      this.gone = true;
      this.listener = undefined;
      this.watch.stop();
      this.ended();
    };
    this.watch = new CallerWatch(ws, check, end);
    ws.addEventListener("message", (event) => {
      const uris = urisOf(event.data);
      if (uris.length === 0) return;
      this.watch.deliver(() => {
        for (const uri of uris) this.publish({ kind: "resource_updated", uri });
      });
    });
    ws.addEventListener("close", end);
    ws.addEventListener("error", end);
  }

  publish(event: ServerEvent): void {
    try {
      this.listener?.(event);
    } catch (error) {
      console.error(JSON.stringify({ event: "stream_failed", ...describeThrown(error) }));
    }
  }

  subscribe(listener: (event: ServerEvent) => void): () => void {
    this.listener = listener;
    this.subscribed = true;
    return () => this.close();
  }

  /** Whether the SDK's router took the stream (it did not for a request it refused, or a filter it honored nothing of). */
  get taken(): boolean {
    return this.subscribed;
  }

  close(): void {
    this.listener = undefined;
    this.watch.stop();
    try {
      this.ws.close(1000, "stream closed");
    } catch {
      // Already closed by the object.
    }
  }
}

/** What opening a listen stream's feed gave: the feed, or the refusal to answer with (nothing stored). */
type FeedOpening = { feed: ContextFeed } | { refusal: ProtocolError };

/**
 * Opens one listen stream's feed on `opened` (the request's context): a
 * WebSocket to the context's object, tagged with a listener key of its own,
 * then the filter's URIs stored for it, all or none; kept to a caller that passes `check`.
 */
export async function openFeed(
  opened: ResolvedContext,
  caller: Caller,
  entries: { uri: string; target: SubscriptionTarget }[],
  check: StreamCheck,
): Promise<FeedOpening> {
  const listener = listenListener(callerIdOf(caller));
  const upgrade = await opened.stub.fetch("https://context/listen", { headers: { Upgrade: "websocket", [LISTENER_HEADER]: listener } });
  const ws = upgrade.webSocket;
  if (!ws) {
    const ref = errorRef();
    console.error(JSON.stringify({ event: "stream_refused", ref, status: upgrade.status }));
    return { refusal: new ProtocolError(ProtocolErrorCode.InternalError, `Internal error (ref ${ref}).`) };
  }
  ws.accept();
  const feed = new ContextFeed(ws, check);
  try {
    const { missing } = unwrapped(await opened.stub.listen(listener, entries, opened.meta));
    if (missing) unwrapped({ ok: false, kind: "NotFound", message: missing.message }, missing.uri);
    return { feed };
  } catch (error) {
    feed.close();
    if (error instanceof ProtocolError) return { refusal: error };
    throw error;
  }
}
