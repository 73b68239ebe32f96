/**
 * memory_stats' numbers through a real MCP client, and capacity on the
 * contexts API: validated with errors naming the limit, pushed to the
 * context's object, visible in the stats route.
 */
import { describe, expect, it, vi } from "vitest";
import { connectV2, freshContext, text, workerFetch } from "../helpers/clients";
import { as, unwrap } from "../helpers/context";
import { adminApi, contextWithCapacity, rows, setClock, sql } from "../helpers/priority";

const EVERY = 10 * 60_000;

describe("memory_stats", () => {
  it("counts by tier, category and kind, shows capacity use, and lists the top items by priority", async () => {
    const t0 = Date.now();
    const { name, stub } = await contextWithCapacity({ total: 100, short: 4 }, t0, "stats");
    await setClock(stub, t0);
    unwrap(
      await stub.createEntities(
        ["A", "B", "C", "D", "E"].map((n) => ({ name: n, entityType: "t", observations: [] })),
        as("alice"),
      ),
    );
    unwrap(await stub.createFile("notes/a.md", "hello\n", false, as("alice")));
    const set = [
      ["A", "personal", 0, 0, "short"],
      ["B", "technical", 1, 0, "mid"],
      ["C", "general", 0, 1, "long"],
      ["D", "casual", 3, 0, "mid"],
      ["E", "general", 0, 0, "short"],
    ] as const;
    for (const [n, category, uses, important, tier] of set) {
      await sql(stub, "UPDATE entities SET category = ?, uses = ?, important = ?, tier = ? WHERE name = ?", category, uses, important, tier, n);
    }

    const c = await connectV2({ url: `http://localhost/mcp/${name}` });
    const r = await c.call("memory_stats");
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent as Record<string, unknown>;
    expect(s).toMatchObject({
      total: 6,
      counts: {
        kind: { entity: 5, file: 1, doc: 0 },
        tier: { short: 3, mid: 2, long: 1 },
        // The file is casual: the keyword classifier reads "hello" (src/items/classify.ts).
        category: { personal: 1, technical: 1, project: 0, casual: 2, general: 2 },
      },
      limits: [
        { limit: "total", max: 100, used: 6, percent: 6, near: false },
        { limit: "short", max: 4, used: 3, percent: 75, near: false },
      ],
      archived: 0,
      lastEvaluation: null,
      nextEvaluation: new Date(t0 + EVERY).toISOString(),
    });
    // New items: priority = (1 + uses) x category weight x 2 if marked; ties by key.
    expect(s.top).toEqual([
      { item: "entity:D", priority: 4 },
      { item: "entity:B", priority: 3.6 },
      { item: "entity:A", priority: 2 },
      { item: "entity:C", priority: 2 },
      { item: "entity:E", priority: 1 },
      { item: "file:notes/a.md", priority: 1 },
    ]);
    expect(text(r)).toContain("entity:C 2 (long, general, 0 accesses, important)");
    expect(text(r)).toContain("Capacity: total 6/100 (6%), short 3/4 (75%)");
    // Reading the numbers is not an access.
    expect(await rows(stub, "SELECT SUM(access_count) AS n FROM entities")).toEqual([{ n: 0 }]);

    const tools = await c.listTools();
    expect(tools.find((t) => t.name === "memory_stats")?.annotations).toMatchObject({ readOnlyHint: true });
    const restore = tools.find((t) => t.name === "restore")?.annotations;
    expect([restore?.readOnlyHint, restore?.destructiveHint]).toEqual([undefined, false]); // writes (MCP's default), adds back
    await c.close();
  });

  it("counts one item and one access in the singular", async () => {
    const { name, stub } = await contextWithCapacity(null, Date.now(), "stats");
    unwrap(await stub.createEntities([{ name: "Solo", entityType: "t", observations: [] }], as("alice")));
    await sql(stub, "UPDATE entities SET access_count = 1 WHERE name = ?", "Solo");
    const c = await connectV2({ url: `http://localhost/mcp/${name}` });
    const shown = text(await c.call("memory_stats"));
    expect(shown).toMatch(/^1 item \(/);
    expect(shown).toContain("entity:Solo 1 (short, general, 1 access)");
    expect(shown).not.toMatch(/\b1 (items|accesses)\b/);
    await c.close();
  });

  it("says when no capacity is set", async () => {
    const { name } = await contextWithCapacity(null, Date.now(), "stats");
    const c = await connectV2({ url: `http://localhost/mcp/${name}` });
    const r = await c.call("memory_stats");
    expect(r.structuredContent).toMatchObject({ limits: [], nextEvaluation: null, total: 0, archived: 0, lastEvaluation: null });
    expect(text(r)).toContain("Capacity: none set");
    await c.close();
  });
});

describe("capacity on the contexts API", () => {
  it.each([
    [{ total: 0 }, "capacity.total: must be at least 1"],
    [{ short: 2.5 }, "capacity.short: must be a whole number"],
    [{ total: "100" }, "capacity.total: must be a whole number"],
    [{ maxEntities: 10 }, "capacity: unknown limit maxEntities; the limits are total, short, mid, long"],
    ["lots", "capacity: must be an object"],
  ])("rejects %j, naming the limit, and registers nothing", async (capacity, message) => {
    const name = freshContext("cap");
    const res = await adminApi("/contexts", "POST", { name, capacity });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain(message);
    const listed = (await (await adminApi("/contexts")).json()) as { contexts: { name: string }[] };
    expect(listed.contexts.map((x) => x.name)).not.toContain(name);
  });

  it("pushes a valid capacity to the context, keeps it on a rejected update, and shows it in the stats route", async () => {
    const t0 = Date.now();
    const { name, stub } = await contextWithCapacity({ total: 500 }, t0, "cap");
    const bad = await adminApi(`/contexts/${name}`, "PATCH", { capacity: { long: -1 } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toBe("capacity.long: must be at least 1");
    expect(await rows(stub, "SELECT value FROM priority_state WHERE key = 'capacity'")).toEqual([{ value: JSON.stringify({ total: 500 }) }]);

    const good = await adminApi(`/contexts/${name}`, "PATCH", { capacity: { total: 1000, long: 200 } });
    expect(good.status).toBe(200);
    expect(await rows(stub, "SELECT value FROM priority_state WHERE key = 'capacity'")).toEqual([{ value: JSON.stringify({ total: 1000, long: 200 }) }]);

    const stats = (await (await adminApi(`/contexts/${name}/stats`)).json()) as Record<string, Record<string, unknown>>;
    expect(stats.context?.capacity).toEqual({ total: 1000, long: 200 });
    expect(stats.priority).toMatchObject({
      capacity: { total: 1000, long: 200 },
      limits: [
        { limit: "total", max: 1000, used: 0, near: false },
        { limit: "long", max: 200, used: 0, near: false },
      ],
      archive: { items: 0 },
      nextEvaluation: t0 + EVERY,
    });

    expect((await adminApi(`/contexts/${name}`, "PATCH", { capacity: null })).status).toBe(200);
    expect(await rows(stub, "SELECT key FROM priority_state")).toEqual([]);
  });

  it("changes the Registry only after the object took the capacity, so a failed push leaves both as they were", async () => {
    const { name, stub } = await contextWithCapacity({ total: 500 }, Date.now(), "cap");
    const registered = async (n: string) =>
      ((await (await adminApi("/contexts?removed=true")).json()) as { contexts: { name: string; capacity: unknown }[] }).contexts.find((x) => x.name === n);
    // The context objects are out of reach (a call to one rejects, as a broken or unreachable object's does): the push fails.
    const unreachable = { getByName: () => ({ setCapacity: () => Promise.reject(new Error("object unreachable")) }) } as unknown as Env["MEMORY"];
    const f = workerFetch({ MEMORY: unreachable });
    const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { "Content-Type": "application/json" } });
    // The Worker answers 500 without details and logs the failure with its path: that log is part of what is checked here.
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const patched = await f(`http://localhost/api/contexts/${name}`, { method: "PATCH", ...json({ capacity: { total: 5 } }) });
      expect(patched.status).toBe(500);
      expect(await patched.json()).toEqual({ error: "internal_error", message: "Internal server error." });
      const fresh = freshContext("cap");
      expect((await f("http://localhost/api/contexts", { method: "POST", ...json({ name: fresh, capacity: { total: 5 } }) })).status).toBe(500);
      expect(logged.mock.calls.map((args) => JSON.parse(String(args[0])) as Record<string, unknown>)).toEqual([
        expect.objectContaining({ event: "unhandled", path: `/api/contexts/${name}`, error: "Error: object unreachable" }),
        expect.objectContaining({ event: "unhandled", path: "/api/contexts", error: "Error: object unreachable" }),
      ]);
      expect(await registered(fresh)).toBeUndefined();
    } finally {
      logged.mockRestore();
    }
    expect((await registered(name))?.capacity).toEqual({ total: 500 });
    expect(await rows(stub, "SELECT value FROM priority_state WHERE key = 'capacity'")).toEqual([{ value: JSON.stringify({ total: 500 }) }]);
  });

  it("does not touch a registered context's object when creating it again is a conflict", async () => {
    const { name, stub } = await contextWithCapacity({ total: 500 }, Date.now(), "cap");
    expect((await adminApi("/contexts", "POST", { name, capacity: { total: 5 } })).status).toBe(409);
    expect(await rows(stub, "SELECT value FROM priority_state WHERE key = 'capacity'")).toEqual([{ value: JSON.stringify({ total: 500 }) }]);
    expect((await adminApi("/contexts/nope-not-here", "PATCH", { capacity: { total: 5 } })).status).toBe(404);
  });

  it("takes capacity {} as no capacity, in the Registry and the object alike", async () => {
    const { name, stub } = await contextWithCapacity({ total: 500 }, Date.now(), "cap");
    const patched = await adminApi(`/contexts/${name}`, "PATCH", { capacity: {} });
    expect(((await patched.json()) as { capacity: unknown }).capacity).toBeNull();
    expect(await rows(stub, "SELECT key FROM priority_state WHERE key = 'capacity'")).toEqual([]);
    const fresh = freshContext("cap");
    const created = await adminApi("/contexts", "POST", { name: fresh, capacity: {} });
    expect(created.status).toBe(201);
    expect(((await created.json()) as { capacity: unknown }).capacity).toBeNull();
    const stats = (await (await adminApi(`/contexts/${name}/stats`)).json()) as Record<string, Record<string, unknown>>;
    expect(stats.context?.capacity).toBeNull();
    expect(stats.priority?.capacity).toBeNull();
  });
});
