import { describe, expect, it } from "vitest";
import { measureInterleaved, RPC_MS_META as BENCH_RPC_MS_META, registryRate, registryWatch, TIMING_HEADERS, type Sample } from "../../bench/lib/workload.mjs";
import { RPC_MS_META, TIMING_HEADER } from "../../src/mcp/tool";
import { CLIENTS, freshContext, workerFetch, type ToolResult } from "../helpers/clients";
import { registered } from "../helpers/context";

type Timed = ToolResult & { _meta?: Record<string, unknown> };

/** What `npm run bench` reads from the server: the per-call RPC time and the stats route. */
describe.each(CLIENTS)("benchmark support with %s client", (_label, connect) => {
  it(`reports the time of the call to the object in _meta ${RPC_MS_META} when asked by ${TIMING_HEADER}: 1, on success and on failure`, async () => {
    const c = await connect({ url: `http://localhost/mcp/${await registered(freshContext("rpc"))}`, headers: { [TIMING_HEADER]: "1" } });
    const ok = (await c.call("read_graph", { limit: 1, mode: "summary" })) as Timed;
    expect(ok.isError).toBeFalsy();
    expect(typeof ok._meta?.[RPC_MS_META]).toBe("number");
    expect(ok._meta?.[RPC_MS_META]).toBeGreaterThanOrEqual(0);
    const failed = (await c.call("add_observations", { observations: [{ entityName: "missing", contents: ["x"] }] })) as Timed;
    expect(failed.isError).toBe(true);
    expect(typeof failed._meta?.[RPC_MS_META]).toBe("number");
    await c.close();
  });

  it("keeps the RPC time out of answers nobody asked to time", async () => {
    for (const headers of [{}, { [TIMING_HEADER]: "0" }] as Record<string, string>[]) {
      const c = await connect({ url: `http://localhost/mcp/${await registered(freshContext("rpc"))}`, headers });
      const ok = (await c.call("read_graph", { limit: 1, mode: "summary" })) as Timed;
      expect(ok.isError).toBeFalsy();
      expect(ok._meta?.[RPC_MS_META]).toBeUndefined();
      const failed = (await c.call("add_observations", { observations: [{ entityName: "missing", contents: ["x"] }] })) as Timed;
      expect(failed.isError).toBe(true);
      expect(failed._meta?.[RPC_MS_META]).toBeUndefined();
      await c.close();
    }
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

describe("the bench's request headers", () => {
  it("ask for the RPC time under the server's names", () => {
    expect(TIMING_HEADERS).toEqual({ [TIMING_HEADER]: "1" });
    expect(BENCH_RPC_MS_META).toBe(RPC_MS_META);
  });
});

describe("the bench's query loop", () => {
  it("runs one call of each kind in turn, and stops a kind that spent its budget while the others go on", async () => {
    const order: string[] = [];
    const call = (label: string, waitMs: number) => async (): Promise<Sample> => {
      order.push(label);
      const t0 = performance.now();
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
      return { ms: performance.now() - t0 };
    };
    const kinds = {
      fast: Array.from({ length: 10 }, (_, i) => call(`fast${i}`, 0)),
      slow: Array.from({ length: 10 }, (_, i) => call(`slow${i}`, 10)),
    };
    const out = await measureInterleaved(kinds, { budgetMs: 25, minCalls: 2, warmup: 1 });
    // One untimed call of each, then turns: fast, slow, fast, slow... until slow has spent 25 ms.
    expect(order.slice(0, 6)).toEqual(["fast0", "slow0", "fast0", "slow0", "fast1", "slow1"]);
    expect(out.fast.ran).toBe(10);
    expect(out.slow.ran).toBeGreaterThanOrEqual(2);
    expect(out.slow.ran).toBeLessThan(10);
    expect(out.slow.cut).toMatch(/budget was spent/);
    expect(order.filter((l) => l.startsWith("fast")).length).toBe(11);
  });
});

describe("the bench's Registry count", () => {
  it("reads the count between the warm-up and the timed calls", async () => {
    const order: string[] = [];
    const call = (label: string) => async (): Promise<Sample> => {
      order.push(label);
      return { ms: 0 };
    };
    await measureInterleaved(
      { a: [call("a0"), call("a1")] },
      {
        budgetMs: 1000,
        warmup: 1,
        afterWarmup: async () => {
          order.push("count");
        },
      },
    );
    expect(order).toEqual(["a0", "count", "a0", "a1"]);
  });

  it("gives Registry calls per 1,000 tool calls over the tool-call kinds only", () => {
    const measured = { http: { ran: 500 }, ping: { ran: 500 }, trivial: { ran: 200 }, search: { ran: 200 }, open: { ran: 100 }, write: { ran: 300 } };
    expect(registryRate({ calls: 0, restarts: 0 }, measured)).toEqual({ calls: 0, restarts: 0, toolCalls: 800, per1000: 0 });
    expect(registryRate({ calls: 3, restarts: 0 }, measured)).toEqual({ calls: 3, restarts: 0, toolCalls: 800, per1000: 3.8 });
    expect(registryRate(null, measured)).toBeNull();
    expect(registryRate({ calls: 1, restarts: 0 }, { http: { ran: 5 } })).toBeNull();
  });

  it("adds up the counts across a restart of the Registry (a new `since`), and gives none when a read failed", async () => {
    const answers = [
      { calls: 10, since: "a" },
      { calls: 12, since: "a" },
      { calls: 1, since: "b" }, // evicted while idle and started again: its count starts from 0
      { calls: 4, since: "b" },
    ];
    const watch = registryWatch(async () => answers.shift() ?? null);
    for (let i = 0; i < 4; i++) await watch.read();
    expect(watch.count()).toEqual({ calls: 2 + 1 + 3, restarts: 1 });
    await watch.read(); // no answer (403): the count is unknown
    expect(watch.count()).toBeNull();
    expect(registryWatch(async () => null).count()).toBeNull();
  });
});
