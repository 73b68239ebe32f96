/**
 * OAuth 2.1 beside bearer tokens, on `@cloudflare/workers-oauth-provider`
 * (docs/oauth.md). The provider serves discovery (RFC 9728, RFC 8414),
 * dynamic client registration (RFC 7591) and the token endpoint (PKCE S256,
 * rotating refresh tokens, revocation), keeps its state in the `OAUTH_KV`
 * namespace, and checks the bearer credential of every /mcp request before
 * the app sees it. The consent page at /authorize is the app's
 * (src/ui/consent.tsx).
 *
 * ## One resource per origin
 * The protected resource is `<origin>/mcp` (it covers `/mcp/<context>`),
 * and the provider fixes it at construction, so a provider is built per
 * origin the deployment is reached at and kept. OAuth needs https, or http
 * on a loopback name (`wrangler dev`); an origin that is neither serves
 * bearer tokens only (`resourceOf` is undefined).
 *
 * ## Who a request is
 * - A token the provider issued: its props name a grant recorded in the
 *   Registry (src/registry/oauth.ts). The grant is looked up on use (cached
 *   for TOKEN_CACHE_SECONDS, like API tokens): it must be unrevoked and its
 *   consenting API token live, so revoking that token ends the grant.
 * - Anything else (`resolveExternalToken`): an `eg_` API token or the
 *   ADMIN_TOKEN, resolved as without OAuth (src/auth/index.ts); in open local
 *   mode, which issues no such tokens, none (a 401).
 */
import { getOAuthApi, OAuthError, OAuthProvider, type OAuthHelpers, type OAuthProviderOptions } from "@cloudflare/workers-oauth-provider";
import { valueOrThrow } from "../errors";
import { OAUTH_END_REASONS } from "../registry/oauth";
import { registryOf } from "../registry/Registry";
import { settings } from "../settings";
import { TtlCache } from "./cache";
import type { Caller } from "./caller";
import { bearerCaller, isLoopbackHost } from "./index";
import { fromHex, sha256, toHex } from "./secrets";

/** The endpoints, as advertised in the authorization server metadata. */
export const OAUTH_PATHS = {
  authorize: "/authorize",
  token: "/oauth/token",
  register: "/oauth/register",
  asMetadata: "/.well-known/oauth-authorization-server",
  prMetadata: "/.well-known/oauth-protected-resource",
} as const;

/** The protected resource's path: one resource for /mcp and every /mcp/<context>. */
const RESOURCE_PATH = "/mcp";

/** What a grant's props carry (encrypted by the provider with the token itself). */
export type OAuthProps =
  /** An API token or the ADMIN_TOKEN, resolved by `resolveExternalToken`. */
  | { kind: "bearer"; caller: Caller }
  /**
   * A token the provider issued: the Registry's grant, the consenting token and the consented grants; for a
   * grant the ADMIN_TOKEN consented to, `adminKey` (adminKeyOf) binds it to that secret: it ends when the secret changes.
   */
  | { kind: "oauth"; grant: string; tokenId: string | null; grants: Caller["grants"]; adminKey?: string };

const adminKeys = new Map<string, Promise<string | undefined>>();

/** Whether two fingerprints are equal, compared in constant time. */
function sameKey(a: string, b: string | undefined): boolean {
  const x = fromHex(a);
  const y = b === undefined ? undefined : fromHex(b);
  return x !== undefined && y !== undefined && x.length === y.length && crypto.subtle.timingSafeEqual(x, y);
}

/**
 * A fingerprint of the configured ADMIN_TOKEN (the same for its plain and its `sha256:<hex>` spelling), or
 * undefined when none is set: SHA-256 over a label and the secret's hash, so the props never hold the hash itself.
 */
export function adminKeyOf(env: Env): Promise<string | undefined> {
  const configured = env.ADMIN_TOKEN;
  if (!configured) return Promise.resolve(undefined);
  let key = adminKeys.get(configured);
  if (!key) {
    key = (async () => {
      const hash = configured.startsWith("sha256:") ? configured.slice(7).toLowerCase() : toHex(await sha256(configured));
      return toHex(await sha256(`engram-oauth-admin:${hash}`));
    })();
    adminKeys.set(configured, key);
  }
  return key;
}

/** The protected resource at `url`'s origin, or undefined when OAuth cannot be offered there. */
export function resourceOf(url: URL): string | undefined {
  const secure = url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
  return secure ? `${url.origin}${RESOURCE_PATH}` : undefined;
}

/** The absolute URL of the protected resource metadata (what a 401 names in `resource_metadata`). */
const resourceMetadataUrl = (url: URL): string => `${url.origin}${OAUTH_PATHS.prMetadata}${RESOURCE_PATH}`;

/** How long a grant lives after its last refresh (docs/oauth.md). */
const GRANT_IDLE_SECONDS = 30 * 24 * 60 * 60;

type Handler = { fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response> };

function options(resource: string, env: Env, api: Handler, fallback: Handler): OAuthProviderOptions<Env> {
  return {
    apiRoute: RESOURCE_PATH,
    apiHandler: api,
    defaultHandler: fallback,
    authorizeEndpoint: OAUTH_PATHS.authorize,
    tokenEndpoint: OAUTH_PATHS.token,
    clientRegistrationEndpoint: OAUTH_PATHS.register,
    accessTokenTTL: settings(env).OAUTH_ACCESS_TOKEN_TTL,
    // A grant lives while it is used: each refresh moves its end a month ahead.
    refreshTokenTTL: GRANT_IDLE_SECONDS,
    refreshTokenIdleTTL: GRANT_IDLE_SECONDS,
    resourceMetadata: { resource, resource_name: "engram", bearer_methods_supported: ["header"] },
    // Client ID Metadata Documents (claude.ai, ChatGPT) besides dynamic registration; wrangler.toml sets the flag they need.
    clientIdMetadataDocumentEnabled: true,
    resolveExternalToken: async ({ token, env: e }) => {
      // Open local mode knows no bearer secret, so it refuses any (src/auth/index.ts); requests without one never get here.
      const caller = await bearerCaller(token, e);
      if (!caller) return null;
      const props: OAuthProps = { kind: "bearer", caller };
      return { props, audience: resource };
    },
    // A refresh of a grant whose ADMIN_TOKEN changed ends it (the provider then deletes its tokens).
    tokenExchangeCallback: async ({ props, env: e }) => {
      const p = props as OAuthProps | undefined;
      if (p?.kind === "oauth" && (await adminKeyChanged(p, e, new URL(resource)))) {
        throw new OAuthError("invalid_grant", {
          description: "The ADMIN_TOKEN that consented to this grant has changed, so the grant is revoked. Authorize again.",
        });
      }
    },
    // The library logs every refused request as a warning; a wrong code or token is the client's, not ours.
    onError: () => undefined,
  };
}

const providers = new Map<string, OAuthProvider<Env>>();
const MAX_PROVIDERS = 16;

/** The provider for `url`'s origin (built once per origin and access-token lifetime), or undefined when OAuth is off there. */
export function oauthProvider(url: URL, env: Env, api: Handler, fallback: Handler): OAuthProvider<Env> | undefined {
  const resource = resourceOf(url);
  if (!resource) return undefined;
  const key = `${resource} ${settings(env).OAUTH_ACCESS_TOKEN_TTL}`;
  let provider = providers.get(key);
  if (!provider) {
    if (providers.size >= MAX_PROVIDERS) providers.delete(providers.keys().next().value as string);
    provider = new OAuthProvider<Env>(options(resource, env, api, fallback));
    providers.set(key, provider);
  }
  return provider;
}

const NOT_USED: Handler = { fetch: () => new Response(null, { status: 404 }) };

/**
 * The provider's helpers (parse and complete an authorization, revoke a
 * grant) for `url`'s origin. Grants and tokens live in one KV namespace
 * whatever the origin, so revoking works from any origin; an origin without
 * OAuth borrows the loopback resource for that.
 */
export function oauthApi(url: URL, env: Env): OAuthHelpers {
  const resource = resourceOf(url) ?? `http://localhost${RESOURCE_PATH}`;
  return getOAuthApi(options(resource, env, NOT_USED, NOT_USED), env);
}

/** Live OAuth grants as callers, keyed by grant id; an unknown or revoked grant is asked about every time. */
export const oauthCache = new TtlCache<Caller>();

/**
 * The caller an authenticated request to /mcp stands for, from the props the
 * provider decrypted: the bearer caller as resolved, or the OAuth grant's
 * caller when the Registry still holds it live; undefined otherwise.
 */
export async function callerOfProps(props: unknown, env: Env, url: URL): Promise<Caller | undefined> {
  const p = props as OAuthProps | undefined;
  if (p?.kind === "bearer") return p.caller;
  if (p?.kind !== "oauth" || typeof p.grant !== "string") return undefined;
  if (await adminKeyChanged(p, env, url)) return undefined;
  return grantCaller(p.grant, env);
}

/** The caller OAuth grant `grant` stands for while the Registry holds it live (its consenting token too), from the isolate's cache or the Registry. */
export async function grantCaller(grant: string, env: Env): Promise<Caller | undefined> {
  const cached = oauthCache.get(grant);
  if (cached) return cached;
  const g = valueOrThrow(await registryOf(env).useOAuthGrant(grant));
  if (!g) return undefined;
  const caller: Caller = {
    id: `${g.tokenName} via ${g.clientName}`,
    kind: "oauth",
    ...(g.tokenId ? { tokenId: g.tokenId } : {}),
    oauthGrant: g.id,
    grants: g.grants,
  };
  oauthCache.set(grant, caller, settings(env).TOKEN_CACHE_SECONDS * 1000);
  return caller;
}

/**
 * Whether the grant of `p` was consented with an ADMIN_TOKEN that is no
 * longer the configured one (changed or removed). The first time that is
 * seen, the grant ends in the Registry and at the provider, so it stays
 * ended when the old secret comes back.
 */
async function adminKeyChanged(p: Extract<OAuthProps, { kind: "oauth" }>, env: Env, url: URL): Promise<boolean> {
  if (p.adminKey === undefined || sameKey(p.adminKey, await adminKeyOf(env))) return false;
  oauthCache.forget(p.grant);
  const ended = await registryOf(env).endOAuthGrant({ id: p.grant }, OAUTH_END_REASONS.adminChanged);
  if (ended.ok && ended.value) await endProviderGrants(url, env, [ended.value]);
  return true;
}

/** The 401 for a credential that is no longer good (a grant revoked in the Registry), pointing at discovery. */
export function invalidTokenResponse(url: URL): Response {
  return Response.json(
    { error: "invalid_token", message: "The access token's grant was revoked. Authorize again." },
    {
      status: 401,
      headers: { "WWW-Authenticate": `Bearer realm="engram", error="invalid_token", resource_metadata="${resourceMetadataUrl(url)}"` },
    },
  );
}

/**
 * Ends the provider's grants (their access and refresh tokens) for grants the
 * Registry has just revoked. The Registry's revocation already binds; this
 * makes the tokens fail at the provider too, in every isolate at once.
 */
export async function endProviderGrants(url: URL, env: Env, grants: readonly { providerId: string; userId: string; id: string }[]): Promise<void> {
  if (grants.length === 0) return;
  const api = oauthApi(url, env);
  for (const g of grants) {
    oauthCache.forget(g.id);
    await api.revokeGrant(g.providerId, g.userId);
  }
}

export const isMcpPath = (path: string) => path === RESOURCE_PATH || path.startsWith(`${RESOURCE_PATH}/`);

/** Whether `path` is one the provider serves (or, for /authorize, the consent page behind it). */
export const isOAuthPath = (path: string) =>
  path === OAUTH_PATHS.authorize ||
  path === OAUTH_PATHS.token ||
  path === OAUTH_PATHS.register ||
  path === OAUTH_PATHS.asMetadata ||
  path === OAUTH_PATHS.prMetadata ||
  path.startsWith(`${OAUTH_PATHS.prMetadata}/`);

/**
 * The one protected resource document answers for `/mcp/<context>` and the
 * bare well-known path too: a token for `<origin>/mcp` is good on every
 * `/mcp/<context>` its grants allow (RFC 9728 §5.1 lets a resource's
 * sub-paths share it).
 */
export function canonicalMetadataRequest(request: Request, url: URL): Request {
  const canonical = `${OAUTH_PATHS.prMetadata}${RESOURCE_PATH}`;
  const path = url.pathname;
  if (path === OAUTH_PATHS.prMetadata || (path.startsWith(`${canonical}/`) && path !== canonical)) return new Request(new URL(canonical, url), request);
  return request;
}

/**
 * A 401 from the provider, with the body bearer clients have always had
 * (`error` and a `message` to act on, `invalidMessage` for a credential not
 * known) beside OAuth's `error_description`; the challenge header stays as it is.
 */
export async function explainUnauthorized(response: Response, invalidMessage = "The bearer token is not valid (unknown, expired or revoked)."): Promise<Response> {
  if (response.status !== 401) return response;
  let sent: { error?: unknown; error_description?: unknown } = {};
  try {
    sent = (await response.clone().json()) as typeof sent;
  } catch {
    // No body: a request without a credential.
  }
  const invalid = sent.error === "invalid_token";
  const body = {
    error: invalid ? "invalid_token" : "unauthorized",
    message: invalid ? invalidMessage : "Send Authorization: Bearer <token>: an API token, the ADMIN_TOKEN, or an OAuth access token (see resource_metadata).",
    ...(typeof sent.error_description === "string" ? { error_description: sent.error_description } : {}),
  };
  const headers = new Headers(response.headers);
  headers.set("Content-Type", "application/json");
  headers.delete("Content-Length");
  return new Response(JSON.stringify(body), { status: 401, headers });
}
