import { describe, expect, it } from "vitest";
import { CLIENTS, connectV2, freshContext, text, workerFetch } from "../helpers/clients";
import { as, changesOf, stubOf, unwrap } from "../helpers/context";

const ent = (name: string, observations: string[] = []) => ({ name, entityType: "person", observations });

describe("change recording", () => {
  it("records one change per write call with caller, session, tool, summary and items", async () => {
    const ctx = freshContext("hist");
    const c = await connectV2({ url: `http://localhost/mcp/${ctx}`, headers: { "Mcp-Memory-Session": "sess-1" } });
    await c.call("create_entities", { entities: [ent("Alice", ["likes tea"]), ent("Bob")] });
    await c.call("create_relations", { relations: [{ from: "Alice", to: "Bob", relationType: "knows" }] });
    await c.call("add_observations", { observations: [{ entityName: "Bob", contents: ["a", "b", "c"] }] });
    await c.call("delete_observations", { deletions: [{ entityName: "Bob", observations: ["a"] }] });
    await c.call("delete_entities", { entityNames: ["Alice"] });
    await c.close();

    const changes = await changesOf(ctx);
    expect(changes.map((x) => [x.tool, x.summary])).toEqual([
      ["delete_entities", "-entity Alice; -obs Alice; -rel Alice -knows-> Bob"],
      ["delete_observations", "-obs Bob"],
      ["add_observations", "+obs Bob ×3"],
      ["create_relations", "+rel Alice -knows-> Bob"],
      ["create_entities", "+entity Alice, Bob"],
    ]);
    expect(changes.every((x) => x.caller === "local" && x.session === "sess-1")).toBe(true);
    const seqs = changes.map((x) => x.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    expect(new Set(seqs).size).toBe(5);
    expect((await changesOf(ctx, { item: "entity:Alice" })).map((x) => x.tool)).toEqual(["delete_entities", "create_relations", "create_entities"]);
  });

  it("records nothing for calls that change nothing or are rejected", async () => {
    const ctx = freshContext("hist");
    const c = await connectV2({ url: `http://localhost/mcp/${ctx}` });
    await c.call("create_entities", { entities: [ent("Alice", ["x"])] });
    const calls: [string, Record<string, unknown>][] = [
      ["create_entities", { entities: [ent("Alice", ["y"])] }],
      ["add_observations", { observations: [{ entityName: "Alice", contents: ["x"] }] }],
      [
        "add_observations",
        {
          observations: [
            { entityName: "Alice", contents: ["new"] },
            { entityName: "Nobody", contents: ["z"] },
          ],
        },
      ],
      ["create_relations", { relations: [{ from: "Alice", to: "Nobody", relationType: "r" }] }],
      ["delete_entities", { entityNames: ["Nobody"] }],
      ["delete_observations", { deletions: [{ entityName: "Alice", observations: ["absent"] }] }],
      ["delete_relations", { relations: [{ from: "Alice", to: "Alice", relationType: "r" }] }],
      ["create_entities", { entities: [{ name: "" }] }],
      ["read_graph", {}],
      ["search_nodes", { query: "Alice" }],
      ["open_nodes", { names: ["Alice"] }],
      ["memory_history", {}],
    ];
    for (const [tool, args] of calls) await c.call(tool, args);
    await c.close();
    expect((await changesOf(ctx)).map((x) => x.tool)).toEqual(["create_entities"]);
  });

  it("records imports as changes by the importing caller", async () => {
    const ctx = freshContext("hist");
    const body = [
      JSON.stringify({ type: "entity", name: "A", entityType: "t", observations: ["o"] }),
      JSON.stringify({ type: "entity", name: "B", entityType: "t", observations: [] }),
      JSON.stringify({ type: "relation", from: "A", to: "B", relationType: "r" }),
    ].join("\n");
    const res = await workerFetch()(`http://localhost/api/contexts/${ctx}/import`, { method: "POST", headers: { "Content-Type": "application/x-ndjson" }, body });
    expect(res.status).toBe(200);
    const [change] = await changesOf(ctx);
    expect(change).toMatchObject({ caller: "local", tool: "api:import", summary: "+entity A, B; +rel A -r-> B" });
  });

  it("keeps summaries short for large batches", async () => {
    const ctx = freshContext("hist");
    await stubOf(ctx).createEntities(
      Array.from({ length: 500 }, (_, i) => ent(`person-${i}`)),
      as("bulk", "create_entities"),
    );
    const [change] = await changesOf(ctx);
    expect(change?.summary).toBe("+entity person-0, person-1, person-2 and 497 more");
    expect((await changesOf(ctx, { item: "entity:person-499" })).length).toBe(1);
  });
});

describe.each(CLIENTS)("memory_history with %s client", (_label, connect) => {
  it("lists compact lines newest first, filtered by item, caller, tool and time, with paging", async () => {
    const ctx = freshContext("hist");
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    await c.call("create_entities", { entities: [ent("Alice"), ent("Bob")] });
    unwrap(await stubOf(ctx).addObservations([{ entityName: "Bob", contents: ["from bob"] }], as("bob", "add_observations")));
    await c.call("add_observations", { observations: [{ entityName: "Alice", contents: ["from local"] }] });

    const all = await c.call("memory_history");
    expect(all.isError).toBeFalsy();
    const lines = text(all).split("\n");
    expect(lines[0]).toMatch(/^#\d+ \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ local add_observations: \+obs Alice$/);
    expect(lines[1]).toMatch(/ bob add_observations: \+obs Bob$/);
    expect(lines[2]).toMatch(/ local create_entities: \+entity Alice, Bob$/);
    expect(lines[3]).toMatch(/^\[context: /);
    expect((all.structuredContent as { changes: unknown[] }).changes).toHaveLength(3);

    const byBob = (await c.call("memory_history", { caller: "bob" })).structuredContent as { changes: { summary: string }[] };
    expect(byBob.changes.map((x) => x.summary)).toEqual(["+obs Bob"]);
    const byItem = (await c.call("memory_history", { item: "entity:Alice" })).structuredContent as { changes: unknown[] };
    expect(byItem.changes).toHaveLength(2);
    // An item of a kind memory has no history for is refused, not answered "No changes match".
    const unknownKind = await c.call("memory_history", { item: "thing:Alice" });
    expect(unknownKind.isError).toBe(true);
    expect(text(unknownKind)).toContain('item must be a key like "entity:Alice", "file:notes/a.md" or "doc:root"');
    const byTool = (await c.call("memory_history", { tool: "add_observations" })).structuredContent as { changes: { summary: string }[] };
    expect(byTool.changes.map((x) => x.summary)).toEqual(["+obs Alice", "+obs Bob"]);
    const byToolAndCaller = (await c.call("memory_history", { tool: "add_observations", caller: "bob" })).structuredContent as { changes: { summary: string }[] };
    expect(byToolAndCaller.changes.map((x) => x.summary)).toEqual(["+obs Bob"]);
    // Exact names only: a prefix matches nothing.
    expect((await c.call("memory_history", { tool: "add" })).structuredContent).toEqual({ changes: [], more: false });
    const future = (await c.call("memory_history", { since: new Date(Date.now() + 3_600_000).toISOString() })).structuredContent;
    expect(future).toEqual({ changes: [], more: false });

    const page1 = await c.call("memory_history", { limit: 2 });
    const p1 = page1.structuredContent as { changes: { seq: number }[]; more: boolean };
    expect(p1.more).toBe(true);
    expect(text(page1)).toContain(`memory_history{before: ${p1.changes[1]?.seq}}`);
    const p2 = (await c.call("memory_history", { limit: 2, before: p1.changes[1]?.seq })).structuredContent as { changes: { seq: number }[]; more: boolean };
    expect(p2).toMatchObject({ more: false, changes: [{ seq: (p1.changes[1]?.seq ?? 0) - 1 }] });
    await c.close();
  });

  it("rejects bad filters with a message naming the field", async () => {
    const c = await connect({ url: `http://localhost/mcp/${freshContext("hist")}` });
    for (const [args, message] of [
      [{ item: "Alice" }, "entity:Alice"],
      [{ since: "yesterday-ish" }, "ISO 8601"],
      [{ limit: 1000 }, "limit"],
    ] as const) {
      const r = await c.call("memory_history", args);
      expect(r.isError).toBe(true);
      expect(text(r)).toContain(message);
    }
    await c.close();
  });
});
