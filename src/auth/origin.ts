/**
 * Which browser pages may call /mcp and /api, and the CORS headers they get.
 *
 * A browser names the page that sent a request in `Origin`. It is accepted
 * only when it is the server's own origin (the scheme, host and port of the
 * request URL: the web page at `/`) or one of `ALLOWED_ORIGINS`; in every
 * mode, open local mode included (another loopback origin, such as a page
 * on http://127.0.0.2:8792 or a dev server on localhost:3000, is a stranger
 * like any other). A request without `Origin` comes from a CLI or an IDE,
 * not a page, and passes.
 *
 * An accepted origin is echoed in `Access-Control-Allow-Origin` (never `*`),
 * with `Vary: Origin` on every answer; a refused one gets a 403 with no CORS
 * header, so the page can read nothing, preflight included.
 */

/** The verdict on a request's `Origin`: none sent, the accepted origin, or refused. */
export type OriginVerdict = { kind: "none" } | { kind: "allowed"; origin: string } | { kind: "refused" };

/**
 * The origin `text` names, serialized as a browser sends it ("https://app.example.com",
 * "http://127.0.0.1:8787"), or undefined when it is not an http(s) origin.
 */
function originOf(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Judges the request's `Origin` against the server's own origin and `allowed` (serialized origins). */
export function originVerdict(request: Request, allowed: readonly string[]): OriginVerdict {
  const header = request.headers.get("Origin");
  if (header === null) return { kind: "none" };
  // "null" (a sandboxed frame, a file: page) and anything that is not an http(s) origin is refused.
  const origin = originOf(header.trim());
  if (origin === undefined) return { kind: "refused" };
  if (origin === new URL(request.url).origin || allowed.includes(origin)) return { kind: "allowed", origin };
  return { kind: "refused" };
}

/**
 * Request headers a page may send (answered in preflights): the bearer token,
 * JSON bodies, and the MCP headers both SDK generations and the web page send.
 */
const ALLOW_HEADERS = [
  "Authorization",
  "Content-Type",
  "Accept",
  "Last-Event-ID",
  "Mcp-Memory-Session",
  "Mcp-Protocol-Version",
  "Mcp-Session-Id",
  "Mcp-Method",
  "Mcp-Name",
].join(", ");

/** Response headers a page may read: the MCP session and the reason for a 401. */
const EXPOSE_HEADERS = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate";

/** How long a browser may reuse a preflight's answer, in seconds (browsers cap it: Chromium at 7,200). */
const PREFLIGHT_MAX_AGE = 86_400;

/** The CORS headers of an answer to an accepted origin (none when no Origin was sent); Vary always. */
export function corsHeaders(verdict: OriginVerdict): [string, string][] {
  if (verdict.kind !== "allowed") return [["Vary", "Origin"]];
  return [
    ["Access-Control-Allow-Origin", verdict.origin],
    ["Access-Control-Expose-Headers", EXPOSE_HEADERS],
    ["Vary", "Origin"],
  ];
}

/** The 204 answer to a preflight (OPTIONS) from an accepted origin, or from a client that sent none. */
export function preflight(verdict: OriginVerdict, methods: string): Response {
  const headers = new Headers(corsHeaders(verdict));
  headers.set("Access-Control-Allow-Methods", methods);
  headers.set("Access-Control-Allow-Headers", ALLOW_HEADERS);
  headers.set("Access-Control-Max-Age", String(PREFLIGHT_MAX_AGE));
  return new Response(null, { status: 204, headers });
}

/** The 403 answer to a refused origin: no CORS header, so the page reads nothing. */
export const forbiddenOrigin = () =>
  Response.json({ error: "forbidden_origin", message: "Requests from this Origin are not allowed." }, { status: 403, headers: { Vary: "Origin" } });

/** `response` with the CORS headers for `verdict` added (for answers made before the routes, e.g. a 401). */
export function withCors(response: Response, verdict: OriginVerdict): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of corsHeaders(verdict)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
