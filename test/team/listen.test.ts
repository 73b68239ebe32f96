import { runInDurableObject } from "cloudflare:test";
import { Client, StreamableHTTPClientTransport, type McpSubscription } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { oauthCache } from "../../src/auth/oauth";
import { LIMITS } from "../../src/limits";
import { Db } from "../../src/storage/sql";
import { connectV1, connectV2, freshContext, rejection, type TestClient } from "../helpers/clients";
import { stubOf } from "../helpers/context";
import { authorize } from "../helpers/oauth";
import { api, BASE, bearer, connectAs, createContext, mint, secured, type Minted } from "../helpers/teams";

afterEach(() => oauthCache.clear());

/** Resolves once `check` holds, or fails after `ms` (a bound on waiting, not a measurement). */
async function waitFor(check: () => boolean | Promise<boolean>, ms = 2000, what = "condition"): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** What `promise` settles to, or a failure after `ms` (a bound on waiting, not a measurement). */
function within<T>(promise: Promise<T>, ms = 2000, what = "the promise"): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms))]);
}

/** The listen streams' sockets the context's object holds (the writer's 2025-era GET stream is another). */
const sockets = (ctx: string) =>
  runInDurableObject(stubOf(ctx), (_o, state) => state.getWebSockets().filter((ws) => state.getTags(ws).some((t) => t.startsWith("listen "))).length);

const subscriptionRows = (ctx: string) =>
  runInDurableObject(stubOf(ctx), (_o, state) => new Db(state.storage.sql).all<{ uri: string }>("SELECT uri FROM subscriptions ORDER BY uri").map((r) => r.uri));

/** An SDK v2 client pinned to 2026-07-28, recording every notifications/resources/updated it receives. */
async function listener(token: string, ctx: string) {
  const client = new Client({ name: "listener", version: "2.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const updated: string[] = [];
  client.setNotificationHandler("notifications/resources/updated", (n) => {
    updated.push(n.params.uri);
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${BASE}/mcp/${ctx}`), { fetch: secured, requestInit: { headers: bearer(token) } }));
  return { client, updated, token };
}

async function team() {
  const ctx = freshContext("listen");
  await createContext(ctx);
  const grants = [{ context: ctx, role: "write" as const }];
  const [alice, bob, carol]: Minted[] = await Promise.all([mint(grants), mint(grants), mint(grants)]);
  const writer: TestClient = await connectAs(connectV1, (bob as Minted).token, `/mcp/${ctx}`);
  await writer.call("create_entities", {
    entities: [
      { name: "Plan", entityType: "project", observations: ["ships in May"] },
      { name: "Budget", entityType: "project", observations: [] },
    ],
  });
  const a = await listener((alice as Minted).token, ctx);
  const c = await listener((carol as Minted).token, ctx);
  const subs: McpSubscription[] = [];
  const listen = async (client: Client, uris: string[]) => {
    const sub = await client.listen({ resourceSubscriptions: uris });
    subs.push(sub);
    return sub;
  };
  const close = async () => {
    await Promise.all(subs.map((s) => s.close()));
    await Promise.all([writer.close(), a.client.close(), c.client.close()]);
  };
  return { ctx, writer, alice: a, carol: c, carolToken: carol as Minted, listen, close };
}

describe("subscriptions/listen (SDK v2 client, 2026-07-28)", () => {
  it("declares resources.subscribe on the 2026-07-28 lane", async () => {
    const ctx = freshContext("listen");
    await createContext(ctx);
    const [reader] = await Promise.all([mint([{ context: ctx, role: "read" }])]);
    const modern = await connectAs(connectV2, (reader as Minted).token, `/mcp/${ctx}`);
    expect((modern.capabilities()?.resources as { subscribe?: boolean } | undefined)?.subscribe).toBe(true);
    await modern.close();
  });

  it("acknowledges the filter and notifies of another teammate's write to the entity, not of a write to another", async () => {
    const { ctx, writer, alice, listen, close } = await team();
    const sub = await listen(alice.client, ["memory://entity/Plan"]);
    expect(sub.honoredFilter).toEqual({ resourceSubscriptions: ["memory://entity/Plan"] });
    expect(await subscriptionRows(ctx)).toEqual(["memory://entity/Plan"]);
    await writer.call("add_observations", { observations: [{ entityName: "Budget", contents: ["unrelated"] }] });
    await writer.call("add_observations", { observations: [{ entityName: "Plan", contents: ["needs a designer"] }] });
    await waitFor(() => alice.updated.length > 0, 2000, "the notification");
    // Each commit is sent as it commits, in order: Budget's write, first, sent nothing.
    expect(alice.updated).toEqual(["memory://entity/Plan"]);
    await close();
  });

  it("notifies the brief's listener of every change, whoever made it, and files and documents by their URIs", async () => {
    const { writer, alice, carol, listen, close } = await team();
    await writer.call("create", { path: "notes/a.md", file_text: "one\n" });
    await listen(alice.client, ["memory://brief"]);
    await listen(carol.client, ["memory://file/notes/a.md"]);
    await writer.call("create_entities", { entities: [{ name: "Hiring", entityType: "project", observations: [] }] });
    await writer.call("str_replace", { path: "notes/a.md", old_str: "one", new_str: "two" });
    await carol.client.callTool({ name: "add_observations", arguments: { observations: [{ entityName: "Plan", contents: ["carol's note"] }] } });
    await waitFor(() => alice.updated.length > 2 && carol.updated.length > 0, 2000, "every notification");
    expect(alice.updated).toEqual(["memory://brief", "memory://brief", "memory://brief"]);
    expect(carol.updated).toEqual(["memory://file/notes/a.md"]);
    await close();
  });

  it("refuses an unknown URI, a missing item and a filter without notifications, storing nothing", async () => {
    const { ctx, alice, close } = await team();
    const unknown = await rejection(alice.client.listen({ resourceSubscriptions: ["memory://brief", "memory://nope"] }));
    expect(unknown.code).toBe(-32602);
    expect(unknown.message).toMatch(/Unknown resource URI "memory:\/\/nope": subscribe to one of memory:\/\/brief, memory:\/\/entity\/\{name\}/);
    expect((await rejection(alice.client.listen({ resourceSubscriptions: ["https://example.com/x"] }))).message).toMatch(/Unknown resource URI/);
    const missing = await rejection(alice.client.listen({ resourceSubscriptions: ["memory://brief", "memory://entity/Nobody"] }));
    expect(missing.message).toMatch(
      /Resource not found: memory:\/\/entity\/Nobody \(no entity "Nobody" in this context; subscribe to memory:\/\/brief to hear of new items\)/,
    );
    for (const filter of [undefined, { resourceSubscriptions: "memory://brief" }]) {
      const invalid = await rejection(alice.client.listen(filter as never));
      expect(invalid.code).toBe(-32602);
      expect(invalid.message).toMatch(/'notifications' is required and must be a valid SubscriptionFilter/);
    }
    expect(await subscriptionRows(ctx)).toEqual([]);
    await waitFor(async () => (await sockets(ctx)) === 0, 2000, "the refused streams' sockets to close");
    await close();
  });

  it("stops delivery when the client closes the stream, and drops its URIs", async () => {
    const { ctx, writer, alice, carol, listen, close } = await team();
    const gone = await listen(alice.client, ["memory://brief"]);
    await listen(carol.client, ["memory://brief"]);
    expect(await sockets(ctx)).toBe(2);
    await gone.close();
    expect(await gone.closed).toBe("local");
    await waitFor(async () => (await sockets(ctx)) === 1, 2000, "the closed stream's socket to close");
    expect(await subscriptionRows(ctx)).toEqual(["memory://brief"]);
    await writer.call("create_entities", { entities: [{ name: "Hiring", entityType: "project", observations: [] }] });
    await waitFor(() => carol.updated.length > 0, 2000, "the open stream's notification");
    // Both streams would have been sent the same message together.
    expect(alice.updated).toEqual([]);
    await close();
  });

  it("ends the stream gracefully when the context's object closes it (an eviction), so the client listens again", async () => {
    const { ctx, writer, alice, listen, close } = await team();
    const first = await listen(alice.client, ["memory://entity/Plan"]);
    await runInDurableObject(stubOf(ctx), (_o, state) => {
      for (const ws of state.getWebSockets()) ws.close(1012, "restarting");
    });
    expect(await first.closed).toBe("graceful");
    await listen(alice.client, ["memory://entity/Plan"]);
    // The closed stream's row went when the new stream connected: one row, the new stream's.
    expect(await subscriptionRows(ctx)).toEqual(["memory://entity/Plan"]);
    await writer.call("add_observations", { observations: [{ entityName: "Plan", contents: ["after the restart"] }] });
    await waitFor(() => alice.updated.length > 0, 2000, "the notification on the new stream");
    expect(alice.updated).toEqual(["memory://entity/Plan"]);
    await close();
  });

  it("ends a revoked token's stream gracefully: nothing is delivered after the revocation, and its URIs go", async () => {
    const { ctx, writer, alice, carol, carolToken, listen, close } = await team();
    await listen(alice.client, ["memory://brief"]);
    const revoked = await listen(carol.client, ["memory://brief", "memory://entity/Plan"]);
    expect((await api(`/tokens/${carolToken.id}`, { method: "DELETE" })).status).toBe(200);
    await writer.call("add_observations", { observations: [{ entityName: "Plan", contents: ["after the revocation"] }] });
    await waitFor(() => alice.updated.length > 0, 2000, "the teammate's notification");
    expect(await within(revoked.closed, 2000, "the revoked stream to end")).toBe("graceful");
    // Both streams would have been sent the same message together.
    expect(carol.updated).toEqual([]);
    await waitFor(async () => (await sockets(ctx)) === 1, 2000, "the revoked stream's socket to close");
    expect(await subscriptionRows(ctx)).toEqual(["memory://brief"]);
    await close();
  });

  it("ends an OAuth app's stream when its grant is revoked", async () => {
    const { ctx, writer, alice, carolToken, listen, close } = await team();
    await listen(alice.client, ["memory://brief"]);
    const issued = await authorize(carolToken.token);
    const app = await listener(issued.access, ctx);
    const revoked = await listen(app.client, ["memory://entity/Plan"]);
    const { grants } = (await (await api("/oauth/grants")).json()) as { grants: { id: string; clientId: string }[] };
    const grant = grants.find((g) => g.clientId === issued.clientId);
    expect((await api(`/oauth/grants/${grant?.id}`, { method: "DELETE" })).status).toBe(200);
    await writer.call("add_observations", { observations: [{ entityName: "Plan", contents: ["after the grant ended"] }] });
    await waitFor(() => alice.updated.length > 0, 2000, "the teammate's notification");
    expect(await within(revoked.closed, 2000, "the ended grant's stream to end")).toBe("graceful");
    expect(app.updated).toEqual([]);
    expect(await subscriptionRows(ctx)).toEqual(["memory://brief"]);
    await app.client.close();
    await close();
  });

  it("refuses a listen past LIMITS.subscriptionsPerCaller URIs of one caller in a context, storing nothing", async () => {
    const { ctx, writer, alice, carol, listen, close } = await team();
    const per = LIMITS.subscriptionsPerSession;
    const names = Array.from({ length: per - 3 }, (_, i) => `Item${i}`);
    await writer.call("create_entities", { entities: names.map((name) => ({ name, entityType: "thing", observations: [] })) });
    const uris = ["memory://brief", "memory://entity/Plan", "memory://entity/Budget", ...names.map((n) => `memory://entity/${n}`)];
    const max = LIMITS.subscriptionsPerCaller;
    for (let held = 0; held < max; held += per) await listen(alice.client, uris);
    const refused = await rejection(alice.client.listen({ resourceSubscriptions: ["memory://brief"] }));
    expect(refused.code).toBe(-32602);
    expect(refused.message).toMatch(new RegExp(`a caller holds at most ${max} subscriptions in a context, across its sessions and listen streams`));
    expect((await subscriptionRows(ctx)).length).toBe(max);
    // Another teammate's subscriptions are their own.
    await listen(carol.client, ["memory://brief"]);
    expect((await subscriptionRows(ctx)).length).toBe(max + 1);
    await close();
  });
});
