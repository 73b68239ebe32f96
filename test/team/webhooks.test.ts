import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Send } from "../../src/context/webhooks";
import { connectV1, connectV2, freshContext, type TestClient } from "../helpers/clients";
import { withLogs } from "../helpers/logs";
import { stubOf } from "../helpers/context";
import { api, connectAs, createContext, mint, type Minted } from "../helpers/teams";

const SECRET = "a-webhook-secret-of-32-characters";
const HOUR = 3600_000;

interface Received {
  body: string;
  signature: string | null;
}

/** A receiver the object sends to instead of the network: answers with `statuses` in turn (the last one after). */
function receiver(statuses: number[] = [200]) {
  const received: Received[] = [];
  const send: Send = async (request) => {
    received.push({ body: await request.text(), signature: request.headers.get("X-Engram-Signature") });
    const status = statuses[Math.min(received.length - 1, statuses.length - 1)] as number;
    return new Response(null, { status });
  };
  return { received, send };
}

/** The object's clock and sender, replaced; the clock starts far ahead, so no alarm it sets fires by itself during a test. */
async function rig(ctx: string, send: Send) {
  const clock = { at: Date.now() + 10 * 365 * 24 * HOUR };
  await runInDurableObject(stubOf(ctx), (instance) => {
    instance.now = () => clock.at;
    instance.send = send;
  });
  return clock;
}

async function hmac(body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(SECRET), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body)));
  return `sha256=${[...mac].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

async function team() {
  const ctx = freshContext("hook");
  await createContext(ctx);
  const grants = [{ context: ctx, role: "write" as const }];
  const people: Minted[] = await Promise.all([mint(grants), mint(grants), mint(grants)]);
  const clients = (await Promise.all(people.map((p, i) => connectAs(i === 1 ? connectV2 : connectV1, p.token, `/mcp/${ctx}`)))) as [
    TestClient,
    TestClient,
    TestClient,
  ];
  return { ctx, people, clients, close: () => Promise.all(clients.map((c) => c.close())) };
}

const addHook = async (ctx: string, url = "https://hooks.example.com/engram", secret = SECRET, token?: string) =>
  api(`/contexts/${ctx}/webhooks`, { method: "POST", json: { url, secret } }, token);
const listHooks = async (ctx: string) => ((await (await api(`/contexts/${ctx}/webhooks`)).json()) as { webhooks: Record<string, unknown>[] }).webhooks;
const entity = (name: string) => ({ entities: [{ name, entityType: "t", observations: [] }] });

describe("webhooks", () => {
  it("refuses a non-administrator, a URL that is not https to a public host (but for http to loopback), a malformed URL and a short secret, and adds nothing", async () => {
    const { ctx, people, close } = await team();
    expect((await addHook(ctx, undefined, undefined, people[0]?.token)).status).toBe(403);
    // https to a private, loopback or link-local address would let a webhook reach inside the network.
    const internal = ["https://0.0.0.0:9443/", "https://[::ffff:127.0.0.1]:9443/", "https://169.254.169.254/latest", "https://10.0.0.1/x", "https://127.0.0.1/x"];
    for (const url of ["http://hooks.example.com/x", "ftp://example.com/", "not a url", "https://user:pw@example.com/", ...internal]) {
      const res = await addHook(ctx, url);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain("url must be an https URL");
    }
    const short = await addHook(ctx, undefined, "fifteen-chars!!");
    expect(short.status).toBe(400);
    expect(((await short.json()) as { message: string }).message).toBe("secret: secret must be at least 16 characters");
    expect(await listHooks(ctx)).toEqual([]);
    expect((await addHook(freshContext("unregistered"))).status).toBe(404);
    for (const url of ["http://localhost:8787/hook", "http://127.0.0.1/hook", "http://[::1]:9/hook"]) expect((await addHook(ctx, url)).status).toBe(201);
    await close();
  });

  it("POSTs every change, in seq order, signed with the secret, and lists the webhook without its secret", async () => {
    const { ctx, people, clients, close } = await team();
    const { received, send } = receiver();
    await rig(ctx, send);
    const added = await addHook(ctx);
    expect(added.status).toBe(201);
    const { id } = (await added.json()) as { id: string };
    for (const [i, c] of clients.entries()) await c.call("create_entities", entity(`Item ${i}`));
    await stubOf(ctx).deliverWebhooks();

    const bodies = received.map((r) => JSON.parse(r.body) as { seq: number; by: string });
    expect(bodies.map((b) => b.seq)).toEqual([1, 2, 3]);
    expect(bodies[0]).toEqual({ context: ctx, seq: 1, at: expect.any(String), by: people[0]?.name, tool: "create_entities", summary: "+entity Item 0" });
    expect(bodies.map((b) => b.by)).toEqual(people.map((p) => p.name));
    for (const r of received) expect(r.signature).toBe(await hmac(r.body));

    const listed = await listHooks(ctx);
    expect(listed).toEqual([
      expect.objectContaining({ id, url: "https://hooks.example.com/engram", deliveredSeq: 3, pending: 0, lastStatus: "200", failures: 0, failing: false }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(SECRET);

    expect((await api(`/contexts/${ctx}/webhooks/${id}`, { method: "DELETE" })).status).toBe(200);
    expect((await api(`/contexts/${ctx}/webhooks/${id}`, { method: "DELETE" })).status).toBe(404);
    await clients[0].call("create_entities", entity("After"));
    await stubOf(ctx).deliverWebhooks();
    expect(received).toHaveLength(3);
    await close();
  });

  it("retries a change answered 503 with backoff from the alarm, the first retry within 5 s, and keeps the order", async () => {
    const { ctx, clients, close } = await team();
    const { received, send } = receiver([503, 503, 200]);
    const clock = await rig(ctx, send);
    await addHook(ctx);
    const { logged } = await withLogs(async () => {
      await clients[0].call("create_entities", entity("One"));
      await clients[1].call("create_entities", entity("Two"));
      await stubOf(ctx).deliverWebhooks();
      expect(received.map((r) => JSON.parse(r.body).seq)).toEqual([1]);
      const alarm = await runInDurableObject(stubOf(ctx), (_i, state) => state.storage.getAlarm());
      expect(alarm).toBeLessThanOrEqual(clock.at + 5000);
      expect((await listHooks(ctx))[0]).toMatchObject({ lastStatus: "503", failures: 1, pending: 2, failing: false });

      clock.at += 1000;
      expect(await runDurableObjectAlarm(stubOf(ctx))).toBe(true);
      clock.at += 2000;
      expect(await runDurableObjectAlarm(stubOf(ctx))).toBe(true);
    });
    // Each failed attempt is logged once, with the change and the status.
    expect(logged.map((l) => [l.line.event, l.line.seq, l.line.status])).toEqual([
      ["webhook_failed", 1, "503"],
      ["webhook_failed", 1, "503"],
    ]);
    expect(received.map((r) => JSON.parse(r.body).seq)).toEqual([1, 1, 1, 2]);
    expect((await listHooks(ctx))[0]).toMatchObject({ lastStatus: "200", failures: 2, deliveredSeq: 2, pending: 0 });
    await close();
  });

  it("marks a webhook failing after the give-up window and stops delivering to it", async () => {
    const { ctx, clients, close } = await team();
    const { received, send } = receiver([503]);
    const clock = await rig(ctx, send);
    await addHook(ctx);
    const { logged } = await withLogs(async () => {
      await clients[0].call("create_entities", entity("One"));
      await stubOf(ctx).deliverWebhooks();
      clock.at += 24 * HOUR;
      await runDurableObjectAlarm(stubOf(ctx));
    });
    expect(logged.map((l) => [l.line.event, l.line.seq, l.line.status])).toEqual([
      ["webhook_failed", 1, "503"],
      ["webhook_failed", 1, "503"],
    ]);
    const [hook] = await listHooks(ctx);
    expect(hook).toMatchObject({ failing: true, failures: 2, lastStatus: "503", pending: 1 });
    expect(hook).not.toHaveProperty("nextAttemptAt");

    const attempts = received.length;
    await clients[1].call("create_entities", entity("Two"));
    await stubOf(ctx).deliverWebhooks();
    expect(received).toHaveLength(attempts);
    expect((await listHooks(ctx))[0]).toMatchObject({ failing: true, pending: 2 });
    await close();
  });

  it("never holds up a write: a write returns while its delivery hangs", async () => {
    const { ctx, clients, close } = await team();
    let release = () => {};
    const hanging = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = 0;
    await rig(ctx, async () => {
      started++;
      await hanging;
      return new Response(null, { status: 200 });
    });
    await addHook(ctx);
    expect((await clients[0].call("create_entities", entity("One"))).isError).toBeFalsy();
    expect((await clients[1].call("create_entities", entity("Two"))).isError).toBeFalsy();
    expect(started).toBe(1);
    release();
    await stubOf(ctx).deliverWebhooks();
    expect(started).toBe(2);
    expect((await listHooks(ctx))[0]).toMatchObject({ deliveredSeq: 2, pending: 0 });
    await close();
  });
});
