/**
 * The OAuth 2.1 flow end to end through the Worker's fetch: discovery,
 * dynamic registration, the consent page, the code exchange with PKCE,
 * MCP calls with the access token, refresh rotation and revocation.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { oauthCache } from "../../src/auth/oauth";
import { connectV1, connectV2, freshContext, workerFetch } from "../helpers/clients";
import { authorize, authorizeUrl, consentPage, pkce, postConsent, REDIRECT, register, RESOURCE, tokenRequest } from "../helpers/oauth";
import { ADMIN, api, BASE, bearer, createContext, initialize, mint, secured } from "../helpers/teams";

afterEach(() => {
  vi.useRealTimers();
  oauthCache.clear();
});

const entity = (name: string) => ({ entities: [{ name, entityType: "t", observations: ["o"] }] });

describe("discovery", () => {
  it("publishes the protected resource metadata at /mcp's path-suffixed URL, for /mcp/<context> and bare", async () => {
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource/mcp/team-a", "/.well-known/oauth-protected-resource"]) {
      const res = await secured(`${BASE}${path}`);
      expect(res.status, path).toBe(200);
      const doc = (await res.json()) as { resource: string; authorization_servers: string[] };
      expect(doc.resource, path).toBe(RESOURCE);
      expect(doc.authorization_servers, path).toEqual([BASE]);
    }
  });

  it("publishes the authorization server metadata: endpoints, S256 only, registration", async () => {
    const res = await secured(`${BASE}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      issuer: BASE,
      authorization_endpoint: `${BASE}/authorize`,
      token_endpoint: `${BASE}/oauth/token`,
      registration_endpoint: `${BASE}/oauth/register`,
      code_challenge_methods_supported: ["S256"],
    });
    expect(doc.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
  });

  it("answers /mcp and /mcp/<context> without a token, or with an unknown one, with 401 naming the metadata's absolute URL", async () => {
    const metadata = `resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp"`;
    for (const [path, headers] of [
      ["/mcp", {}],
      ["/mcp/team-a", {}],
      ["/mcp", bearer("nope")],
      ["/mcp", bearer("u:g:not-a-token")],
      ["/mcp/team-a", bearer(`eg_${"A".repeat(43)}`)],
    ] as const) {
      const res = await initialize(path, headers);
      expect(res.status, path).toBe(401);
      expect(res.headers.get("WWW-Authenticate"), path).toMatch(/^Bearer /);
      expect(res.headers.get("WWW-Authenticate"), path).toContain(metadata);
      const body = (await res.json()) as { error: string; message: string };
      expect(body.error, path).toBe(headers === undefined || !("Authorization" in headers) ? "unauthorized" : "invalid_token");
      expect(body.message, path).toMatch(headers === undefined || !("Authorization" in headers) ? /Send Authorization: Bearer/ : /not valid/);
    }
  });

  it("keeps API tokens and ADMIN_TOKEN working on the same URLs", async () => {
    const t = await mint([{ context: "*", role: "read" }]);
    for (const token of [ADMIN, t.token]) {
      expect((await initialize("/mcp", bearer(token))).status).toBe(200);
      expect((await initialize("/mcp/default", bearer(token))).status).toBe(200);
    }
  });
});

describe("the whole flow", () => {
  it("registers, consents, exchanges the code with PKCE, calls /mcp with both SDK clients, refreshes with rotation, and ends with the token's revocation", async () => {
    const ctx = freshContext("team");
    await createContext(ctx);
    const owner = await mint([{ context: ctx, role: "write" }]);
    const issued = await authorize(owner.token);
    expect(issued.expiresIn).toBe(3600);

    for (const connect of [connectV1, connectV2]) {
      const client = await connect({ url: `${BASE}/mcp/${ctx}`, fetch: secured, headers: bearer(issued.access) });
      expect((await client.call("create_entities", entity(`via-${client.name}`))).isError).toBeFalsy();
      await client.close();
    }

    // Refresh: a new pair, and the new refresh token works (replaying a rotated-out one ends the grant: oauth-refresh.test.ts).
    const first = await tokenRequest({ grant_type: "refresh_token", refresh_token: issued.refresh, client_id: issued.clientId });
    expect(first.status).toBe(200);
    const refresh2 = String(first.json.refresh_token);
    expect(refresh2).not.toBe(issued.refresh);
    const second = await tokenRequest({ grant_type: "refresh_token", refresh_token: refresh2, client_id: issued.clientId });
    expect(second.status).toBe(200);
    const access = String(second.json.access_token);
    expect((await initialize(`/mcp/${ctx}`, bearer(access))).status).toBe(200);

    // Revoking the API token that consented ends the grant: its access and refresh tokens stop at once.
    const revoked = await api(`/tokens/${owner.id}`, { method: "DELETE" });
    expect(revoked.status).toBe(200);
    expect(((await revoked.json()) as { oauthGrantsRevoked: string[] }).oauthGrantsRevoked).toHaveLength(1);
    const after = await initialize(`/mcp/${ctx}`, bearer(access));
    expect(after.status).toBe(401);
    expect(after.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
    const refreshed = await tokenRequest({ grant_type: "refresh_token", refresh_token: String(second.json.refresh_token), client_id: issued.clientId });
    expect(refreshed.json.error).toBe("invalid_grant");
  });

  it("ends the grant even where only the Registry heard of the revocation (another isolate's cache aside)", async () => {
    const owner = await mint([{ context: "default", role: "read" }]);
    const issued = await authorize(owner.token);
    expect((await initialize("/mcp", bearer(issued.access))).status).toBe(200);
    // Revoked in the Registry alone (as another isolate would see it once its cache entry expires).
    const { registryOf } = await import("../../src/registry/Registry");
    const { env } = await import("cloudflare:test");
    await registryOf(env).revokeToken(owner.id, "test");
    oauthCache.clear();
    const res = await initialize("/mcp", bearer(issued.access));
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toContain(`resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp"`);
  });

  it("ends a grant the ADMIN_TOKEN consented to when that secret changes, and keeps it under the secret's sha256 spelling", async () => {
    const issued = await authorize(ADMIN);
    expect((await initialize("/mcp", bearer(issued.access))).status).toBe(200);
    const { sha256, toHex } = await import("../../src/auth/secrets");
    const hashed = workerFetch({ ADMIN_TOKEN: `sha256:${toHex(await sha256(ADMIN))}` } as unknown as Partial<Env>);
    expect((await initialize("/mcp", bearer(issued.access), hashed)).status).toBe(200);
    // A new secret is a new deployment: fresh isolates, empty caches.
    oauthCache.clear();
    const rotated = workerFetch({ ADMIN_TOKEN: "a-new-admin-secret-of-enough-length-0001" } as unknown as Partial<Env>);
    const res = await initialize("/mcp", bearer(issued.access), rotated);
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
  });

  it("lets access tokens expire after OAUTH_ACCESS_TOKEN_TTL seconds (a setting)", async () => {
    const f = workerFetch({ ADMIN_TOKEN: ADMIN, OAUTH_ACCESS_TOKEN_TTL: "120" } as unknown as Partial<Env>);
    const issued = await authorize(ADMIN, {}, f);
    expect(issued.expiresIn).toBe(120);
    expect((await initialize("/mcp", bearer(issued.access), f)).status).toBe(200);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 121_000);
    const res = await initialize("/mcp", bearer(issued.access), f);
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
  });

  it("works in open local mode: no token is asked, the local administrator consents", async () => {
    const local = workerFetch();
    const { client_id: clientId } = await register(local);
    const { verifier, challenge } = await pkce();
    const url = authorizeUrl({ clientId, challenge });
    const page = await consentPage(url, local);
    expect(page.res.status).toBe(200);
    expect(page.html).not.toContain('name="token"');
    const posted = await postConsent(url, page.cookie, { handle: page.handle, decision: "allow", rows: "1", grant: "0", "context-0": "*", "role-0": "read" }, local);
    expect(posted.status).toBe(302);
    const code = new URL(String(posted.headers.get("Location"))).searchParams.get("code") ?? "";
    const exchanged = await tokenRequest({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier }, local);
    expect(exchanged.status).toBe(200);
    // The narrowed grant holds even here: read, so writes are refused.
    const client = await connectV1({ url: `${BASE}/mcp`, fetch: local, headers: bearer(String(exchanged.json.access_token)) });
    expect((await client.call("read_graph")).isError).toBeFalsy();
    expect((await client.call("create_entities", entity("x"))).isError).toBe(true);
    await client.close();
  });
});
