/**
 * Live subscriptions as a deployment runs them: `npm start` with an
 * administrator, one teammate subscribed through the MCP SDK v1 client (a
 * session, its GET stream held by a WebSocket to the context's object), two
 * others writing.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDev, type Dev } from "./harness";

const ADMIN = "e2e-subscriptions-admin-secret-0123456789";
const CONTEXT = "team-live";

let dev: Dev;

beforeAll(async () => {
  dev = await startDev({ ADMIN_TOKEN: ADMIN });
}, 120_000);

afterAll(async () => {
  await dev?.stop();
});

async function adminPost(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${dev.url}/api${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Record<string, unknown>;
}

async function connect(token: string, onStream?: () => void) {
  const client = new Client({ name: "teammate", version: "1" });
  const transport = new StreamableHTTPClientTransport(new URL(`${dev.url}/mcp/${CONTEXT}`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    // The GET stream's answer arrives once the context's object holds its WebSocket.
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      if (init?.method === "GET" && res.ok) onStream?.();
      return res;
    },
  });
  await client.connect(transport);
  return client;
}

/** Resolves once `check` holds; the test's own timeout bounds the wait. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}

describe("live subscriptions through wrangler dev", () => {
  it("notifies a subscriber of other teammates' writes on its GET stream, and stops after unsubscribe", async () => {
    await adminPost("/contexts", { name: CONTEXT });
    const [alice, bob, carol] = await Promise.all(
      ["alice", "bob", "carol"].map((name) => adminPost("/tokens", { name, grants: [{ context: CONTEXT, role: "write" }] })),
    );
    const writerB = await connect(bob?.token as string);
    const writerC = await connect(carol?.token as string);
    await writerB.callTool({ name: "create_entities", arguments: { entities: [{ name: "Plan", entityType: "project", observations: [] }] } });

    let streaming = false;
    const subscriber = await connect(alice?.token as string, () => {
      streaming = true;
    });
    const updated: string[] = [];
    subscriber.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updated.push(n.params.uri);
    });
    expect(subscriber.getServerCapabilities()?.resources?.subscribe).toBe(true);
    await until(() => streaming);
    await subscriber.subscribeResource({ uri: "memory://entity/Plan" });
    await subscriber.subscribeResource({ uri: "memory://brief" });

    await writerC.callTool({ name: "add_observations", arguments: { observations: [{ entityName: "Plan", contents: ["carol's note"] }] } });
    await until(() => updated.length >= 2);
    expect(updated.sort()).toEqual(["memory://brief", "memory://entity/Plan"]);

    await subscriber.unsubscribeResource({ uri: "memory://entity/Plan" });
    await writerB.callTool({ name: "add_observations", arguments: { observations: [{ entityName: "Plan", contents: ["bob's note"] }] } });
    await until(() => updated.length >= 3);
    expect(updated[2]).toBe("memory://brief");
    await expect(subscriber.subscribeResource({ uri: "memory://entity/Nobody" })).rejects.toThrow(/Resource not found/);
    expect(updated).toHaveLength(3);

    await Promise.all([subscriber.close(), writerB.close(), writerC.close()]);
  }, 60_000);
});
