/**
 * An OAuth caller is a caller: the auth matrix of test/auth/access.test.ts for
 * OAuth access tokens, narrowing at consent, attribution, the active
 * context per grant, and listing and revoking grants.
 */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { oauthCache } from "../../src/auth/oauth";
import { registryOf } from "../../src/registry/Registry";
import { type GrantRow, grantSummary } from "../../src/ui/client/apps";
import { EngramClient } from "../../src/ui/client/mcp";
import { connectV1, freshContext, text, workerFetch } from "../helpers/clients";
import { authorize, type Issued, tokenRequest } from "../helpers/oauth";
import { ADMIN, api, BASE, bearer, createContext, initialize, ISO_TIME, mint, secured } from "../helpers/teams";

afterEach(() => oauthCache.clear());

const entity = (name: string) => ({ entities: [{ name, entityType: "t", observations: ["o"] }] });
const connect = (issued: Issued, path = "/mcp") => connectV1({ url: `${BASE}${path}`, fetch: secured, headers: bearer(issued.access) });

describe("OAuth callers under the grants they were consented", () => {
  it("a reader cannot write: a read grant reads and every write is a Forbidden tool error", async () => {
    const ctx = freshContext("team");
    await createContext(ctx);
    const client = await connect(await authorize((await mint([{ context: ctx, role: "read" }])).token), `/mcp/${ctx}`);
    const denied = await client.call("create_entities", entity("r"));
    expect(denied.isError).toBe(true);
    expect(text(denied)).toContain("read-only");
    expect((await client.call("read_graph")).isError).toBeFalsy();
    await client.close();
  });

  it("a team-* grant cannot reach another context: 403 on its pinned URL, a tool error by argument", async () => {
    const mine = freshContext("team");
    const other = freshContext("other");
    await createContext(mine);
    await createContext(other);
    const issued = await authorize((await mint([{ context: "team-*", role: "write" }])).token);
    expect((await initialize(`/mcp/${other}`, bearer(issued.access))).status).toBe(403);
    const client = await connect(issued);
    const r = await client.call("read_graph", { context: other });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain(`no grant for context "${other}"`);
    expect((await client.call("create_entities", { ...entity("x"), context: mine })).isError).toBeFalsy();
    await client.close();
  });

  it("read-only contexts hold for an administrator's OAuth grant", async () => {
    const ctx = freshContext("frozen");
    await createContext(ctx, { readOnly: true });
    const client = await connect(await authorize(ADMIN), `/mcp/${ctx}`);
    const denied = await client.call("create_entities", entity("x"));
    expect(denied.isError).toBe(true);
    expect(text(denied)).toContain("read-only");
    await client.close();
  });

  it("narrows at consent: fewer grants, a lower role, one context of a glob; the result is all it may do", async () => {
    const a = freshContext("team");
    const b = freshContext("team");
    await createContext(a);
    await createContext(b);
    const owner = await mint([
      { context: "team-*", role: "write" },
      { context: "default", role: "write" },
    ]);
    // Keep only the first grant, limited to context a and lowered to read.
    const issued = await authorize(owner.token, { rows: "2", grant: "0", "context-0": a, "role-0": "read", "context-1": "default", "role-1": "write" });
    const listed = (await (await api(`/oauth/grants`)).json()) as { grants: { id: string; tokenId: string; grants: unknown }[] };
    expect(listed.grants.find((g) => g.tokenId === owner.id)?.grants).toEqual([{ context: a, role: "read" }]);
    const client = await connect(issued);
    expect((await client.call("read_graph", { context: a })).isError).toBeFalsy();
    expect((await client.call("create_entities", { ...entity("x"), context: a })).isError).toBe(true);
    expect((await client.call("read_graph", { context: b })).isError).toBe(true);
    expect((await client.call("read_graph", { context: "default" })).isError).toBe(true);
    await client.close();
  });

  it("attributes changes to '<token name> via <client name>' and keeps its own active context", async () => {
    const ctx = freshContext("team");
    await createContext(ctx);
    const owner = await mint([{ context: "*", role: "write" }]);
    const client = await connect(await authorize(owner.token));
    expect((await client.call("set_active_context", { name: ctx })).isError).toBeFalsy();
    expect((await client.call("create_entities", entity("attributed"))).isError).toBeFalsy();
    const history = (await client.call("memory_history")).structuredContent as { changes: { caller: string; callerId?: string }[] };
    expect(history.changes[0]).toMatchObject({ caller: `${owner.name} via Test Client` });
    expect(history.changes[0]?.callerId).toMatch(/^oag_/);
    // The consenting token's own active context is untouched.
    const direct = await connectV1({ url: `${BASE}/mcp`, fetch: secured, headers: bearer(owner.token) });
    expect(text(await direct.call("get_active_context"))).not.toContain(ctx);
    await direct.close();
    await client.close();
  });

  it("records the consent in the audit log", async () => {
    const owner = await mint([{ context: "default", role: "read" }]);
    await authorize(owner.token);
    const audit = await registryOf(env).auditLog(20);
    expect(audit.ok && audit.value.some((e) => e.action === "oauth.grant" && e.actor === owner.name && e.target === "Test Client")).toBe(true);
  });
});

describe("the hot path for OAuth callers", () => {
  it("serves warm calls with an OAuth access token without a Registry call, like a bearer token", async () => {
    const ctx = freshContext("hot");
    await createContext(ctx);
    const client = await connect(await authorize((await mint([{ context: ctx, role: "write" }])).token), `/mcp/${ctx}`);
    expect((await client.call("create_entities", entity("warm"))).isError).toBeFalsy(); // warm-up: the grant, the context
    const before = await registryOf(env).callCount();
    for (const r of await Promise.all([client.call("search_nodes", { query: "warm" }), client.call("create_entities", entity("again"))]))
      expect(r.isError, text(r)).toBeFalsy();
    expect(await registryOf(env).callCount()).toBe(before);
    await client.close();
  });
});

describe("listing and revoking grants", () => {
  it("lists every grant for the administrator and only a teammate's own for them", async () => {
    const alice = await mint([{ context: "default", role: "read" }]);
    const bob = await mint([{ context: "default", role: "read" }]);
    await authorize(alice.token);
    await authorize(bob.token);
    const all = (await (await api("/oauth/grants")).json()) as { grants: { tokenId: string; clientName: string; tokenName: string }[] };
    expect(all.grants.map((g) => g.tokenId)).toEqual(expect.arrayContaining([alice.id, bob.id]));
    const own = (await (await api("/oauth/grants", {}, alice.token)).json()) as {
      grants: { tokenId: string; tokenName: string; clientName: string; createdAt: string }[];
    };
    expect(own.grants).toEqual([
      expect.objectContaining({ tokenId: alice.id, tokenName: alice.name, clientName: "Test Client", createdAt: expect.stringMatching(ISO_TIME) }),
    ]);
    expect(JSON.stringify(own)).not.toContain("providerId");
  });

  it("revokes one grant: its access and refresh tokens stop; a teammate cannot revoke another's", async () => {
    const alice = await mint([{ context: "default", role: "read" }]);
    const bob = await mint([{ context: "default", role: "read" }]);
    const issued = await authorize(alice.token);
    const own = (await (await api("/oauth/grants", {}, alice.token)).json()) as { grants: { id: string; lastUsedAt: string | null }[] };
    const id = own.grants[0]?.id ?? "";
    expect((await initialize("/mcp", bearer(issued.access))).status).toBe(200);
    const used = (await (await api("/oauth/grants", {}, alice.token)).json()) as { grants: { lastUsedAt: string | null }[] };
    expect(used.grants[0]?.lastUsedAt).toMatch(ISO_TIME);

    const refused = await api(`/oauth/grants/${id}`, { method: "DELETE" }, bob.token);
    expect(refused.status).toBe(404);
    expect((await initialize("/mcp", bearer(issued.access))).status).toBe(200);

    const revoked = await api(`/oauth/grants/${id}`, { method: "DELETE" }, alice.token);
    expect(revoked.status).toBe(200);
    expect((await initialize("/mcp", bearer(issued.access))).status).toBe(401);
    const refreshed = await tokenRequest({ grant_type: "refresh_token", refresh_token: issued.refresh, client_id: issued.clientId });
    expect(refreshed.json.error).toBe("invalid_grant");
    expect((await api(`/oauth/grants/oag_0000000000000000`, { method: "DELETE" })).status).toBe(404);
  });

  it("the web page's Connected apps calls list a teammate's grants and revoke one, also in open local mode", async () => {
    const alice = await mint([{ context: "default", role: "read" }]);
    const issued = await authorize(alice.token);
    const page = new EngramClient({ base: BASE, fetch: secured, token: () => alice.token });
    const { grants } = await page.getJson<{ grants: GrantRow[] }>("/oauth/grants");
    expect(grants).toEqual([expect.objectContaining({ clientName: "Test Client", tokenName: alice.name, grants: [{ context: "default", role: "read" }] })]);
    expect(grantSummary(grants[0] as GrantRow)).toBe("default=read");
    await page.deleteJson(`/oauth/grants/${grants[0]?.id}`);
    expect((await initialize("/mcp", bearer(issued.access))).status).toBe(401);
    expect((await page.getJson<{ grants: GrantRow[] }>("/oauth/grants")).grants).toEqual([]);

    // Open local mode sends no Authorization: the declared JSON media type lets the DELETE through.
    const local = workerFetch();
    const localIssued = await authorize(undefined, { rows: "1", grant: "0", "context-0": "*", "role-0": "read" }, local);
    const localPage = new EngramClient({ base: BASE, fetch: local });
    const mine = (await localPage.getJson<{ grants: GrantRow[] }>("/oauth/grants")).grants.filter((g) => g.tokenName === "local");
    expect(mine.length).toBeGreaterThan(0);
    for (const g of mine) await localPage.deleteJson(`/oauth/grants/${g.id}`);
    expect((await initialize("/mcp", bearer(localIssued.access), local)).status).toBe(401);
  });

  it("a new consent by the same token to the same client replaces the earlier grant", async () => {
    const owner = await mint([{ context: "default", role: "read" }]);
    const first = await authorize(owner.token);
    const second = await authorize(owner.token, {}, secured, first.clientId);
    const listed = (await (await api("/oauth/grants", {}, owner.token)).json()) as { grants: unknown[] };
    expect(listed.grants).toHaveLength(1);
    expect((await initialize("/mcp", bearer(first.access))).status).toBe(401);
    expect((await initialize("/mcp", bearer(second.access))).status).toBe(200);
  });
});
