/**
 * The single authentication seam: every request to /mcp and /api passes
 * through `authenticate`, which returns the caller or the response refusing it.
 *
 * - ADMIN_TOKEN set: `Authorization: Bearer <ADMIN_TOKEN>` is the administrator
 *   (compared in constant time); an API token minted by the administrator is
 *   the caller it names, with its grants (looked up by SHA-256 in the
 *   Registry, cached per isolate for TOKEN_CACHE_SECONDS: src/auth/cache.ts);
 *   anything else is 401 with `WWW-Authenticate: Bearer`.
 * - ADMIN_TOKEN unset: requests to a loopback host that carry no credential
 *   are served in open local mode (caller "local"); a request to any other
 *   host is refused with 403 (`hostRefusal`), so a deployment is never
 *   accidentally public and a DNS-rebinding page cannot reach a local
 *   server. No credential means no Authorization header or an empty bearer
 *   (`Bearer ` is what a client sends when its token variable is unset);
 *   any other credential is refused with 401 (`OPEN_MODE_TOKEN`), since
 *   this mode issues no tokens: a stale or mistyped token is reported, never
 *   silently served as the administrator. (OAuth access tokens the provider
 *   issued are checked by it first and do work.)
 * - /mcp with a credential: the OAuth provider in front of the app
 *   (src/auth/oauth.ts) has already checked it (its own access tokens, and
 *   the two above through `bearerCaller`) and `vouch`ed for the request.
 *
 * Authentication says who; what they may touch is decided per context from
 * `caller.grants` (src/auth/grants.ts) where the context is known.
 */
import { valueOrThrow } from "../errors";
import { registryOf } from "../registry/Registry";
import { settings } from "../settings";
import { tokenCache } from "./cache";
import type { Caller } from "./caller";
import { ALL } from "./grants";
import { secretMatches } from "./secrets";
import { TOKEN_SHAPE, tokenHash } from "./tokens";

export type AuthResult = { ok: true; caller: Caller } | { ok: false; response: Response };

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

export const isLoopbackHost = (hostname: string) => LOOPBACK.test(hostname);

const refuse = (status: number, error: string, message: string, headers: Record<string, string> = {}): AuthResult => ({
  ok: false,
  response: Response.json({ error, message }, { status, headers }),
});

/** The secret of `Authorization: Bearer <secret>`, if the request carries one. */
export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get("Authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Whether `request` carries a credential: an Authorization header other than
 * an empty one or a bare `Bearer` (header values arrive trimmed, so
 * `Bearer ` is `Bearer`).
 */
export function hasCredential(request: Request): boolean {
  const header = request.headers.get("Authorization");
  return header !== null && !/^(?:Bearer)?\s*$/i.test(header.trim());
}

/** Why open local mode refuses a credential, in the 401 of /mcp and /api alike. */
export const OPEN_MODE_TOKEN =
  "This server runs in open local mode (no ADMIN_TOKEN) and issues no tokens, so this one is unknown: leave out the Authorization header (an empty `Bearer ` is fine), or give the server an ADMIN_TOKEN to use tokens.";

/** Why open local mode mints no token: it would be refused (OPEN_MODE_TOKEN) on every use. */
export const OPEN_MODE_NO_MINTING =
  "This server runs in open local mode (no ADMIN_TOKEN), which accepts no tokens, so none is minted: tokens need an ADMIN_TOKEN (`wrangler secret put ADMIN_TOKEN`, or ADMIN_TOKEN in .dev.vars for `npm start`).";

/** Whether the server runs in open local mode: no ADMIN_TOKEN, so only loopback hosts are served. */
export const openLocalMode = (env: Env): boolean => !env.ADMIN_TOKEN?.trim();

/**
 * DNS-rebinding protection, checked before anything else about a request (an
 * attacker's page whose name resolves to 127.0.0.1 sends its own name as
 * Host, and no token): the response refusing it with 403, or undefined.
 *
 * - Open local mode answers only requests addressed to a loopback name; any
 *   other Host is refused. (A deployment without ADMIN_TOKEN lands here too,
 *   and the message says how to serve other names.)
 * - A request for a loopback or workers.dev URL must carry that name in its
 *   Host header, whatever the mode.
 */
export function hostRefusal(request: Request, env: Env): Response | undefined {
  const { hostname } = new URL(request.url);
  const header = request.headers.get("Host");
  const named = header === null ? hostname : hostOf(header);
  const loopback = isLoopbackHost(hostname) && named !== undefined && isLoopbackHost(named);
  if (openLocalMode(env) && !loopback) {
    const message = `Host ${JSON.stringify(header ?? hostname)} is refused: with no ADMIN_TOKEN this server answers only requests addressed to localhost, 127.0.0.1 or [::1] (DNS-rebinding protection). To serve other names, set ADMIN_TOKEN (\`wrangler secret put ADMIN_TOKEN\`).`;
    return Response.json({ error: "forbidden_host", message }, { status: 403 });
  }
  if ((isLoopbackHost(hostname) || hostname.endsWith(".workers.dev")) && named !== hostname && !loopback) {
    const message = `Host ${JSON.stringify(header)} is refused: this server answers requests addressed to ${hostname} (DNS-rebinding protection).`;
    return Response.json({ error: "forbidden_host", message }, { status: 403 });
  }
  return undefined;
}

/** The hostname a Host header names (without the port), or undefined when it is not one. */
function hostOf(header: string): string | undefined {
  try {
    return new URL(`http://${header.trim()}`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * Callers the OAuth provider has already authenticated (src/auth/oauth.ts),
 * keyed by the very request it handed on, so nothing a client sends can
 * claim an entry.
 */
const vouched = new WeakMap<Request, Caller>();

/** Records that `request` was authenticated as `caller` by the OAuth provider in front of the app. */
export const vouch = (request: Request, caller: Caller): void => {
  vouched.set(request, caller);
};

export async function authenticate(request: Request, env: Env): Promise<AuthResult> {
  const known = vouched.get(request);
  if (known) return { ok: true, caller: known };
  const adminToken = env.ADMIN_TOKEN?.trim();
  if (!adminToken) {
    // hostRefusal has already refused every non-loopback host in this mode; this keeps authenticate safe on its own.
    const refused = hostRefusal(request, env);
    if (refused) return { ok: false, response: refused };
    if (hasCredential(request)) {
      return refuse(401, "invalid_token", OPEN_MODE_TOKEN, { "WWW-Authenticate": 'Bearer realm="engram", error="invalid_token"' });
    }
    return { ok: true, caller: LOCAL };
  }
  const token = bearerToken(request);
  if (!token) {
    return refuse(401, "unauthorized", "Send Authorization: Bearer <token>.", {
      "WWW-Authenticate": 'Bearer realm="engram"',
    });
  }
  const caller = await bearerCaller(token, env);
  if (caller) return { ok: true, caller };
  return refuse(401, "invalid_token", "The bearer token is not valid.", {
    "WWW-Authenticate": 'Bearer realm="engram", error="invalid_token"',
  });
}

/** The caller a bearer secret stands for when ADMIN_TOKEN is set: the administrator, an API token's caller, or undefined. */
export async function bearerCaller(token: string, env: Env): Promise<Caller | undefined> {
  const adminToken = env.ADMIN_TOKEN?.trim();
  if (!adminToken) return undefined;
  if (await secretMatches(token, adminToken)) return ADMIN;
  return TOKEN_SHAPE.test(token) ? apiTokenCaller(token, env) : undefined;
}

/** The built-in callers. */
const ADMIN: Caller = Object.freeze({ id: "admin", kind: "admin", grants: ALL });
export const LOCAL: Caller = Object.freeze({ id: "local", kind: "local", grants: ALL });

/** The caller an API token stands for, from the isolate's cache or the Registry. */
async function apiTokenCaller(token: string, env: Env): Promise<Caller | undefined> {
  const hash = await tokenHash(token);
  const cached = tokenCache.get(hash);
  if (cached) return cached;
  const t = valueOrThrow(await registryOf(env).lookupToken(hash));
  if (!t) return undefined;
  const caller: Caller = { id: t.name, kind: "token", tokenId: t.id, grants: t.grants };
  tokenCache.set(hash, caller, settings(env).TOKEN_CACHE_SECONDS * 1000);
  return caller;
}
