/**
 * Refresh-token rotation with reuse detection, and grants that end without
 * the API (a client's revocation, a replayed code, reuse, a changed
 * ADMIN_TOKEN): raw HTTP against /oauth/token, /mcp and /api/oauth/grants,
 * the doors the attacks used.
 */
import { afterEach, describe, expect, it } from "vitest";
import { oauthCache } from "../../src/auth/oauth";
import { workerFetch } from "../helpers/clients";
import { authorize, authorizeUrl, consentPage, pkce, postConsent, REDIRECT, register, RESOURCE, tokenRequest } from "../helpers/oauth";
import { ADMIN, api, BASE, initialize, ISO_TIME, mint, secured } from "../helpers/teams";

afterEach(() => oauthCache.clear());

const refresh = (token: string, clientId: string) => tokenRequest({ grant_type: "refresh_token", refresh_token: token, client_id: clientId });
const mcpStatus = async (access: string) => (await initialize("/mcp", { Authorization: `Bearer ${access}` })).status;

interface Listed {
  id: string;
  clientId: string;
  status: string;
  revokedAt: string | null;
  revokedReason: string | null;
}

/** The grant of `clientId` as GET /api/oauth/grants?revoked=true lists it, and whether the default (live) list has it. */
async function listed(clientId: string): Promise<{ grant: Listed | undefined; live: boolean }> {
  const all = (await (await api("/oauth/grants?revoked=true")).json()) as { grants: Listed[] };
  const live = (await (await api("/oauth/grants")).json()) as { grants: Listed[] };
  return { grant: all.grants.find((g) => g.clientId === clientId), live: live.grants.some((g) => g.clientId === clientId) };
}

describe("refresh-token reuse", () => {
  it("ends the whole grant when a rotated-out refresh token is replayed: the attacker's and the client's tokens all stop", async () => {
    const owner = await mint([{ context: "*", role: "write" }]);
    const rt0 = await authorize(owner.token);
    // The client rotates RT0 into RT1.
    const first = await refresh(rt0.refresh, rt0.clientId);
    expect(first.status).toBe(200);
    const rt1 = String(first.json.refresh_token);
    const access1 = String(first.json.access_token);
    expect(await mcpStatus(access1)).toBe(200);

    // An attacker who stole RT0 replays it: refused, and the grant ends.
    const replay = await refresh(rt0.refresh, rt0.clientId);
    expect(replay.status).toBe(400);
    expect(replay.json.error).toBe("invalid_grant");
    expect(String(replay.json.error_description)).toMatch(/already used/);

    // Every token of the grant stops: the client's RT1 and both access tokens; a second replay mints nothing.
    expect((await refresh(rt1, rt0.clientId)).json.error).toBe("invalid_grant");
    expect((await refresh(rt0.refresh, rt0.clientId)).json.error).toBe("invalid_grant");
    expect(await mcpStatus(access1)).toBe(401);
    expect(await mcpStatus(rt0.access)).toBe(401);

    const { grant, live } = await listed(rt0.clientId);
    expect(live).toBe(false);
    expect(grant).toMatchObject({ status: "revoked", revokedReason: "refresh token reused" });
    expect(grant?.revokedAt).toMatch(ISO_TIME);
  });

  it("treats a token two rotations old as reuse too, and a new consent works afterwards", async () => {
    const owner = await mint([{ context: "*", role: "read" }]);
    const rt0 = await authorize(owner.token);
    const rt1 = String((await refresh(rt0.refresh, rt0.clientId)).json.refresh_token);
    const second = await refresh(rt1, rt0.clientId);
    expect(second.status).toBe(200);
    const access2 = String(second.json.access_token);
    expect(await mcpStatus(access2)).toBe(200);

    expect((await refresh(rt0.refresh, rt0.clientId)).json.error).toBe("invalid_grant");
    expect(await mcpStatus(access2)).toBe(401);
    expect((await refresh(String(second.json.refresh_token), rt0.clientId)).json.error).toBe("invalid_grant");
    expect((await listed(rt0.clientId)).grant?.revokedReason).toBe("refresh token reused");

    // The client asks for consent again and gets a working grant.
    const again = await authorize(owner.token, {}, undefined, rt0.clientId);
    expect(await mcpStatus(again.access)).toBe(200);
    expect((await refresh(again.refresh, rt0.clientId)).status).toBe(200);
  });

  it("rotates normally: each refresh token works once, in order, and the grant stays live", async () => {
    const owner = await mint([{ context: "*", role: "read" }]);
    const issued = await authorize(owner.token);
    let token = issued.refresh;
    for (let i = 0; i < 3; i++) {
      const next = await refresh(token, issued.clientId);
      expect(next.status, `refresh ${i}`).toBe(200);
      token = String(next.json.refresh_token);
    }
    expect((await listed(issued.clientId)).live).toBe(true);
  });

  it("ends nothing for a made-up refresh token naming a real grant", async () => {
    const owner = await mint([{ context: "*", role: "read" }]);
    const issued = await authorize(owner.token);
    const [user, grant] = issued.refresh.split(":");
    expect((await refresh(`${user}:${grant}:forged`, issued.clientId)).json.error).toBe("invalid_grant");
    expect((await refresh(issued.refresh, issued.clientId)).status).toBe(200);
    expect((await listed(issued.clientId)).live).toBe(true);
  });
});

describe("grants the provider ended are listed as ended", () => {
  it("a client revoking its refresh token (RFC 7009): the grant shows revokedAt and its reason", async () => {
    const owner = await mint([{ context: "*", role: "read" }]);
    const issued = await authorize(owner.token);
    const res = await secured(`${BASE}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: issued.refresh, token_type_hint: "refresh_token", client_id: issued.clientId }),
    });
    expect(res.status).toBe(200);
    expect(await mcpStatus(issued.access)).toBe(401);
    const { grant, live } = await listed(issued.clientId);
    expect(live).toBe(false);
    expect(grant).toMatchObject({ status: "revoked", revokedReason: "revoked by the client" });
  });

  it("a replayed authorization code: the grant shows as ended", async () => {
    const owner = await mint([{ context: "*", role: "read" }]);
    const { client_id: clientId } = await register();
    const { verifier, challenge } = await pkce();
    const url = authorizeUrl({ clientId, challenge });
    const page = await consentPage(url);
    const shown = await postConsent(url, page.cookie, { handle: page.handle, decision: "review", token: owner.token });
    const html = await shown.text();
    const posted = await postConsent(url, page.cookie, {
      handle: page.handle,
      decision: "allow",
      token: owner.token,
      rows: /name="rows" value="(\d+)"/.exec(html)?.[1] ?? "1",
      grant: "0",
      "context-0": "*",
      "role-0": "read",
    });
    const code = new URL(String(posted.headers.get("Location"))).searchParams.get("code") ?? "";
    const exchange = { grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier, resource: RESOURCE };
    expect((await tokenRequest(exchange)).status).toBe(200);
    expect((await tokenRequest(exchange)).json.error).toBe("invalid_grant");
    const { grant, live } = await listed(clientId);
    expect(live).toBe(false);
    expect(grant).toMatchObject({ status: "revoked", revokedReason: "authorization code replayed" });
  });
});

describe("a grant the ADMIN_TOKEN consented to", () => {
  it("stays ended when the old secret comes back after a change", async () => {
    const issued = await authorize(ADMIN);
    expect(await mcpStatus(issued.access)).toBe(200);

    // The secret changes: the first use of the grant's access token sees it and ends the grant.
    const rotated = workerFetch({ ADMIN_TOKEN: "another-admin-secret-0123456789" });
    expect((await initialize("/mcp", { Authorization: `Bearer ${issued.access}` }, rotated)).status).toBe(401);
    oauthCache.clear();

    // The old secret returns: the grant stays ended, for its access and its refresh token.
    expect(await mcpStatus(issued.access)).toBe(401);
    expect((await refresh(issued.refresh, issued.clientId)).json.error).toBe("invalid_grant");
    expect((await listed(issued.clientId)).grant).toMatchObject({ status: "revoked", revokedReason: "ADMIN_TOKEN changed" });
  });

  it("ends at a refresh under a changed secret too, before any /mcp call", async () => {
    const issued = await authorize(ADMIN);
    const rotated = workerFetch({ ADMIN_TOKEN: "another-admin-secret-0123456789" });
    const res = await rotated(`${BASE}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: issued.refresh, client_id: issued.clientId }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_grant");
    expect(await mcpStatus(issued.access)).toBe(401);
    expect((await listed(issued.clientId)).grant?.revokedReason).toBe("ADMIN_TOKEN changed");
  });
});
