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
 */
import { ProtocolError, ProtocolErrorCode, UriTemplate, type McpServer } from "@modelcontextprotocol/server";
import { callerIdOf, type Caller } from "../auth/caller";
import { describeThrown, errorRef } from "../errors";
import { itemRef, itemKey, type ItemKind } from "../items";
import { LISTENER_HEADER } from "../context/subscribers";
import { BRIEF, type SubscriptionTarget } from "../history/subscriptions";
import { decodeName, runGuarded, servedKinds, unwrapped, type GuideScope } from "./guide";
import type { ResolvedContext } from "./tool";

const BRIEF_URI = "memory://brief";
const KEEP_ALIVE_MS = 25_000;

/** The prefix of the session ids this server issues (co-visitation leaves them out, src/index.ts). */
export const SESSION_PREFIX = "engram-";

/** A new 2025-era session id. */
export const issueSession = () => `${SESSION_PREFIX}${crypto.randomUUID()}`;

const listenerOf = (caller: Caller, session: string) => `${callerIdOf(caller)}/${session}`;

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

/** Declares resources.subscribe and answers resources/subscribe and resources/unsubscribe (2025-era requests only). */
export function registerSubscriptions(server: McpServer, scope: GuideScope, caller: Caller, session: string | undefined): void {
  const kinds = servedKinds(scope.toolsets);
  server.server.registerCapabilities({ resources: { subscribe: true } });
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

/** The session's GET stream, opened on `opened` (the request's context). */
export async function serveStream(opened: ResolvedContext, caller: Caller, session: string): Promise<Response> {
  const upgrade = await opened.stub.fetch("https://context/listen", { headers: { Upgrade: "websocket", [LISTENER_HEADER]: listenerOf(caller, session) } });
  const ws = upgrade.webSocket;
  if (!ws) {
    const ref = errorRef();
    console.error(JSON.stringify({ event: "stream_refused", ref, status: upgrade.status }));
    return Response.json({ jsonrpc: "2.0", error: { code: -32603, message: `Internal error (ref ${ref}).` }, id: null }, { status: 500 });
  }
  ws.accept();
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const stop = () => clearInterval(keepAlive);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const end = () => {
        stop();
        try {
          controller.close();
        } catch {
          // Already cancelled by the client.
        }
      };
      ws.addEventListener("message", (event) => {
        try {
          for (const uri of urisOf(event.data)) controller.enqueue(updated(uri));
        } catch (error) {
          console.error(JSON.stringify({ event: "stream_failed", ...describeThrown(error) }));
        }
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
