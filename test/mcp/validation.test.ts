import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/limits";
import { CLIENTS, freshContext, json, type TestClient } from "../helpers/clients";

const ent = (name: string, observations: string[] = []) => ({ name, entityType: "thing", observations });

async function graphOf(c: TestClient) {
  return json(await c.call("read_graph"));
}

describe.each(CLIENTS)("bad input (%s)", (_label, connect) => {
  const cases: [string, string, Record<string, unknown>, string][] = [
    ["an empty entity name", "create_entities", { entities: [ent("")] }, "must not be empty"],
    ["a blank entity name", "create_entities", { entities: [ent("   ")] }, "must not be blank"],
    ["a control character in a name", "create_entities", { entities: [ent("a\u0007b")] }, "control characters"],
    ["a name over the limit", "create_entities", { entities: [ent("x".repeat(LIMITS.entityName + 1))] }, `at most ${LIMITS.entityName}`],
    [
      "an entityType over the limit",
      "create_entities",
      { entities: [{ name: "a", entityType: "t".repeat(LIMITS.entityType + 1), observations: [] }] },
      `at most ${LIMITS.entityType}`,
    ],
    ["an observation over 16 KB", "create_entities", { entities: [ent("a", ["x".repeat(LIMITS.observationBytes + 1)])] }, `${LIMITS.observationBytes} bytes`],
    [
      "a batch over the limit",
      "create_entities",
      { entities: Array.from({ length: LIMITS.batchItems + 1 }, (_, i) => ent(`e${i}`)) },
      `at most ${LIMITS.batchItems}`,
    ],
    ["a wrong type", "create_entities", { entities: [{ name: 5, entityType: "t", observations: [] }] }, "name"],
    ["a missing field", "create_relations", { relations: [{ from: "a", to: "b" }] }, "relationType"],
    ["an invalid context name", "read_graph", { context: "Bad Name!" }, "context must match"],
    ["a read_graph limit over the page size", "read_graph", { limit: LIMITS.readGraphPageEntities + 1 }, "limit"],
    ["a forged cursor", "read_graph", { cursor: "not-a-cursor" }, "cursor"],
  ];

  it.each(cases)("rejects %s with a clear error naming the context, and writes nothing", async (_what, tool, args, message) => {
    const context = freshContext("bad");
    const c = await connect({ url: `http://localhost/mcp/${context}` });
    await c.call("create_entities", { entities: [ent("keep", ["kept"])] });
    const before = await graphOf(c);
    const r = await c.call(tool, args);
    expect(r.isError).toBe(true);
    expect(r.content.map((x) => x.text).join(" ")).toContain(message);
    expect(r.content.at(-1)?.text).toBe(`[context: ${context}]`);
    expect(r.content.map((x) => x.text).join(" ")).not.toMatch(/at .*\.(ts|js):\d+/);
    expect(await graphOf(c)).toEqual(before);
    await c.close();
  });

  it("rejects a whole batch when one relation names a missing entity", async () => {
    const c = await connect({ url: `http://localhost/mcp/${freshContext("bad")}` });
    await c.call("create_entities", { entities: [ent("a"), ent("b")] });
    const r = await c.call("create_relations", {
      relations: [
        { from: "a", to: "b", relationType: "ok" },
        { from: "a", to: "missing-1", relationType: "x" },
        { from: "missing-2", to: "b", relationType: "y" },
      ],
    });
    expect(r.isError).toBe(true);
    expect(r.content[0]?.text).toContain('"missing-1", "missing-2"');
    expect(json(await c.call("read_graph"))).toMatchObject({ relations: [] });
    await c.close();
  });

  it("rejects add_observations naming a missing entity and adds nothing to the others", async () => {
    const c = await connect({ url: `http://localhost/mcp/${freshContext("bad")}` });
    await c.call("create_entities", { entities: [ent("a", ["one"])] });
    const r = await c.call("add_observations", {
      observations: [
        { entityName: "a", contents: ["two"] },
        { entityName: "ghost", contents: ["boo"] },
      ],
    });
    expect(r.isError).toBe(true);
    expect(r.content[0]?.text).toContain('"ghost"');
    expect(json(await c.call("open_nodes", { names: ["a"] }))).toMatchObject({ entities: [ent("a", ["one"])] });
    await c.close();
  });

  it("reports names that were not found instead of skipping them silently", async () => {
    const c = await connect({ url: `http://localhost/mcp/${freshContext("bad")}` });
    await c.call("create_entities", { entities: [ent("a")] });
    const del = await c.call("delete_entities", { entityNames: ["a", "nope"] });
    expect(del.structuredContent?.message).toContain('Not found (nothing to delete): "nope"');
    const open = await c.call("open_nodes", { names: ["nope"] });
    expect(open.structuredContent).toMatchObject({ entities: [], notFound: ["nope"] });
    await c.close();
  });

  it("refuses an unknown argument name, naming it and the ones the tool takes, and changes nothing", async () => {
    const context = freshContext("bad");
    const c = await connect({ url: `http://localhost/mcp/${context}` });
    await c.call("create_entities", { entities: [ent("First")] });
    await c.call("create_entities", { entities: [ent("Second")] });
    const before = await graphOf(c);
    const undo = await c.call("undo", { chnage: 1 });
    expect(undo.isError).toBe(true);
    expect(undo.content[0]?.text).toBe('Error (Invalid): arguments for undo: unknown argument "chnage"; undo takes: change, count, context');
    expect(undo.content.at(-1)?.text).toBe(`[context: ${context}]`);
    const del = await c.call("delete_entities", { entityNames: ["First"], dryRun: true, why: "x" });
    expect(del.isError).toBe(true);
    expect(del.content[0]?.text).toContain('unknown arguments "dryRun", "why"; delete_entities takes: entityNames, context');
    expect(await graphOf(c)).toEqual(before);
    const list = await c.call("list_contexts", { context });
    expect(list.content[0]?.text).toBe('Error (Invalid): arguments for list_contexts: unknown argument "context"; list_contexts takes no arguments');
    // Many or long unknown names are quoted in part, so the refusal stays short.
    const flood = Object.fromEntries([...Array(40).keys()].map((i) => [`${"k".repeat(1_000)}${i}`, 1]));
    const flooded = await c.call("undo", flood);
    expect(flooded.content[0]?.text).toMatch(
      /^Error \(Invalid\): arguments for undo: unknown arguments "k{60}…", .* and 35 more; undo takes: change, count, context$/,
    );
    expect(String(flooded.content[0]?.text).length).toBeLessThan(600);
    expect(await graphOf(c)).toEqual(before);
    // A whole number out of range gets one message, with the range.
    const huge = await c.call("search_nodes", { query: "First", limit: 1e16 });
    expect(huge.content[0]?.text).toBe("Error (Invalid): arguments for search_nodes: limit: limit must be a whole number from 1 to 200");
    await c.close();
  });

  it("answers an unknown tool with an error and keeps serving", async () => {
    const c = await connect({ url: `http://localhost/mcp/${freshContext("bad")}` });
    const outcome = await c.call("no_such_tool", {}).then(
      (r) => r.isError === true && JSON.stringify(r).includes("no_such_tool"),
      (e: Error) => e.message.includes("no_such_tool"),
    );
    expect(outcome).toBe(true);
    expect((await c.listTools()).length).toBeGreaterThan(0);
    await c.close();
  });
});
