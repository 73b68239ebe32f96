import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Db } from "../../src/storage/sql";
import { PART_CHARS } from "../../src/history/recorder";
import { LIMITS } from "../../src/limits";
import { CLIENTS, freshContext, json, text, type TestClient } from "../helpers/clients";
import { as, changesOf, exportText, stubOf, unwrap } from "../helpers/context";

const ent = (name: string, observations: string[] = []) => ({ name, entityType: "person", observations });

/** The graph in order (read_graph keeps insertion order), so an undo must put rows back where they were. */
const graph = async (c: TestClient) => json(await c.call("read_graph"));

async function seed(c: TestClient) {
  await c.call("create_entities", { entities: [ent("Alice", ["likes tea", "plays go"]), ent("Bob", ["b1"]), ent("Carol")] });
  await c.call("create_relations", {
    relations: [
      { from: "Alice", to: "Bob", relationType: "knows" },
      { from: "Carol", to: "Alice", relationType: "manages" },
      { from: "Bob", to: "Carol", relationType: "knows" },
    ],
  });
}

describe.each(CLIENTS)("undo with %s client", (_label, connect) => {
  const writes: [string, Record<string, unknown>][] = [
    ["create_entities", { entities: [ent("Dave", ["new"]), ent("Eve")] }],
    ["create_relations", { relations: [{ from: "Bob", to: "Alice", relationType: "likes" }] }],
    ["add_observations", { observations: [{ entityName: "Alice", contents: ["third", "fourth"] }] }],
    ["delete_observations", { deletions: [{ entityName: "Alice", observations: ["likes tea"] }] }],
    ["delete_relations", { relations: [{ from: "Carol", to: "Alice", relationType: "manages" }] }],
    ["delete_entities", { entityNames: ["Alice", "Bob"] }],
  ];

  it.each(writes)("takes back %s and restores the graph exactly, in order", async (tool, args) => {
    const c = await connect({ url: `http://localhost/mcp/${freshContext("undo")}` });
    await seed(c);
    const before = await graph(c);
    expect((await c.call(tool, args)).isError).toBeFalsy();
    expect(await graph(c)).not.toEqual(before);
    const r = await c.call("undo");
    expect(r.isError).toBeFalsy();
    expect(text(r)).toMatch(new RegExp(`^Undid #\\d+ \\(${tool}: .+\\) as change #\\d+\\. To take this back: undo\\{change: \\d+\\}\\.`));
    expect(await graph(c)).toEqual(before);
    await c.close();
  });

  it("records an undo as a change, and undoing that undo brings the change back", async () => {
    const ctx = freshContext("undo");
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    await seed(c);
    await c.call("delete_entities", { entityNames: ["Alice"] });
    const afterDelete = await graph(c);
    const undone = (await c.call("undo")).structuredContent as { change: number; undone: { seq: number }[] };
    const [del] = undone.undone;
    expect((await changesOf(ctx))[0]).toMatchObject({ seq: undone.change, tool: "undo", undoes: [del?.seq] });
    expect((await changesOf(ctx)).find((x) => x.seq === del?.seq)?.undoneBy).toBe(undone.change);

    const redo = await c.call("undo", { change: undone.change });
    expect(redo.isError).toBeFalsy();
    expect(await graph(c)).toEqual(afterDelete);
    const history = await changesOf(ctx);
    expect(history.find((x) => x.seq === del?.seq)?.undoneBy).toBeUndefined();
    expect(history.find((x) => x.seq === undone.change)?.undoneBy).toBe(history[0]?.seq);
    expect(text(await c.call("memory_history", { limit: 3 }))).toContain(`[undone by #${history[0]?.seq}]`);
    await c.close();
  });

  it("undoes the caller's last changes one after another, and count at once", async () => {
    const c = await connect({ url: `http://localhost/mcp/${freshContext("undo")}` });
    await c.call("create_entities", { entities: [ent("A")] });
    const s1 = await graph(c);
    await c.call("add_observations", { observations: [{ entityName: "A", contents: ["1"] }] });
    const s2 = await graph(c);
    await c.call("add_observations", { observations: [{ entityName: "A", contents: ["2"] }] });
    await c.call("add_observations", { observations: [{ entityName: "A", contents: ["3"] }] });
    await c.call("undo");
    await c.call("undo");
    expect(await graph(c)).toEqual(s2);
    const r = (await c.call("undo", { count: 2 })).structuredContent as { undone: { tool: string }[] };
    expect(r.undone.map((u) => u.tool)).toEqual(["create_entities", "add_observations"]);
    expect(await graph(c)).toEqual({ entities: [], relations: [] });
    expect(s1).not.toEqual(s2);
    const none = await c.call("undo");
    expect(none.isError).toBe(true);
    expect(text(none)).toContain(
      'Nothing of yours to undo: "local" has no change in effect in this context. memory_history lists changes; undo{change} undoes a given one.',
    );
    await c.close();
  });

  it("undoes a given change together with the caller's later changes to the same items only", async () => {
    const c = await connect({ url: `http://localhost/mcp/${freshContext("undo")}` });
    await c.call("create_entities", { entities: [ent("A")] });
    const first = ((await c.call("memory_history", { limit: 1 })).structuredContent as { changes: { seq: number }[] }).changes[0]?.seq;
    await c.call("create_entities", { entities: [ent("B")] });
    await c.call("add_observations", { observations: [{ entityName: "A", contents: ["on A"] }] });
    await c.call("add_observations", { observations: [{ entityName: "B", contents: ["on B"] }] });
    const r = await c.call("undo", { change: first });
    expect((r.structuredContent as { undone: { summary: string }[] }).undone.map((u) => u.summary)).toEqual(["+entity A", "+obs A"]);
    expect(await graph(c)).toEqual({ entities: [{ name: "B", entityType: "person", observations: ["on B"] }], relations: [] });
    await c.close();
  });

  it("rejects change with count, unknown changes and changes already undone, writing nothing", async () => {
    const ctx = freshContext("undo");
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    await c.call("create_entities", { entities: [ent("A")] });
    await c.call("undo");
    const before = await changesOf(ctx);
    const firstSeq = before[1]?.seq;
    for (const [args, message] of [
      [{ change: 1, count: 2 }, "not both"],
      [{ change: 999_999 }, "#999999 is not in history"],
      [{ change: firstSeq }, `already undone by #${before[0]?.seq}`],
      [{ count: 51 }, "count"],
      [{ change: 0 }, "change"],
    ] as const) {
      const r = await c.call("undo", args);
      expect(r.isError).toBe(true);
      expect(text(r)).toContain(message);
    }
    expect(await changesOf(ctx)).toEqual(before);
    await c.close();
  });
});

describe("undo across callers", () => {
  it("refuses to clobber another caller's later change, naming it, and writes nothing", async () => {
    const ctx = freshContext("undo");
    const stub = stubOf(ctx);
    unwrap(await stub.createEntities([ent("Shared", ["base"])], as("alice", "create_entities")));
    unwrap(await stub.addObservations([{ entityName: "Shared", contents: ["bob's"] }], as("bob", "add_observations")));
    const exportBefore = await exportText(ctx, true);

    const refused = await stub.undo({ count: 1 }, as("alice", "undo"));
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.kind).toBe("Conflict");
    expect(refused.message).toMatch(/cannot undo #1: later changes by others .* #2 by bob \(add_observations: \+obs Shared\)/);
    expect(await exportText(ctx, true)).toBe(exportBefore);

    // Once bob takes his change back, alice's undo goes through: the pair nets out.
    unwrap(await stub.undo({}, as("bob", "undo")));
    const done = unwrap(await stub.undo({}, as("alice", "undo")));
    expect(done.undone.map((u) => u.seq)).toEqual([1]);
    expect(await exportText(ctx)).toBe("");
  });

  it("lets anyone undo a change by number while nobody else changed those items since", async () => {
    const ctx = freshContext("undo");
    const stub = stubOf(ctx);
    unwrap(await stub.createEntities([ent("Mine"), ent("Theirs")], as("alice", "create_entities")));
    unwrap(await stub.addObservations([{ entityName: "Theirs", contents: ["x"] }], as("bob", "add_observations")));
    unwrap(await stub.addObservations([{ entityName: "Mine", contents: ["y"] }], as("carol", "add_observations")));
    // Bob's own undo is not blocked by carol's change to another entity.
    expect(unwrap(await stub.undo({}, as("bob", "undo"))).undone.map((u) => u.caller)).toEqual(["bob"]);
    // Alice may revert carol's change by number; her own creation is blocked by it until then.
    expect((await stub.undo({ change: 1 }, as("alice", "undo"))).ok).toBe(false);
    unwrap(await stub.undo({ change: 3 }, as("alice", "undo")));
    unwrap(await stub.undo({ change: 1 }, as("alice", "undo")));
    expect(await exportText(ctx)).toBe("");
  });

  it("restores a deleted entity that a later caller recreated only after that caller's change is undone", async () => {
    const ctx = freshContext("undo");
    const stub = stubOf(ctx);
    unwrap(await stub.createEntities([ent("X", ["old"])], as("alice", "create_entities")));
    unwrap(await stub.deleteEntities(["X"], as("alice", "delete_entities")));
    unwrap(await stub.createEntities([ent("X", ["new"])], as("bob", "create_entities")));
    expect((await stub.undo({}, as("alice", "undo"))).ok).toBe(false);
    unwrap(await stub.undo({}, as("bob", "undo")));
    unwrap(await stub.undo({}, as("alice", "undo")));
    expect(await exportText(ctx)).toBe(`${JSON.stringify({ type: "entity", name: "X", entityType: "person", observations: ["old"] })}\n`);
  });
});

describe("large changes", () => {
  it("splits a large inverse into parts under the row limit and undoes it whole", async () => {
    const ctx = freshContext("undo");
    const stub = stubOf(ctx);
    const big = (i: number) => `${i}:${"x".repeat(LIMITS.observationBytes - 10)}`;
    const contents = Array.from({ length: 40 }, (_, i) => big(i));
    unwrap(await stub.createEntities([ent("Big", contents)], as("alice", "create_entities")));
    const exported = await exportText(ctx);
    unwrap(await stub.deleteEntities(["Big"], as("alice", "delete_entities")));
    const parts = await runInDurableObject(
      stub,
      (_i, state) =>
        new Db(state.storage.sql).all<{ n: number; longest: number }>("SELECT COUNT(*) AS n, MAX(LENGTH(ops)) AS longest FROM change_inverse WHERE seq = 2")[0],
    );
    expect(parts?.n).toBeGreaterThan(1);
    expect(parts?.longest).toBeLessThan(PART_CHARS + LIMITS.observationBytes * 2);
    unwrap(await stub.undo({}, as("alice", "undo")));
    expect(await exportText(ctx)).toBe(exported);
  });
});
