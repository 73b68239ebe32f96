import { describe, expect, it } from "vitest";
import { CLIENTS, freshContext, workerFetch, type ToolResult } from "./helpers/clients";

/** What `npm run bench` reads from the server: the per-call RPC time and the stats route. */
describe.each(CLIENTS)("benchmark support with %s client", (_label, connect) => {
  it("reports the time of the call to the object in _meta engram/rpcMs, on success and on failure", async () => {
    const c = await connect({ url: `http://localhost/mcp/${freshContext("rpc")}` });
    const ok = (await c.call("read_graph", { limit: 1, mode: "summary" })) as ToolResult & { _meta?: Record<string, unknown> };
    expect(ok.isError).toBeFalsy();
    expect(typeof ok._meta?.["engram/rpcMs"]).toBe("number");
    expect(ok._meta?.["engram/rpcMs"]).toBeGreaterThanOrEqual(0);
    const failed = (await c.call("add_observations", { observations: [{ entityName: "missing", contents: ["x"] }] })) as ToolResult & {
      _meta?: Record<string, unknown>;
    };
    expect(failed.isError).toBe(true);
    expect(typeof failed._meta?.["engram/rpcMs"]).toBe("number");
    await c.close();
  });
});

describe("GET /api/contexts/:name/stats", () => {
  it("returns the graph counts and the database size in bytes the benchmark reads", async () => {
    const context = freshContext("stats");
    const [, connect] = CLIENTS[1];
    const c = await connect({ url: `http://localhost/mcp/${context}` });
    await c.call("create_entities", {
      entities: [
        { name: "a", entityType: "t", observations: ["x", "y"] },
        { name: "b", entityType: "t", observations: [] },
      ],
    });
    await c.call("create_relations", { relations: [{ from: "a", to: "b", relationType: "r" }] });
    await c.close();
    const res = await workerFetch()(`http://localhost/api/contexts/${context}/stats`);
    expect(res.status).toBe(200);
    const stats = (await res.json()) as { counts: Record<string, number> };
    expect(stats.counts).toMatchObject({ entities: 2, relations: 1, observations: 2 });
    expect(stats.counts.bytes).toBeGreaterThan(0);
  });

  it("rejects an invalid context name", async () => {
    const res = await workerFetch()("http://localhost/api/contexts/Not_Valid!/stats");
    expect(res.status).toBe(400);
  });
});
