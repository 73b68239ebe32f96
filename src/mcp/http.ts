/**
 * The MCP endpoint over HTTP. 2026-07-28 requests go to the SDK's
 * createMcpHandler (strict: it answers nothing else). 2025-era requests
 * (`initialize`, POSTs and a session's GET stream) are served here, statelessly, the way
 * the SDK's own fallback serves them (a fresh server and transport per POST)
 * with three differences:
 *
 * - The answer is JSON, not a one-event SSE stream. Both are allowed (the
 *   client must accept both), no tool sends a notification before its result,
 *   and the SDK answers 2026-07-28 requests the same way unless one does.
 * - The server and transport are closed once the exchange has settled (the
 *   next macrotask), not while the SDK's request handler is still finishing:
 *   closing earlier aborts that handler's AbortController with an error,
 *   which costs time on every call (`npm run bench:mcp` shows it; the SDK's
 *   2026-07-28 path, closing in a microtask, pays it). In JSON mode nothing
 *   stays open (no stream, no keep-alive timer), so a close that never runs
 *   leaves only garbage.
 *
 * - An `initialize` answer carries a new `Mcp-Session-Id` (unless the
 *   request already carried one), and a GET with one opens that session's
 *   stream of resource notifications (./subscriptions.ts). Nothing else
 *   depends on the session: every POST is still served on its own.
 *
 * A 2026-07-28 `subscriptions/listen` naming resource URIs is served in
 * front of the SDK's shared handler (`serveListen`): its events come from the
 * context's object, not from the shared handler's in-process bus.
 *
 * Each server registers only what its request can reach (`surfaceOf`).
 * Telling the eras apart (`isLegacyRequest`) classifies a 2026-07-28 request
 * twice, here and again in the SDK's handler, which costs microseconds.
 *
 * CORS headers and preflight answers are the Worker's, for /mcp and /api
 * alike, echoing only an accepted origin (src/auth/origin.ts), and so is
 * Host validation for loopback and workers.dev URLs (`hostRefusal` in
 * src/auth/), all before authentication. The 2025-era lane does not refuse
 * server-to-client requests; no tool sends any (no sampling, elicitation or
 * roots).
 *
 * ## What is logged
 * The SDK reports every request it refuses or fails to `onerror`, its own
 * faults and a client's malformed request alike. The status of the answer
 * tells them apart: a 4xx is the client's mistake, answered with the
 * reason, and is logged as `mcp_rejected` at info level; a 5xx, or a report
 * outside any request, is a server fault and is logged as `mcp_error` at
 * error level.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createMcpHandler, isLegacyRequest, ProtocolError, WebStandardStreamableHTTPServerTransport, type AuthInfo } from "@modelcontextprotocol/server";
import { roleFor } from "../auth/grants";
import { recheckCaller } from "../auth/recheck";
import { settings } from "../settings";
import { invalid, servedKinds } from "./guide";
import { buildServer, openForRead, surfaceOf, type RequestScope, type Surface } from "./server";
import { checkListen, issueSession, listenUris, openFeed, serveStream } from "./subscriptions";
import { TIMING_HEADER } from "./tool";
import type { StreamCheck } from "./watch";

/** What serveMcpHttp passes to the server factory through the SDK (AuthInfo.extra). */
interface Extra {
  scope: RequestScope;
  surface: Surface;
}

const extraOf = (authInfo: AuthInfo | undefined) => authInfo?.extra as unknown as Extra;

/** What the SDK reported while one request was served, held until the answer's status says whose fault it was. */
interface Reports {
  errors: Error[];
  settled: boolean;
}

const reports = new AsyncLocalStorage<Reports>();

const logFault = (error: Error) => console.error(JSON.stringify({ event: "mcp_error", error: String(error) }));

const onerror = (error: Error) => {
  const held = reports.getStore();
  if (held && !held.settled) held.errors.push(error);
  else logFault(error);
};

/** Serves one request, then logs what the SDK reported by the answer's status (see "What is logged" above). */
async function serveAndReport(serve: () => Promise<Response>): Promise<Response> {
  const held: Reports = { errors: [], settled: false };
  const response = await reports.run(held, serve);
  held.settled = true;
  for (const error of held.errors) {
    if (response.status >= 500) logFault(error);
    else console.info(JSON.stringify({ event: "mcp_rejected", status: response.status, error: String(error) }));
  }
  return response;
}

const modern = createMcpHandler(
  (rc) => {
    const { scope, surface } = extraOf(rc.authInfo);
    return buildServer(scope, surface);
  },
  { legacy: "reject", onerror },
);

/** The SDK fallback's answers to what it cannot serve, kept for 2025-era clients. */
const jsonRpcError = (status: number, code: number, message: string, id: unknown = null) =>
  Response.json({ jsonrpc: "2.0", error: { code, message }, id }, { status, ...(status === 405 ? { headers: { Allow: "POST" } } : {}) });

/** One 2025-era request: a fresh server and transport, answered as JSON. */
async function serveLegacy(request: Request, authInfo: AuthInfo, parsedBody: unknown): Promise<Response> {
  const { scope, surface } = extraOf(authInfo);
  if (request.method === "GET" && scope.mcpSession) return openStream(request, scope, scope.mcpSession);
  if (request.method !== "POST") return jsonRpcError(405, -32000, "Method not allowed.");
  let close = () => {};
  try {
    // Built inside the try, as the SDK's modern lane calls its factory: a fault here is answered like any other.
    const server = buildServer(scope, surface);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    let closed = false;
    close = () => {
      if (closed) return;
      closed = true;
      transport.close().catch(() => {});
      server.close().catch(() => {});
    };
    await server.connect(transport);
    request.signal?.addEventListener("abort", close, { once: true });
    const response = await transport.handleRequest(request, parsedBody === undefined ? { authInfo } : { authInfo, parsedBody });
    setTimeout(close, 0);
    // A session id the initialize already carries (a gateway's) is the session's; otherwise one is issued.
    return isInitialize(parsedBody) && response.ok && !scope.mcpSession ? withSession(response) : response;
  } catch (error) {
    close();
    onerror(error instanceof Error ? error : new Error(String(error)));
    const id = (parsedBody as { id?: unknown } | undefined)?.id;
    return jsonRpcError(500, -32603, "Internal server error", typeof id === "string" || typeof id === "number" ? id : null);
  }
}

const isInitialize = (body: unknown) => typeof body === "object" && body !== null && (body as { method?: unknown }).method === "initialize";

/** An initialize answer with a new session id, which a client sends back to subscribe (./subscriptions.ts). */
function withSession(response: Response): Response {
  const headers = new Headers(response.headers);
  headers.set("Mcp-Session-Id", issueSession());
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** A session's GET stream, on the request's context (a refusal is answered like the SDK answers a bad request). */
async function openStream(request: Request, scope: RequestScope, session: string): Promise<Response> {
  const opened = await openForRead(scope, "stream");
  if ("ok" in opened) {
    if (opened.kind === "Internal") return jsonRpcError(500, -32603, opened.message);
    return jsonRpcError(opened.kind === "Forbidden" ? 403 : opened.kind === "NotFound" ? 404 : 400, -32000, opened.message);
  }
  return serveStream(opened, scope.caller, session, streamCheck(request, scope, opened.name));
}

/** How a stream `request` opened on `context` re-checks its caller (./watch.ts): as the caller's next request would be judged. */
function streamCheck(request: Request, scope: RequestScope, context: string): StreamCheck {
  return {
    mayRead: async () => {
      const now = await recheckCaller(scope.caller, request, scope.env);
      return now !== undefined && roleFor(now.grants, context) !== undefined;
    },
    cacheSeconds: settings(scope.env).TOKEN_CACHE_SECONDS,
  };
}

/** A refused subscriptions/listen, answered as the SDK's listen router answers one: in band, HTTP 200, before any acknowledgement. */
function listenRefusal(id: unknown, error: ProtocolError): Response {
  const { code, message, data } = error;
  return Response.json({ jsonrpc: "2.0", error: { code, message, ...(data !== undefined ? { data } : {}) }, id }, { status: 200 });
}

const isListen = (body: unknown) => typeof body === "object" && body !== null && (body as { method?: unknown }).method === "subscriptions/listen";

/**
 * A 2026-07-28 `subscriptions/listen` naming resource URIs (./subscriptions.ts):
 * the URIs are checked and the stream's feed opened on the request's
 * context, then the SDK's listen router, in a handler made for this request
 * with that feed as its bus, answers it (validation, acknowledgement,
 * stamping, keep-alives, teardown).
 */
async function serveListen(request: Request, authInfo: AuthInfo, parsedBody: unknown, uris: string[]): Promise<Response> {
  const { scope, surface } = extraOf(authInfo);
  const id = (parsedBody as { id?: unknown }).id ?? null;
  let entries: ReturnType<typeof checkListen>;
  try {
    entries = checkListen(uris, servedKinds(scope.toolsets));
  } catch (error) {
    if (error instanceof ProtocolError) return listenRefusal(id, error);
    throw error;
  }
  const opened = await openForRead(scope, "subscriptions/listen");
  if ("ok" in opened) return listenRefusal(id, invalid(opened));
  const opening = await openFeed(opened, scope.caller, entries, streamCheck(request, scope, opened.name));
  if ("refusal" in opening) return listenRefusal(id, opening.refusal);
  const { feed } = opening;
  const handler = createMcpHandler(() => buildServer(scope, surface), { legacy: "reject", onerror, bus: feed });
  // The object closed the socket (an eviction, a deploy): the router ends the stream with the empty listen result.
  feed.ended = () => void handler.close();
  try {
    const response = await handler.fetch(request, { authInfo, parsedBody });
    if (!feed.taken) feed.close();
    else if (feed.gone) await handler.close();
    return response;
  } catch (error) {
    feed.close();
    throw error;
  }
}

/** Answers one MCP request. Host, Origin, preflights and authentication are handled before this, and CORS headers added after (src/index.ts). */
export async function serveMcpHttp(request: Request, scope: RequestScope, clientId: string, parsedBody: unknown): Promise<Response> {
  const timed: RequestScope = request.headers.get(TIMING_HEADER) === "1" ? { ...scope, timing: true } : scope;
  const extra: Extra = { scope: timed, surface: surfaceOf(parsedBody, scope.toolsets) };
  const authInfo: AuthInfo = { token: "", clientId, scopes: [], extra: extra as unknown as Record<string, unknown> };
  if (await isLegacyRequest(request, parsedBody)) {
    extra.scope = { ...timed, legacy: true };
    return serveAndReport(() => serveLegacy(request, authInfo, parsedBody));
  }
  const uris = isListen(parsedBody) ? listenUris(parsedBody) : undefined;
  if (uris && servedKinds(scope.toolsets).length > 0) {
    return serveAndReport(() =>
      serveListen(request, authInfo, parsedBody, uris).catch((error: unknown) => {
        onerror(error instanceof Error ? error : new Error(String(error)));
        const id = (parsedBody as { id?: unknown }).id;
        return jsonRpcError(500, -32603, "Internal server error", typeof id === "string" || typeof id === "number" ? id : null);
      }),
    );
  }
  return serveAndReport(() => modern.fetch(request, parsedBody === undefined ? { authInfo } : { authInfo, parsedBody }));
}
