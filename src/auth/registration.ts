/**
 * What the Worker checks before the OAuth provider sees a client: dynamic
 * registrations (`/oauth/register`, RFC 7591) and client ID metadata
 * document URLs (docs/oauth.md).
 *
 * - Registration is rate-limited per client address (`CF-Connecting-IP`)
 *   with the platform's rate-limiting binding (`REGISTRATION_LIMITER`,
 *   wrangler.toml), or `LocalLimiter` where the binding is missing.
 * - Every metadata field is bounded (`CLIENT_METADATA_LIMITS`), and a URI's
 *   host must be a well-formed host name, so nothing a client registers can
 *   bloat the consent page or add to its CSP.
 * - The client's name and URIs (each `#language` variant too) follow the name
 *   rule of src/text.ts: the consent page shows the name, and a NUL, a line
 *   break, a bidirectional override or an invisible character could make one
 *   client pass for another where a person grants access. The page holds a
 *   client these checks never saw (a metadata document's, or one stored
 *   without them) to `shownClientProblem` itself.
 * - A client ID that is a URL is fetched by the provider; one whose host is
 *   not public is refused before any connection is made.
 */
import { decodeUtf8, hiddenCharacterProblem, notUtf8Json } from "../text";
import { isHostName, isPublicHost } from "./hosts";

/** The bounds on a registration's metadata. */
const CLIENT_METADATA_LIMITS = { bodyBytes: 16 * 1024, clientName: 1000, uri: 2000, otherString: 2000, redirectUris: 10, arrayItems: 10 } as const;

/** The shape of the platform binding, which the local stand-in shares. */
interface Limiter {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

/**
 * A per-isolate stand-in for the rate-limiting binding: at most `max` calls
 * per key in each fixed window of `windowMs`. The clock is injectable.
 */
export class LocalLimiter implements Limiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  limit({ key }: { key: string }): Promise<{ success: boolean }> {
    const at = this.now();
    let w = this.windows.get(key);
    if (!w || at - w.start >= this.windowMs) {
      if (this.windows.size >= 10_000) this.windows.clear();
      w = { start: at, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    return Promise.resolve({ success: w.count <= this.max });
  }
}

/** The stand-in's bounds: wrangler.toml's `[[ratelimits]]` for REGISTRATION_LIMITER says the same. */
const localLimiter = new LocalLimiter(10, 60_000);

const limiterOf = (env: Env): Limiter => (env as Partial<Env>).REGISTRATION_LIMITER ?? localLimiter;

const refuse = (status: 400 | 429, error: string, description: string, headers: Record<string, string> = {}) =>
  Response.json({ error, error_description: description }, { status, headers: { "Cache-Control": "no-store", ...headers } });

/** The URI fields of client metadata (RFC 7591 §2, OpenID and CIMD additions). */
const URI_FIELDS = new Set(["client_uri", "logo_uri", "tos_uri", "policy_uri", "jwks_uri", "initiate_login_uri", "sector_identifier_uri"]);
const URI_LIST_FIELDS = new Set(["redirect_uris", "post_logout_redirect_uris", "request_uris"]);

/**
 * Why a URI is refused, or undefined: too long, a character the name rule refuses (the URL parser would drop a
 * tab or line break and keep an override, while the text is stored and shown as sent), not a URL, or a host
 * that is not a host name.
 */
function uriProblem(field: string, value: unknown): string | undefined {
  if (typeof value !== "string") return `${field} must be a string`;
  if (value.length > CLIENT_METADATA_LIMITS.uri) return `${field} is longer than ${CLIENT_METADATA_LIMITS.uri} characters`;
  const hidden = hiddenCharacterProblem(value);
  if (hidden) return `${field} ${hidden}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${field} is not an absolute URI`;
  }
  if (url.host !== "" && !isHostName(url.hostname)) return `${field} has the host ${JSON.stringify(url.hostname)}, which is not a valid host name`;
  return undefined;
}

/** Schemes a browser runs or reads locally instead of navigating to an app: never a place to send an authorization code. */
const SCRIPT_SCHEMES = new Set(["javascript:", "data:", "vbscript:", "file:", "blob:", "about:"]);

/** Why a (well-formed) redirect URI is refused: a scheme that would run or read something instead of reaching the client. */
function redirectProblem(uri: string): string | undefined {
  const scheme = new URL(uri).protocol;
  return SCRIPT_SCHEMES.has(scheme) ? `redirect_uris must not use the ${scheme} scheme` : undefined;
}

/** Why a URI the provider itself fetches (a client's keys) is refused: a host off the public internet is never fetched. */
function fetchedUriProblem(field: string, uri: string): string | undefined {
  const host = new URL(uri).hostname;
  return isPublicHost(host) ? undefined : `${field} has the host ${JSON.stringify(host)}, which is not on the public internet, so it is not fetched`;
}

/** Why a client name is refused, or undefined: not a string, too long, or a character the name rule refuses. */
function nameProblem(field: string, value: unknown): string | undefined {
  if (typeof value !== "string" || value.length > CLIENT_METADATA_LIMITS.clientName) {
    return `${field} must be a string of at most ${CLIENT_METADATA_LIMITS.clientName} characters`;
  }
  const hidden = hiddenCharacterProblem(value);
  return hidden ? `${field} ${hidden}` : undefined;
}

/**
 * Why the consent page refuses to show a client, or undefined: its name (the client ID when it gave none) and
 * redirect URI, as the page would show them, held to the rules a registration is held to.
 */
export function shownClientProblem(shown: { clientName: string; redirectUri: string }): { error: string; description: string } | undefined {
  const name = nameProblem("client_name", shown.clientName);
  if (name) return { error: "invalid_client", description: name };
  // RFC 6749 §4.1.2.1: a bad redirect URI is shown to the person, never redirected to, as invalid_request.
  const uri = uriProblem("redirect_uri", shown.redirectUri);
  return uri ? { error: "invalid_request", description: uri } : undefined;
}

/** Why a registration's metadata is refused, or undefined when every field is within bounds. */
function metadataProblem(body: unknown): { error: string; description: string } | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { error: "invalid_client_metadata", description: "The body must be a JSON object." };
  for (const [field, value] of Object.entries(body)) {
    const bad = (description: string, error = "invalid_client_metadata") => ({ error, description });
    // RFC 7591 §2.2: `client_name#ja-Jpan-JP` is the client's name in another language, and is held to the same rules.
    const base = field.split("#", 1)[0] ?? field;
    if (base === "client_name") {
      const problem = nameProblem(field, value);
      if (problem) return bad(problem);
    } else if (URI_LIST_FIELDS.has(field)) {
      const max = field === "redirect_uris" ? CLIENT_METADATA_LIMITS.redirectUris : CLIENT_METADATA_LIMITS.arrayItems;
      if (!Array.isArray(value) || value.length > max)
        return bad(`${field} must be an array of at most ${max} URIs`, field === "redirect_uris" ? "invalid_redirect_uri" : undefined);
      for (const uri of value) {
        const problem = uriProblem(field, uri) ?? (field === "redirect_uris" ? redirectProblem(uri as string) : undefined);
        if (problem) return bad(problem, field === "redirect_uris" ? "invalid_redirect_uri" : undefined);
      }
    } else if (URI_FIELDS.has(base)) {
      const problem = uriProblem(field, value) ?? (base === "jwks_uri" ? fetchedUriProblem(field, value as string) : undefined);
      if (problem) return bad(problem);
    } else {
      const problem = sizeProblem(field, value, 0);
      if (problem) return bad(problem);
    }
  }
  return undefined;
}

/** Bounds any other field: strings, arrays and objects (a JWKS, say), a few levels deep. */
function sizeProblem(field: string, value: unknown, depth: number): string | undefined {
  if (typeof value === "string")
    return value.length > CLIENT_METADATA_LIMITS.otherString ? `${field} is longer than ${CLIENT_METADATA_LIMITS.otherString} characters` : undefined;
  if (typeof value !== "object" || value === null) return undefined;
  if (depth >= 4) return `${field} is nested too deeply`;
  const items = Array.isArray(value) ? value : Object.values(value);
  if (Array.isArray(value) && items.length > CLIENT_METADATA_LIMITS.arrayItems) return `${field} has more than ${CLIENT_METADATA_LIMITS.arrayItems} entries`;
  for (const item of items) {
    const problem = sizeProblem(field, item, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

/** The answer refusing a registration request (rate, size or metadata), or undefined to let the provider register it. */
export async function registrationRefusal(request: Request, env: Env): Promise<Response | undefined> {
  if (request.method !== "POST") return undefined;
  const address = request.headers.get("CF-Connecting-IP") ?? "unknown";
  if (!(await limiterOf(env).limit({ key: `register:${address}` })).success) {
    return refuse(429, "too_many_requests", "Too many client registrations from this address. Wait a minute and try again.", { "Retry-After": "60" });
  }
  const bytes = await request.clone().arrayBuffer();
  if (bytes.byteLength > CLIENT_METADATA_LIMITS.bodyBytes) {
    return refuse(400, "invalid_client_metadata", `The registration is larger than ${CLIENT_METADATA_LIMITS.bodyBytes} bytes.`);
  }
  // Strictly, as every other body (src/text.ts): a lenient decode would register a name holding U+FFFD for each ill-formed byte.
  const decoded = decodeUtf8(bytes);
  if (!decoded.ok) return refuse(400, "invalid_client_metadata", notUtf8Json("The registration", decoded.at));
  let body: unknown;
  try {
    body = JSON.parse(decoded.text);
  } catch {
    return undefined; // the provider answers a body that is not JSON
  }
  const problem = metadataProblem(body);
  return problem ? refuse(400, problem.error, problem.description) : undefined;
}

/** The client ID a request names (query, or a form body's `client_id`), when it is a URL whose host is not public. */
export function nonPublicClientId(clientId: string | null): string | undefined {
  if (!clientId) return undefined;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return undefined;
  }
  // By the parsed scheme: the provider takes `HTTPS://…` as a metadata document URL too.
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  return isPublicHost(url.hostname) ? undefined : url.hostname;
}

/** The 400 refusing a client ID metadata document on a host that is not public. */
export const nonPublicClientResponse = (host: string) =>
  refuse(400, "invalid_client", `The client ID's host ${JSON.stringify(host)} is not on the public internet, so its metadata document is not fetched.`);
