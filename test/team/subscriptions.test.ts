import { env, runInDurableObject } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { tokenCache } from "../../src/auth/cache";
import { LIMITS } from "../../src/limits";
import { watchTimers } from "../../src/mcp/watch";
import { realTimers } from "../../src/context/pending";
import { registryOf } from "../../src/registry/Registry";
import { settings } from "../../src/settings";
import { Db } from "../../src/storage/sql";
import { connectV1, freshContext, type TestClient } from "../helpers/clients";
import { stubOf } from "../helpers/context";
import { manualTimers } from "../helpers/timers";
import { api, BASE, bearer, connectAs, createContext, mint, secured, type Minted } from "../helpers/teams";

afterEach(() => {
  tokenCache.now = Date.now;
  watchTimers.schedule = realTimers;
});

/** Resolves once `check` holds, or fails after `ms` (a bound on waiting, not a measurement). */
async function waitFor(check: () => boolean | Promise<boolean>, ms = 2000, what = "condition"): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** An SDK v1 client with a session, recording every notifications/resources/updated it receives. */
async function subscriber(token: string, ctx: string) {
  const client = new Client({ name: "subscriber", version: "1.0.0" });
  const updated: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updated.push(n.params.uri);
  });
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp/${ctx}`), { fetch: secured, requestInit: { headers: bearer(token) } });
  await client.connect(transport);
  const session = transport.sessionId ?? "";
  // The GET stream opens after initialization, on its own: wait until the context's object holds it.
  await waitFor(() => streamOpen(ctx, session), 5000, "the GET stream");
  return { client, updated, session };
}

/** Whether the context's object holds an open stream of `session` (whoever's it is). */
const streamOpen = (ctx: string, session: string) =>
  runInDurableObject(stubOf(ctx), (_o, state) => state.getWebSockets().some((ws) => state.getTags(ws).some((t) => t.endsWith(`/${session}`))));

/** A raw resources/subscribe in `session`, as a client that never initialized sends it. */
const rawSubscribe = (ctx: string, token: string, session: string, uri = "memory://brief") =>
  secured(`${BASE}/mcp/${ctx}`, {
    method: "POST",
    headers: { ...bearer(token), "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Mcp-Session-Id": session },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "resources/subscribe", params: { uri } }),
  }).then((res) => res.json() as Promise<{ result?: unknown; error?: { code: number; message: string } }>);

/** A teammate with a read grant, subscribed in a session of its own to the brief and Plan. */
async function readerSubscribed(ctx: string) {
  const reader = await mint([{ context: ctx, role: "read" }]);
  const sub = await subscriber(reader.token, ctx);
  await sub.client.subscribeResource({ uri: "memory://brief" });
  await sub.client.subscribeResource({ uri: "memory://entity/Plan" });
  return { reader, ...sub };
}

async function team() {
  const ctx = freshContext("subs");
  await createContext(ctx);
  const grants = [{ context: ctx, role: "write" as const }];
  const [alice, bob]: Minted[] = await Promise.all([mint(grants), mint(grants)]);
  const writer: TestClient = await connectAs(connectV1, (bob as Minted).token, `/mcp/${ctx}`);
  await writer.call("create_entities", {
    entities: [
      { name: "Plan", entityType: "project", observations: ["ships in May"] },
      { name: "Budget", entityType: "project", observations: [] },
    ],
  });
  const sub = await subscriber((alice as Minted).token, ctx);
  return { ctx, writer, ...sub, close: () => Promise.all([writer.close(), sub.client.close()]) };
}

const subscriptionRows = (ctx: string) =>
  runInDurableObject(stubOf(ctx), (_o, state) => new Db(state.storage.sql).all<{ uri: string }>("SELECT uri FROM subscriptions ORDER BY uri").map((r) => r.uri));

describe("live subscriptions (SDK v1 client with a session)", () => {
  it("declares resources.subscribe and issues a session id on initialize", async () => {
    const { client, session, close } = await team();
    expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    expect(session).toMatch(/^engram-[0-9a-f-]{36}$/);
    await close();
  });

  it("notifies an entity's subscriber of another teammate's write to it, and not of a write to another entity", async () => {
    const { client, writer, updated, close } = await team();
    await client.subscribeResource({ uri: "memory://entity/Plan" });
    await writer.call("add_observations", { observations: [{ entityName: "Budget", contents: ["unrelated"] }] });
    await writer.call("add_observations", { observations: [{ entityName: "Plan", contents: ["needs a designer"] }] });
    await waitFor(() => updated.length > 0, 2000, "the notification");
    // Each commit is sent as it commits, in order: Budget's write, first, sent nothing.
    expect(updated).toEqual(["memory://entity/Plan"]);
    await close();
  });

  it("notifies the brief's subscriber of any change, and stops after resources/unsubscribe", async () => {
    const { ctx, client, writer, updated, close } = await team();
    await client.subscribeResource({ uri: "memory://brief" });
    await client.subscribeResource({ uri: "memory://entity/Plan" });
    await writer.call("create_entities", { entities: [{ name: "Hiring", entityType: "project", observations: [] }] });
    await waitFor(() => updated.length > 0, 2000, "the brief's notification");
    expect(updated).toEqual(["memory://brief"]);

    await client.unsubscribeResource({ uri: "memory://entity/Plan" });
    expect(await subscriptionRows(ctx)).toEqual(["memory://brief"]);
    await writer.call("add_observations", { observations: [{ entityName: "Plan", contents: ["after unsubscribe"] }] });
    // The brief hears of the same commit, in the same message the entity's URI would have been in.
    await waitFor(() => updated.length > 1, 2000, "the second brief notification");
    expect(updated).toEqual(["memory://brief", "memory://brief"]);
    await close();
  });

  it("notifies a file's and a document's subscribers of writes to them", async () => {
    const { client, writer, updated, close } = await team();
    await writer.call("create", { path: "notes/a.md", file_text: "one\n" });
    await writer.call("update_document", { content: "# Root\n\n[[plan]]\n" });
    await client.subscribeResource({ uri: "memory://file/notes/a.md" });
    await client.subscribeResource({ uri: "memory://doc/plan" });
    await writer.call("str_replace", { path: "notes/a.md", old_str: "one", new_str: "two" });
    await writer.call("update_document", { id: "plan", content: "# Plan\n\nrevised\n" });
    await waitFor(() => updated.length > 1, 2000, "both notifications");
    expect(updated).toEqual(["memory://file/notes/a.md", "memory://doc/plan"]);
    await close();
  });

  it("refuses an unknown URI or a missing item with an actionable error and subscribes to nothing", async () => {
    const { ctx, client, close } = await team();
    await expect(client.subscribeResource({ uri: "memory://nope" })).rejects.toThrow(
      /Unknown resource URI "memory:\/\/nope": subscribe to one of memory:\/\/brief, memory:\/\/entity\/\{name\}/,
    );
    await expect(client.subscribeResource({ uri: "https://example.com/x" })).rejects.toThrow(/Unknown resource URI/);
    await expect(client.subscribeResource({ uri: "memory://entity/Nobody" })).rejects.toThrow(
      /Resource not found: memory:\/\/entity\/Nobody \(no entity "Nobody" in this context; subscribe to memory:\/\/brief to hear of new items\)/,
    );
    expect(await subscriptionRows(ctx)).toEqual([]);
    await close();
  });

  it("tells a client without a session to initialize one", async () => {
    const ctx = freshContext("subs");
    await createContext(ctx);
    const [alice] = await Promise.all([mint([{ context: ctx, role: "read" }])]);
    const res = await secured(`${BASE}/mcp/${ctx}`, {
      method: "POST",
      headers: { ...bearer((alice as Minted).token), "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "resources/subscribe", params: { uri: "memory://brief" } }),
    });
    const body = (await res.json()) as { error?: { message: string } };
    expect(body.error?.message).toMatch(/resources\/subscribe needs a session: initialize over Streamable HTTP, send the Mcp-Session-Id header/);
    expect(await subscriptionRows(ctx)).toEqual([]);
  });

  it("ends a revoked token's stream: nothing is delivered after the revocation, and its subscriptions go", async () => {
    const { ctx, client, writer, updated, close } = await team();
    await client.subscribeResource({ uri: "memory://brief" });
    const revoked = await readerSubscribed(ctx);
    expect((await api(`/tokens/${revoked.reader.id}`, { method: "DELETE" })).status).toBe(200);
    await writer.call("add_observations", { observations: [{ entityName: "Plan", contents: ["after the revocation"] }] });
    await waitFor(() => updated.length > 0, 2000, "the teammate's notification");
    await waitFor(async () => !(await streamOpen(ctx, revoked.session)), 2000, "the revoked stream to close");
    // Both streams would have been sent the same message together.
    expect(revoked.updated).toEqual([]);
    expect(await subscriptionRows(ctx)).toEqual(["memory://brief"]);
    await revoked.client.close();
    await close();
  });

  it("ends a stream within TOKEN_CACHE_SECONDS of a revocation another isolate served", async () => {
    const { ctx, client, writer, updated, close } = await team();
    await client.subscribeResource({ uri: "memory://brief" });
    const revoked = await readerSubscribed(ctx);
    // Revoked in the Registry alone, as another isolate would: this isolate trusts its lookup for the bound.
    expect((await registryOf(env).revokeToken(revoked.reader.id, "admin")).ok).toBe(true);
    await writer.call("add_observations", { observations: [{ entityName: "Plan", contents: ["within the bound"] }] });
    await waitFor(() => revoked.updated.length > 0, 2000, "the notification within the bound");
    const bound = settings(env).TOKEN_CACHE_SECONDS * 1000;
    tokenCache.now = () => Date.now() + bound;
    await writer.call("add_observations", { observations: [{ entityName: "Plan", contents: ["past the bound"] }] });
    await waitFor(() => updated.length > 1, 2000, "the teammate's second notification");
    await waitFor(async () => !(await streamOpen(ctx, revoked.session)), 2000, "the revoked stream to close");
    expect(revoked.updated).toEqual(["memory://brief", "memory://entity/Plan"]);
    expect(await subscriptionRows(ctx)).toEqual(["memory://brief"]);
    await revoked.client.close();
    await close();
  });

  it("ends an idle stream of a revoked token at its next check, every TOKEN_CACHE_SECONDS", async () => {
    const timers = manualTimers();
    watchTimers.schedule = timers.schedule;
    const ctx = freshContext("subs");
    await createContext(ctx);
    const writer = await connectAs(connectV1, (await mint([{ context: ctx, role: "write" }])).token, `/mcp/${ctx}`);
    await writer.call("create_entities", { entities: [{ name: "Plan", entityType: "project", observations: [] }] });
    const revoked = await readerSubscribed(ctx);
    expect((await api(`/tokens/${revoked.reader.id}`, { method: "DELETE" })).status).toBe(200);
    // Nothing was delivered, so nothing has looked at the token yet.
    expect(await streamOpen(ctx, revoked.session)).toBe(true);
    timers.advance(settings(env).TOKEN_CACHE_SECONDS * 1000);
    await waitFor(async () => !(await streamOpen(ctx, revoked.session)), 2000, "the idle stream to close");
    expect(await subscriptionRows(ctx)).toEqual([]);
    await Promise.all([revoked.client.close(), writer.close()]);
  });

  it("refuses a caller's subscriptions past LIMITS.subscriptionsPerCaller in a context, across made-up sessions, and stores nothing more", async () => {
    const ctx = freshContext("subs");
    await createContext(ctx, { readOnly: true });
    const reader = await mint([{ context: ctx, role: "read" }]);
    const max = LIMITS.subscriptionsPerCaller;
    for (let from = 0; from < max; from += 50) {
      const batch = Array.from({ length: Math.min(50, max - from) }, (_, i) => rawSubscribe(ctx, reader.token, `made-up-${from + i}`));
      for (const answer of await Promise.all(batch)) expect(answer.error).toBeUndefined();
    }
    const refused = await rawSubscribe(ctx, reader.token, "made-up-one-more");
    expect(refused.error?.code).toBe(-32602);
    expect(refused.error?.message).toMatch(new RegExp(`a caller holds at most ${max} subscriptions in a context, across its sessions and listen streams`));
    // Subscribing again to what a session holds adds nothing, so it is still answered.
    expect((await rawSubscribe(ctx, reader.token, "made-up-0")).error).toBeUndefined();
    expect((await subscriptionRows(ctx)).length).toBe(max);
    // Another teammate's subscriptions are their own.
    const other = await mint([{ context: ctx, role: "read" }]);
    expect((await rawSubscribe(ctx, other.token, "made-up-0")).error).toBeUndefined();
  });

  it("closes a stream it never accepted without throwing, and drops nothing", async () => {
    const ctx = freshContext("subs");
    await createContext(ctx);
    await runInDurableObject(stubOf(ctx), (instance) => {
      const [, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
      expect(() => instance.webSocketClose(server, 1000)).not.toThrow();
    });
    expect(await subscriptionRows(ctx)).toEqual([]);
  });
});
