/**
 * The Worker: authentication, Origin checks, routing and the MCP protocol.
 * It holds no state; every memory context lives in its own MemoryContext
 * Durable Object.
 *
 *   /mcp             MCP endpoint (context from the `context` argument, else the caller's active one, else "default")
 *   /mcp/<context>   MCP endpoint pinned to one context (403 without a grant on it)
 *   /api/...         REST: import and export; tokens, contexts and the audit log for admins
 *   /                the web page (src/ui/), whose calls go to /mcp/<context> and /api like any client's
 *   /authorize       the OAuth consent page (src/ui/consent.tsx)
 *   /oauth/..., /.well-known/oauth-*   OAuth 2.1 (src/auth/oauth.ts): token, registration, discovery
 *
 * The OAuth provider stands in front of the app for /mcp and the OAuth
 * endpoints, after the Host and Origin checks; it authenticates every /mcp
 * request (its own tokens, API tokens and ADMIN_TOKEN alike) and hands the
 * caller on (`vouch`). Everything else goes straight to the app.
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./app";
import { authenticate, hasCredential, hostRefusal, OPEN_MODE_TOKEN, openLocalMode, vouch } from "./auth";
import {
  callerOfProps,
  canonicalMetadataRequest,
  explainUnauthorized,
  invalidTokenResponse,
  isMcpPath,
  isOAuthPath,
  OAUTH_PATHS,
  oauthProvider,
} from "./auth/oauth";
import { registrationRefusal } from "./auth/registration";
import { serveTokenEndpoint } from "./auth/token-endpoint";
import { noGrant } from "./auth/access";
import { roleFor } from "./auth/grants";
import { corsHeaders, forbiddenOrigin, type OriginVerdict, originVerdict, preflight, withCors } from "./auth/origin";
import { describeThrown } from "./errors";
import { CONTEXT_NAME_PATTERN, INVALID_CONTEXT_NAME, LIMITS } from "./limits";
import type { RequestScope } from "./mcp/server";
import { serveMcpHttp } from "./mcp/http";
import { SESSION_PREFIX } from "./mcp/subscriptions";
import { chooseToolsets } from "./mcp/toolsets";
import { api } from "./api/routes";
import { settings, SettingsError } from "./settings";
import { decodeUtf8, type IllFormedUtf8, notUtf8Json } from "./text";
import { consent } from "./ui/consent";
import { ui } from "./ui/routes";

export { MemoryContext } from "./context/MemoryContext";
export { Registry } from "./registry/Registry";

const app = new Hono<AppEnv>();

app.onError((error, c) => {
  console.error(
    JSON.stringify({
      event: "unhandled",
      path: c.req.path,
      ...describeThrown(error),
      ...(error.cause !== undefined ? { cause: describeThrown(error.cause).error } : {}),
    }),
  );
  return c.json({ error: "internal_error", message: "Internal server error." }, 500);
});

// Hono hands only Error instances to onError; anything else thrown (a string, a plain object from an RPC)
// would escape the Worker, and `wrangler dev` answers that with a page showing the stack and local paths.
app.use(async (_c, next) => {
  try {
    await next();
  } catch (error) {
    throw error instanceof Error ? error : new Error("non-Error thrown", { cause: error });
  }
});

app.notFound((c) => c.json({ error: "not_found", message: "Try /mcp, /mcp/<context> or /api/contexts/<name>/export." }, 404));

app.get("/health", (c) => c.json({ ok: true }));

/** The methods each guarded prefix serves, as preflights announce them. */
const METHODS = { mcp: "GET, POST, DELETE, OPTIONS", api: "GET, POST, PATCH, DELETE, OPTIONS" };

/**
 * Origin verdicts of requests already admitted. A /mcp request is admitted in
 * front of the OAuth provider, which hands the same Request on to the app,
 * so the guard takes the verdict from here instead of judging it again.
 */
const admitted = new WeakMap<Request, OriginVerdict>();

/**
 * What every guarded request meets before its credentials are looked at: the
 * answer refusing it (wrong Host, refused Origin, bad settings) or answering
 * its preflight, else the verdict on its Origin. Runs once per request.
 */
function admit(request: Request, env: Env): { response: Response } | { origin: OriginVerdict } {
  const known = admitted.get(request);
  if (known) return { origin: known };
  const verdict = judge(request, env);
  if ("origin" in verdict) admitted.set(request, verdict.origin);
  return verdict;
}

function judge(request: Request, env: Env): { response: Response } | { origin: OriginVerdict } {
  // DNS rebinding first: in open local mode no other answer (not even "set ADMIN_TOKEN") may come before it.
  const refused = hostRefusal(request, env);
  if (refused) return { response: refused };
  let allowedOrigins: readonly string[];
  try {
    allowedOrigins = settings(env).ALLOWED_ORIGINS;
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    console.error(JSON.stringify({ event: "bad_settings", message: error.message }));
    return { response: Response.json({ error: "misconfigured", message: error.message }, { status: 500 }) };
  }
  // Origin before the token: a foreign page learns nothing, not even whether its token would do (src/auth/origin.ts).
  const origin = originVerdict(request, allowedOrigins);
  if (origin.kind === "refused") return { response: forbiddenOrigin() };
  // Preflights carry no credentials, so they are answered before authentication.
  if (request.method === "OPTIONS") return { response: preflight(origin, new URL(request.url).pathname.startsWith("/api/") ? METHODS.api : METHODS.mcp) };
  return { origin };
}

const guard = createMiddleware<AppEnv>(async (c, next) => {
  // "/mcp" and "/mcp/*" both match /mcp: the first pass decided (and the body limit has since replaced the request).
  if (c.get("caller")) return next();
  const admitted = admit(c.req.raw, c.env);
  if ("response" in admitted) return admitted.response;
  const { origin } = admitted;
  const auth = await authenticate(c.req.raw, c.env);
  if (!auth.ok) return withCors(auth.response, origin);
  c.set("caller", auth.caller);
  await next();
  for (const [name, value] of corsHeaders(origin)) c.header(name, value, { append: name === "Vary" });
});

const limitBody = bodyLimit({
  maxSize: LIMITS.requestBodyBytes,
  onError: (c) => c.json({ error: "too_large", message: `Request bodies are limited to ${LIMITS.requestBodyBytes} bytes.` }, 413),
});

for (const path of ["/mcp", "/mcp/*", "/api/*"]) app.use(path, guard, limitBody);

async function serveMcp(c: import("hono").Context<AppEnv>, pinned?: string) {
  if (pinned !== undefined && !CONTEXT_NAME_PATTERN.test(pinned)) {
    return c.json({ error: "invalid_context", message: INVALID_CONTEXT_NAME }, 400);
  }
  const caller = c.get("caller");
  if (pinned !== undefined && roleFor(caller.grants, pinned) === undefined) {
    return c.json({ error: "forbidden", message: noGrant(pinned, caller.grants, "Connect to /mcp/<context> for a context your grants cover, or to /mcp.") }, 403);
  }
  const url = new URL(c.req.url);
  const choice = chooseToolsets(c.env.MEMORY_TOOLSETS, url.searchParams.get("tools"));
  if (!choice.ok) return c.json({ error: "invalid_toolsets", message: choice.message }, 400);
  const memorySession = c.req.header("Mcp-Memory-Session")?.trim();
  const mcpSession = c.req.header("Mcp-Session-Id")?.trim();
  for (const key of [memorySession, mcpSession]) {
    if (key !== undefined && (key.length > LIMITS.sessionKey || /[\u0000-\u001f\u007f]/.test(key))) {
      return c.json({ error: "invalid_session", message: `Mcp-Memory-Session must be 1-${LIMITS.sessionKey} characters without control characters.` }, 400);
    }
  }
  // Co-visitation's key (src/covisit/session.ts): the client's own (Mcp-Memory-Session), else a 2025-era session id a
  // gateway issued; the ids this server issues only name live subscriptions (src/mcp/subscriptions.ts).
  const session = memorySession ?? (mcpSession?.startsWith(SESSION_PREFIX) ? undefined : mcpSession);
  const userAgent = c.req.header("User-Agent");
  const scope: RequestScope = {
    env: c.env,
    caller,
    toolsets: choice.toolsets,
    ...(pinned !== undefined ? { pinned } : {}),
    ...(session ? { session } : {}),
    ...(mcpSession ? { mcpSession } : {}),
    ...(userAgent ? { userAgent } : {}),
  };
  url.pathname = "/mcp";
  const read = await readOnce(c.req.raw, url);
  if ("refused" in read) return read.refused;
  const { request, parsedBody } = read;
  // Workers always know the host from the URL; in-process callers may omit the header the SDK checks.
  if (!request.headers.has("Host")) request.headers.set("Host", url.host);
  return serveMcpHttp(request, scope, caller.id, parsedBody);
}

/**
 * The request for the MCP handler at `url`, with its JSON body parsed once,
 * or the parse error refusing a JSON body that is not UTF-8 (src/text.ts).
 * Given no parsed body, the SDK's handler reads it twice (a clone to tell
 * 2025-era from 2026-era requests, then the transport), which costs more
 * than the rest of the protocol for a 1,000-entity batch. A body that is
 * not JSON is passed on unparsed, so the SDK answers it with its own parse error.
 */
async function readOnce(raw: Request, url: URL): Promise<{ request: Request; parsedBody?: unknown } | { refused: Response }> {
  if (raw.method !== "POST" || raw.body === null) return { request: new Request(url, raw) };
  const bytes = await raw.arrayBuffer();
  const forward = (body: BodyInit) => new Request(url, { method: raw.method, headers: raw.headers, body, signal: raw.signal });
  // Only application/json is decoded and parsed: the SDK refuses other media types before it reads a body.
  if ((raw.headers.get("Content-Type") ?? "").split(";")[0]?.trim().toLowerCase() !== "application/json") return { request: forward(bytes) };
  const decoded = decodeUtf8(bytes);
  if (!decoded.ok) return { refused: notUtf8(decoded.at) };
  const { text } = decoded;
  const request = forward(text);
  try {
    return text.trim() === "" ? { request } : { request, parsedBody: JSON.parse(text) as unknown };
  } catch {
    return { request };
  }
}

/** The JSON-RPC parse error (as the SDK answers a body that is not JSON) for a body that is not UTF-8. */
const notUtf8 = (at: IllFormedUtf8) =>
  Response.json(
    {
      jsonrpc: "2.0",
      error: { code: -32700, message: `Parse error: ${notUtf8Json("the body", at)}` },
      id: null,
    },
    { status: 400 },
  );

app.all("/mcp", (c) => serveMcp(c));
app.all("/mcp/:context", (c) => serveMcp(c, c.req.param("context")));
app.route("/api", api);
app.route("/", consent);
app.route("/", ui);

const appHandler = { fetch: (request: Request, env: Env, ctx: ExecutionContext) => app.fetch(request, env, ctx) };

/** /mcp behind the provider: the credential checked, the caller it stands for goes on to the app. */
const mcpHandler = {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const caller = await callerOfProps((ctx as ExecutionContext & { props?: unknown }).props, env, new URL(request.url));
    if (!caller) return invalidTokenResponse(new URL(request.url));
    vouch(request, caller);
    return app.fetch(request, env, ctx);
  },
};

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    const mcp = isMcpPath(url.pathname);
    if (!mcp && !isOAuthPath(url.pathname)) return app.fetch(request, env, ctx);
    if (mcp) {
      const admitted = admit(request, env);
      if ("response" in admitted) return admitted.response;
      // Open local mode needs no credential, so a request without one (an empty bearer included) never meets the provider.
      if (openLocalMode(env) && !hasCredential(request)) return app.fetch(request, env, ctx);
    } else {
      const refused = hostRefusal(request, env);
      if (refused) return refused;
    }
    const provider = oauthProvider(url, env, mcpHandler, appHandler);
    if (!provider) return app.fetch(request, env, ctx);
    try {
      if (url.pathname === OAUTH_PATHS.token) return await serveTokenEndpoint(request, env, ctx, url, provider);
      const refused = url.pathname === OAUTH_PATHS.register ? await registrationRefusal(request, env) : undefined;
      if (refused) return refused;
      const response = await provider.fetch(canonicalMetadataRequest(request, url), env, ctx);
      return mcp ? await explainUnauthorized(response, openLocalMode(env) ? OPEN_MODE_TOKEN : undefined) : response;
    } catch (error) {
      // The app answers its own failures; this is the provider's (a KV outage, a bug): logged, never shown.
      console.error(JSON.stringify({ event: "unhandled", path: url.pathname, ...describeThrown(error) }));
      return Response.json({ error: "internal_error", message: "Internal server error." }, { status: 500 });
    }
  },
} satisfies ExportedHandler<Env>;
