/**
 * The MCP endpoint over HTTP: the SDK's createMcpHandler, which serves
 * 2026-07-28 requests and, through its stateless fallback, 2025-era ones
 * (`initialize` and session-less POSTs, answered over SSE), each from a
 * fresh server built by `buildServer`.
 *
 * agents' createMcpHandler wrapped the same SDK handler; this keeps what it
 * added that a client can see (Host validation for loopback and workers.dev
 * URLs, its CORS headers on every answer, OPTIONS preflight) and drops its
 * own era classification, which ran before the SDK's and so classified each
 * request twice. Measured under `wrangler dev` (bench/ab.mjs, 400
 * alternating trivial calls, twice): p50 12.90 -> 12.51 and 13.29 -> 12.83 ms.
 *
 * Unlike agents' 2025-era lane, the SDK's does not refuse server-to-client
 * requests; no tool sends any (no sampling, elicitation or roots).
 */
import { createMcpHandler, hostHeaderValidationResponse, localhostAllowedHostnames, type AuthInfo } from "@modelcontextprotocol/server";
import { buildServer, type RequestScope } from "./server";

const handler = createMcpHandler((rc) => buildServer(rc.authInfo?.extra?.scope as RequestScope), {
  legacy: "stateless",
  onerror: (error) => console.error(JSON.stringify({ event: "mcp_error", error: String(error) })),
});

/** The headers agents' handler set on every answer (its defaults). */
const CORS: readonly [string, string][] = [
  ["Access-Control-Allow-Headers", "Content-Type, Accept, Authorization, mcp-session-id, MCP-Protocol-Version, Mcp-Method, Mcp-Name"],
  ["Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS"],
  ["Access-Control-Allow-Origin", "*"],
  ["Access-Control-Expose-Headers", "mcp-session-id"],
  ["Access-Control-Max-Age", "86400"],
];

function withCors(response: Response): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of CORS) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** DNS-rebinding protection: a loopback or workers.dev URL must be asked for by that name. */
function hostRejection(request: Request): Response | undefined {
  const { hostname } = new URL(request.url);
  const loopback = localhostAllowedHostnames();
  if (loopback.includes(hostname)) return hostHeaderValidationResponse(request, loopback);
  if (hostname.endsWith(".workers.dev")) return hostHeaderValidationResponse(request, [hostname]);
  return undefined;
}

/** Answers one MCP request. Origin and authentication are checked before this (src/index.ts). */
export async function serveMcpHttp(request: Request, authInfo: AuthInfo, parsedBody: unknown): Promise<Response> {
  const rejected = hostRejection(request);
  if (rejected) return withCors(rejected);
  if (request.method === "OPTIONS") return new Response(null, { headers: CORS.map(([name, value]) => [name, value]) });
  return withCors(await handler.fetch(request, parsedBody === undefined ? { authInfo } : { authInfo, parsedBody }));
}
