/**
 * The token endpoint (`/oauth/token`) as the OAuth provider serves it, with
 * what the Registry adds after each answer (docs/oauth.md):
 *
 * - **Rotation with reuse detection.** Every refresh token the provider
 *   issues is recorded by its hash (src/registry/oauth.ts). A refresh token
 *   presented after its rotation, whether the provider accepts it (its
 *   "previous" token) or refuses it, is reuse (RFC 9700 §4.14.2): the grant
 *   ends, in the Registry and at the provider, so every access and refresh
 *   token of it stops and the client must ask for consent again.
 * - **Grants the provider ended are ended here too.** A replayed
 *   authorization code or a client's revocation of its refresh token makes
 *   the provider delete the grant; the Registry then records that, so the
 *   grant is listed as ended.
 *
 * Tokens the provider issues look like `<userId>:<grantId>:<secret>`, so the
 * grant a credential belongs to is read from it; only its hash is stored.
 */
import type { OAuthProvider } from "@cloudflare/workers-oauth-provider";
import { describeThrown, errorRef } from "../errors";
import { registryOf } from "../registry/Registry";
import { OAUTH_END_REASONS, type OAuthEndReason } from "../registry/oauth";
import { oauthApi, oauthCache } from "./oauth";
import { nonPublicClientId, nonPublicClientResponse } from "./registration";
import { sha256, toHex } from "./secrets";

/** The user and grant a provider-issued credential names, or undefined for anything else. */
function grantOf(credential: string | null): { userId: string; providerId: string } | undefined {
  const parts = credential?.split(":");
  if (parts?.length !== 3 || !parts[0] || !parts[1]) return undefined;
  return { userId: parts[0], providerId: parts[1] };
}

const hashOf = async (token: string) => toHex(await sha256(token));

/** The request's form fields, read from a copy (the provider reads the request itself), or undefined when it has none. */
async function formOf(request: Request): Promise<URLSearchParams | undefined> {
  if (request.method !== "POST") return undefined;
  const type = (request.headers.get("Content-Type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") return undefined;
  try {
    // Decoded by hand: workerd warns when .text() reads a body that is not text/*.
    return new URLSearchParams(new TextDecoder().decode(await request.clone().arrayBuffer()));
  } catch {
    return undefined;
  }
}

/**
 * Every client ID the provider could take from the request, so none that names a host off the public internet is
 * fetched: each non-empty `client_id` (it skips empty ones), the user of a Basic header (form-decoded), and the
 * issuer and subject of a client assertion (a JWT's payload, read unverified: the provider verifies it after fetching).
 */
function clientIdsOf(request: Request, form: URLSearchParams | undefined): string[] {
  const ids = form?.getAll("client_id").filter((id) => id !== "") ?? [];
  const basic = /^basic[\t ]+(\S+)\s*$/i.exec(request.headers.get("Authorization") ?? "");
  if (basic?.[1]) {
    try {
      const credentials = atob(basic[1]);
      const user = credentials.slice(0, Math.max(0, credentials.indexOf(":")));
      ids.push(decodeURIComponent(user.replace(/\+/g, " ")));
    } catch {
      // Not base64 or not percent-encoding: the provider refuses it as malformed without fetching anything.
    }
  }
  const payload = form?.get("client_assertion")?.split(".")[1];
  if (payload) {
    try {
      // UTF-8, as the provider decodes it: read as Latin-1, a fullwidth or ideographic host would not parse here and would there.
      const bytes = Uint8Array.from(atob(payload.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
      const claims = JSON.parse(new TextDecoder().decode(bytes)) as { iss?: unknown; sub?: unknown };
      for (const claim of [claims.iss, claims.sub]) if (typeof claim === "string") ids.push(claim);
    } catch {
      // Not a JWT: the provider refuses it without fetching anything.
    }
  }
  return ids;
}

/** Whether the provider still holds the grant (it deletes a grant it ends; key layout: the provider's `grant:<user>:<grant>`). */
async function providerHolds(env: Env, g: { userId: string; providerId: string }): Promise<boolean> {
  return (await env.OAUTH_KV.get(`grant:${g.userId}:${g.providerId}`)) !== null;
}

/** Deletes the grant's tokens at the provider and forgets the isolate's cached caller for it. */
async function endAtProvider(url: URL, env: Env, g: { userId: string; providerId: string }, id: string | undefined): Promise<void> {
  if (id) oauthCache.forget(id);
  await oauthApi(url, env).revokeGrant(g.providerId, g.userId);
}

const invalidGrant = (description: string) =>
  Response.json({ error: "invalid_grant", error_description: description }, { status: 400, headers: { "Cache-Control": "no-store", Pragma: "no-cache" } });

function internalError(where: string, error: unknown): Response {
  const ref = errorRef();
  console.error(JSON.stringify({ event: "internal_error", ref, where, ...describeThrown(error) }));
  return Response.json({ error: "server_error", error_description: `Internal server error (ref ${ref}).` }, { status: 500 });
}

/** Serves one token endpoint request through `provider`, then squares the Registry with the answer. */
export async function serveTokenEndpoint(request: Request, env: Env, ctx: ExecutionContext, url: URL, provider: OAuthProvider<Env>): Promise<Response> {
  const form = await formOf(request);
  for (const clientId of clientIdsOf(request, form)) {
    const host = nonPublicClientId(clientId);
    if (host !== undefined) return nonPublicClientResponse(host);
  }
  const response = await provider.fetch(request, env, ctx);
  if (!form) return response;
  const grantType = form.get("grant_type");
  if (grantType === "refresh_token") return afterRefresh(url, env, form.get("refresh_token"), response);
  if (grantType === "authorization_code") return afterCode(url, env, form.get("code"), response);
  if (grantType === null && form.has("token") && response.ok) await afterRevocation(env, form.get("token"));
  return response;
}

/** The refresh token a successful answer carries. */
async function issuedRefreshToken(response: Response): Promise<string | undefined> {
  if (response.status !== 200) return undefined;
  const body = (await response.clone().json()) as { refresh_token?: unknown };
  return typeof body.refresh_token === "string" ? body.refresh_token : undefined;
}

async function afterRefresh(url: URL, env: Env, presented: string | null, response: Response): Promise<Response> {
  const g = grantOf(presented);
  if (!g || presented === null) return response;
  const registry = registryOf(env);
  const issued = await issuedRefreshToken(response);
  if (issued === undefined) {
    if (response.status !== 400) return response;
    // Refused: a rotated-out token is reuse all the same; a grant gone at the provider has ended.
    const refused = await registry.refusedRefreshToken({ ...g, presented: await hashOf(presented) });
    if (!refused.ok) return internalError("oauth.refresh", refused.message);
    if (refused.value) await endAtProvider(url, env, g, refused.value);
    else if (!(await providerHolds(env, g))) await endEnded(env, g, OAUTH_END_REASONS.expired);
    return response;
  }
  const verdict = await registry.rotateRefreshToken({ ...g, presented: await hashOf(presented), issued: await hashOf(issued) });
  if (!verdict.ok) {
    await endAtProvider(url, env, g, undefined);
    return internalError("oauth.refresh", verdict.message);
  }
  if (verdict.value.allowed) return response;
  await endAtProvider(url, env, g, verdict.value.grant);
  return invalidGrant(
    verdict.value.reused
      ? "This refresh token was already used, so the grant is revoked: every token of it stops working. Authorize again."
      : "The grant was revoked. Authorize again.",
  );
}

async function afterCode(url: URL, env: Env, code: string | null, response: Response): Promise<Response> {
  const g = grantOf(code);
  if (!g) return response;
  const issued = await issuedRefreshToken(response);
  if (issued === undefined) {
    // A replayed code makes the provider end the grant it was issued for.
    if (response.status === 400 && !(await providerHolds(env, g))) await endEnded(env, g, OAUTH_END_REASONS.codeReplayed);
    return response;
  }
  const verdict = await registryOf(env).rotateRefreshToken({ ...g, issued: await hashOf(issued) });
  if (verdict.ok && verdict.value.allowed) return response;
  await endAtProvider(url, env, g, verdict.ok ? verdict.value.grant : undefined);
  return verdict.ok ? invalidGrant("The grant was revoked. Authorize again.") : internalError("oauth.code", verdict.message);
}

/** A client revoking its refresh token ends the grant at the provider (RFC 7009); the Registry records it. */
async function afterRevocation(env: Env, token: string | null): Promise<void> {
  const g = grantOf(token);
  if (g && !(await providerHolds(env, g))) await endEnded(env, g, OAUTH_END_REASONS.clientRevoked);
}

/** Records that the provider's grant has ended (a failure is logged: the grant's tokens are gone anyway). */
async function endEnded(env: Env, g: { userId: string; providerId: string }, reason: OAuthEndReason): Promise<void> {
  const ended = await registryOf(env).endOAuthGrant(g, reason);
  if (!ended.ok) console.error(JSON.stringify({ event: "internal_error", where: "oauth.end", reason, error: ended.message }));
  else if (ended.value) oauthCache.forget(ended.value.id);
}
