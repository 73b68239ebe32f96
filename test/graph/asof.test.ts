/**
 * Superseded facts (update_observation) and as-of reads (open_nodes,
 * read_graph and search_nodes with asOf), driven through a real MCP client
 * with the object's clock set per step (src/graph/asof.ts).
 */
import { runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { historyHorizon, trimHistory } from "../../src/history";
import { Db } from "../../src/storage/sql";
import { CLIENTS, connectV2, freshContext, json, text, type TestClient } from "../helpers/clients";
import { changesOf, exportText, stubOf } from "../helpers/context";
import { setClock } from "../helpers/priority";

const T0 = Date.parse("2026-03-01T00:00:00Z");
const iso = (t: number) => new Date(t).toISOString();

async function session(prefix = "asof") {
  const name = freshContext(prefix);
  const stub = stubOf(name);
  await setClock(stub, T0);
  const c = await connectV2({ url: `http://localhost/mcp/${name}` });
  /** Calls `tool` with the object's clock at T0 + `minute` minutes; fails the test on an error result. */
  const at = async (minute: number, tool: string, args: Record<string, unknown>) => {
    await setClock(stub, T0 + minute * 60_000);
    const r = await c.call(tool, args);
    if (r.isError) throw new Error(`${tool} failed: ${text(r)}`);
    return r;
  };
  return { name, stub, c, at };
}

const ok = async (c: TestClient, tool: string, args: Record<string, unknown>) => {
  const r = await c.call(tool, args);
  expect(r.isError, text(r)).toBeFalsy();
  return json(r);
};

describe("update_observation", () => {
  it("supersedes an observation, keeps it with its dates, and search no longer finds the old text", async () => {
    const { c, at } = await session();
    await at(0, "create_entities", { entities: [{ name: "Ada", entityType: "person", observations: ["lives in Paris", "likes tea"] }] });
    const r = await at(10, "update_observation", { entityName: "Ada", old: "lives in Paris", new: "lives in Berlin" });
    expect(r.structuredContent).toEqual({ entityName: "Ada", old: "lives in Paris", new: "lives in Berlin", supersededAt: iso(T0 + 600_000) });

    // Without the new arguments: the official shape, only what holds now.
    expect(await ok(c, "open_nodes", { names: ["Ada"] })).toEqual({
      entities: [{ name: "Ada", entityType: "person", observations: ["likes tea", "lives in Berlin"] }],
      relations: [],
    });
    expect(await ok(c, "open_nodes", { names: ["Ada"], includeSuperseded: true })).toEqual({
      entities: [
        {
          name: "Ada",
          entityType: "person",
          observations: ["likes tea", "lives in Berlin"],
          superseded: [{ text: "lives in Paris", addedAt: iso(T0), supersededAt: iso(T0 + 600_000) }],
        },
      ],
      relations: [],
    });
    expect((await ok(c, "search_nodes", { query: "Paris" })).entities).toEqual([]);
    expect((await ok(c, "search_nodes", { query: "Berlin" })).entities).toMatchObject([{ name: "Ada" }]);
    // As of before the update, the old fact held and is found.
    expect((await ok(c, "search_nodes", { query: "Paris", asOf: iso(T0 + 300_000) })).entities).toMatchObject([{ name: "Ada" }]);
    expect((await ok(c, "search_nodes", { query: "Berlin", asOf: iso(T0 + 300_000) })).entities).toEqual([]);
    await c.close();
  });

  it("is one change that undo takes back exactly, and undoing the undo brings it back", async () => {
    const { name, c, at } = await session();
    await at(0, "create_entities", { entities: [{ name: "Ada", entityType: "person", observations: ["lives in Paris", "likes tea"] }] });
    const before = await exportText(name);
    const changes = (await changesOf(name)).length;
    await at(5, "update_observation", { entityName: "Ada", old: "lives in Paris", new: "lives in Berlin" });
    const after = await exportText(name);
    const superseded = await ok(c, "open_nodes", { names: ["Ada"], includeSuperseded: true });
    expect((await changesOf(name)).length).toBe(changes + 1);
    expect((await changesOf(name))[0]).toMatchObject({ tool: "update_observation", summary: expect.stringContaining("~obs Ada") });

    await at(6, "undo", {});
    expect(await exportText(name)).toBe(before);
    expect(await ok(c, "open_nodes", { names: ["Ada"], includeSuperseded: true })).toEqual({
      entities: [{ name: "Ada", entityType: "person", observations: ["lives in Paris", "likes tea"], superseded: [] }],
      relations: [],
    });
    expect((await ok(c, "search_nodes", { query: "Paris" })).entities).toMatchObject([{ name: "Ada" }]);

    const undo = (await changesOf(name))[0];
    await at(7, "undo", { change: undo?.seq });
    expect(await exportText(name)).toBe(after);
    expect(await ok(c, "open_nodes", { names: ["Ada"], includeSuperseded: true })).toEqual(superseded);
    await c.close();
  });

  it("keeps superseded observations through deleting the entity and its undo", async () => {
    const { c, at } = await session();
    await at(0, "create_entities", { entities: [{ name: "Ada", entityType: "person", observations: ["v1"] }] });
    await at(1, "update_observation", { entityName: "Ada", old: "v1", new: "v2" });
    await at(2, "update_observation", { entityName: "Ada", old: "v2", new: "v1" });
    await at(3, "update_observation", { entityName: "Ada", old: "v1", new: "v3" });
    const full = await ok(c, "open_nodes", { names: ["Ada"], includeSuperseded: true });
    expect((full.entities as { superseded: { text: string }[] }[])[0]?.superseded.map((s) => s.text)).toEqual(["v1", "v2", "v1"]);
    await at(4, "delete_entities", { entityNames: ["Ada"] });
    await at(5, "undo", {});
    expect(await ok(c, "open_nodes", { names: ["Ada"], includeSuperseded: true })).toEqual(full);
    await c.close();
  });

  it.each([
    [{ entityName: "Nobody", old: "a", new: "b" }, /NotFound.*"Nobody"/],
    [{ entityName: "Ada", old: "never said", new: "b" }, /NotFound.*not a current observation/],
    [{ entityName: "Ada", old: "lives in Paris", new: "likes tea" }, /Conflict.*already a current observation/],
    [{ entityName: "Ada", old: "likes tea", new: "likes tea" }, /Invalid.*same as old/],
    [{ entityName: "Ada", old: "", new: "x" }, /observation must not be empty/],
  ])("rejects %j with a clear error and changes nothing", async (args, message) => {
    const { name, c, at } = await session();
    await at(0, "create_entities", { entities: [{ name: "Ada", entityType: "person", observations: ["lives in Paris", "likes tea"] }] });
    const before = await exportText(name, true);
    const r = await c.call("update_observation", args);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(message);
    expect(await exportText(name, true)).toBe(before);
    await c.close();
  });

  it("says when old was superseded already", async () => {
    const { c, at } = await session();
    await at(0, "create_entities", { entities: [{ name: "Ada", entityType: "person", observations: ["a"] }] });
    await at(1, "update_observation", { entityName: "Ada", old: "a", new: "b" });
    const r = await c.call("update_observation", { entityName: "Ada", old: "a", new: "c" });
    expect(text(r)).toContain(`it was superseded at ${iso(T0 + 60_000)}`);
    await c.close();
  });
});

describe("as-of reads", () => {
  it("answer as the context stood after each step: create, add, supersede, delete relation, delete entity", async () => {
    const { stub, c, at } = await session();
    await at(10, "create_entities", {
      entities: [
        { name: "Ada", entityType: "person", observations: ["lives in Paris"] },
        { name: "Bob", entityType: "person", observations: ["plays go"] },
      ],
    });
    await at(11, "create_relations", { relations: [{ from: "Ada", to: "Bob", relationType: "knows" }] });
    await at(20, "add_observations", { observations: [{ entityName: "Ada", contents: ["likes tea"] }] });
    await at(30, "update_observation", { entityName: "Ada", old: "lives in Paris", new: "lives in Berlin" });
    await at(40, "delete_relations", { relations: [{ from: "Ada", to: "Bob", relationType: "knows" }] });
    await at(50, "delete_entities", { entityNames: ["Bob"] });
    await setClock(stub, T0 + 60 * 60_000);

    const minute = (m: number) => iso(T0 + m * 60_000);
    const knows = { from: "Ada", to: "Bob", relationType: "knows" };
    const bob = { name: "Bob", entityType: "person", observations: ["plays go"] };
    const ada = (observations: string[]) => ({ name: "Ada", entityType: "person", observations });

    // Before anything existed: empty answers, the names reported missing.
    expect(await ok(c, "open_nodes", { names: ["Ada", "Bob"], asOf: minute(5) })).toEqual({ entities: [], relations: [], notFound: ["Ada", "Bob"] });
    expect(await ok(c, "read_graph", { asOf: T0 })).toEqual({ entities: [], relations: [] });

    expect(await ok(c, "read_graph", { asOf: minute(15) })).toEqual({ entities: [ada(["lives in Paris"]), bob], relations: [knows] });
    expect(await ok(c, "read_graph", { asOf: minute(25) })).toEqual({ entities: [ada(["lives in Paris", "likes tea"]), bob], relations: [knows] });
    expect(await ok(c, "read_graph", { asOf: minute(35) })).toEqual({ entities: [ada(["likes tea", "lives in Berlin"]), bob], relations: [knows] });
    expect(await ok(c, "read_graph", { asOf: minute(45) })).toEqual({ entities: [ada(["likes tea", "lives in Berlin"]), bob], relations: [] });
    expect(await ok(c, "read_graph", { asOf: minute(55) })).toEqual({ entities: [ada(["likes tea", "lives in Berlin"])], relations: [] });
    expect(await ok(c, "read_graph", { asOf: minute(55) })).toEqual(await ok(c, "read_graph", {}));

    // open_nodes of a deleted entity as of when it existed, with its relation then; epoch ms works too.
    expect(await ok(c, "open_nodes", { names: ["Bob"], asOf: T0 + 15 * 60_000 })).toEqual({ entities: [bob], relations: [knows] });
    expect(await ok(c, "open_nodes", { names: ["Bob"], asOf: minute(45) })).toEqual({ entities: [bob], relations: [] });
    expect(await ok(c, "open_nodes", { names: ["Bob"] })).toEqual({ entities: [], relations: [], notFound: ["Bob"] });
    // includeSuperseded as of a time shows only what was superseded by then.
    expect(await ok(c, "open_nodes", { names: ["Ada"], asOf: minute(25), includeSuperseded: true })).toEqual({
      entities: [{ ...ada(["lives in Paris", "likes tea"]), superseded: [] }],
      relations: [knows],
    });

    // search_nodes finds a deleted entity as of when it existed, and the relation between the hits.
    expect((await ok(c, "search_nodes", { query: "go" })).entities).toEqual([]);
    const then = await ok(c, "search_nodes", { query: "go Paris", asOf: minute(15) });
    expect((then.entities as { name: string }[]).map((e) => e.name).sort()).toEqual(["Ada", "Bob"]);
    expect(then.relations).toEqual([knows]);
    await c.close();
  });

  it("pages read_graph as of a time, cursor and asOf together, deleted entities in their old places", async () => {
    const { stub, c, at } = await session();
    const names = ["E1", "E2", "E3", "E4", "E5"];
    await at(0, "create_entities", { entities: names.map((name) => ({ name, entityType: "t", observations: [`about ${name}`] })) });
    await at(1, "create_relations", { relations: [{ from: "E2", to: "E4", relationType: "r" }] });
    await at(2, "delete_entities", { entityNames: ["E2", "E4"] });
    await at(3, "create_entities", { entities: [{ name: "E6", entityType: "t", observations: [] }] });
    await setClock(stub, T0 + 10 * 60_000);
    const asOf = iso(T0 + 90_000);
    const pages: { entities: { name: string }[]; relations: unknown[]; nextCursor?: string }[] = [];
    let cursor: string | undefined;
    do {
      const page = await ok(c, "read_graph", { asOf, limit: 2, ...(cursor ? { cursor } : {}) });
      pages.push(page as (typeof pages)[number]);
      cursor = page.nextCursor as string | undefined;
    } while (cursor !== undefined && pages.length < 10);
    expect(pages.flatMap((p) => p.entities.map((e) => e.name))).toEqual(names);
    expect(pages.flatMap((p) => p.relations)).toEqual([{ from: "E2", to: "E4", relationType: "r" }]);
    expect(pages).toHaveLength(3);
    await c.close();
  });

  it("does not count an as-of read of an entity deleted since as a use of it", async () => {
    const { stub, c, at } = await session();
    await at(0, "create_entities", {
      entities: [
        { name: "Ada", entityType: "person", observations: ["plays go"] },
        { name: "Bob", entityType: "person", observations: ["plays go"] },
      ],
    });
    await at(5, "delete_entities", { entityNames: ["Bob"] });
    const forgotten = () =>
      runInDurableObject(stub, (_i, state) =>
        new Db(state.storage.sql).all(
          "SELECT item FROM covisit_session_items WHERE item = 'entity:Bob' UNION ALL SELECT item FROM covisit_pairs WHERE item = 'entity:Bob'",
        ),
      );
    expect(await forgotten()).toEqual([]);
    expect((await ok(c, "open_nodes", { names: ["Ada", "Bob"], asOf: T0 + 60_000 })).entities).toHaveLength(2);
    expect((await ok(c, "search_nodes", { query: "go", asOf: T0 + 60_000 })).entities).toHaveLength(2);
    expect(await forgotten()).toEqual([]);
    await c.close();
  });

  it("agrees with the graph read at each step over random writes and undos", async () => {
    const names = ["A", "B", "C"];
    const obs = ["x", "y", "z"];
    const step = fc.oneof(
      fc.record({ tool: fc.constant("create_entities"), name: fc.constantFrom(...names), o: fc.constantFrom(...obs) }),
      fc.record({ tool: fc.constant("add_observations"), name: fc.constantFrom(...names), o: fc.constantFrom(...obs) }),
      fc.record({ tool: fc.constant("update_observation"), name: fc.constantFrom(...names), o: fc.constantFrom(...obs), n: fc.constantFrom(...obs) }),
      fc.record({ tool: fc.constant("delete_observations"), name: fc.constantFrom(...names), o: fc.constantFrom(...obs) }),
      fc.record({ tool: fc.constant("create_relations"), name: fc.constantFrom(...names), to: fc.constantFrom(...names) }),
      fc.record({ tool: fc.constant("delete_relations"), name: fc.constantFrom(...names), to: fc.constantFrom(...names) }),
      fc.record({ tool: fc.constant("delete_entities"), name: fc.constantFrom(...names) }),
      fc.record({ tool: fc.constant("undo"), name: fc.constant("") }),
    );
    const args = (s: { tool: string; name: string; o?: string; n?: string; to?: string }): Record<string, unknown> => {
      const rel = { from: s.name, to: s.to, relationType: "r" };
      switch (s.tool) {
        case "create_entities":
          return { entities: [{ name: s.name, entityType: "t", observations: [s.o] }] };
        case "add_observations":
          return { observations: [{ entityName: s.name, contents: [s.o] }] };
        case "update_observation":
          return { entityName: s.name, old: s.o, new: s.n };
        case "delete_observations":
          return { deletions: [{ entityName: s.name, observations: [s.o] }] };
        case "create_relations":
        case "delete_relations":
          return { relations: [rel] };
        case "delete_entities":
          return { entityNames: [s.name] };
        default:
          return {};
      }
    };
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 10 }), async (steps) => {
        const name = freshContext("asofp");
        const stub = stubOf(name);
        const c = await connectV2({ url: `http://localhost/mcp/${name}` });
        const seen: { t: number; graph: unknown; open: unknown }[] = [];
        for (const [i, s] of steps.entries()) {
          const t = T0 + (i + 1) * 1000;
          await setClock(stub, t);
          await c.call(s.tool, args(s)); // many fail on the data (a missing entity): that is a step too
          seen.push({
            t,
            graph: json(await c.call("read_graph")),
            open: json(await c.call("open_nodes", { names, includeSuperseded: true })),
          });
        }
        await setClock(stub, T0 + 3_600_000);
        for (const s of seen) {
          expect(json(await c.call("read_graph", { asOf: s.t }))).toEqual(s.graph);
          expect(json(await c.call("open_nodes", { names, asOf: s.t, includeSuperseded: true }))).toEqual(s.open);
        }
        await c.close();
      }),
      { numRuns: 12 },
    );
  }, 120_000);

  it.each([
    ["in the future", () => iso(T0 + 2 * 3_600_000), /Invalid.*is in the future/],
    ["unparsable", () => "last tuesday", /Invalid.*is not a time/],
    ["an impossible date", () => "2026-02-31T25:00:00Z", /Invalid.*is not a time/],
    ["a fraction of a ms", () => 1.5, /Invalid.*is not a time/],
  ])("refuses an asOf %s with a clear error", async (_what, asOf, message) => {
    const { name, c, at } = await session();
    await at(0, "create_entities", { entities: [{ name: "Ada", entityType: "person", observations: [] }] });
    await setClock(stubOf(name), T0 + 3_600_000);
    for (const [tool, a] of [
      ["open_nodes", { names: ["Ada"] }],
      ["read_graph", {}],
      ["search_nodes", { query: "Ada" }],
    ] as const) {
      const r = await c.call(tool, { ...a, asOf: asOf() });
      expect(r.isError, tool).toBe(true);
      expect(text(r)).toMatch(message);
    }
    await c.close();
  });

  it("refuses an asOf older than what retention kept, and reads back to it", async () => {
    const { stub, c, at } = await session();
    await at(0, "create_entities", { entities: [{ name: "Ada", entityType: "person", observations: [] }] });
    await at(10, "add_observations", { observations: [{ entityName: "Ada", contents: ["later"] }] });
    await at(20, "add_observations", { observations: [{ entityName: "Ada", contents: ["latest"] }] });
    const horizon = await runInDurableObject(stub, (_i, state) => {
      const db = new Db(state.storage.sql);
      trimHistory(db, { maxChanges: 2, maxDays: 365 }, T0 + 30 * 60_000);
      return historyHorizon(db);
    });
    expect(horizon).toBe(T0);
    const r = await c.call("open_nodes", { names: ["Ada"], asOf: T0 - 1 });
    expect(text(r)).toMatch(/Invalid.*trimmed by retention/);
    expect(await ok(c, "open_nodes", { names: ["Ada"], asOf: T0 + 5 * 60_000 })).toEqual({
      entities: [{ name: "Ada", entityType: "person", observations: [] }],
      relations: [],
    });
    await c.close();
  });
});

describe.each(CLIENTS)("asOf past the range of a date (%s)", (_label, connect) => {
  it.each([
    ["the number 8640000000000001", 8640000000000001],
    ['the string "9999999999999999"', "9999999999999999"],
    ['the string "8640000000000001"', "8640000000000001"],
  ])("refuses %s on every as-of read with a clear Invalid error, not an internal one", async (_what, asOf) => {
    const c = await connect({ url: `http://localhost/mcp/${freshContext("asof-range")}` });
    await c.call("create_entities", { entities: [{ name: "Ada", entityType: "person", observations: [] }] });
    for (const [tool, a] of [
      ["read_graph", {}],
      ["open_nodes", { names: ["Ada"] }],
      ["search_nodes", { query: "Ada" }],
    ] as const) {
      const r = await c.call(tool, { ...a, asOf });
      expect(r.isError, tool).toBe(true);
      expect(text(r), tool).toMatch(/Invalid.*asOf: .* is past the latest time a date can hold \(\+275760-09-13T00:00:00\.000Z\)/);
      expect(text(r), tool).not.toMatch(/Internal/i);
    }
    await c.close();
  });
});
