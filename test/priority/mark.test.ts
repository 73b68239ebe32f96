/**
 * mark_important through real MCP clients (its validation, its undo), the
 * priority columns surviving a delete and its undo for every kind of item,
 * the stats route's priority fields, and export/import carrying category
 * and mark.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { Db } from "../../src/storage/sql";
import { CLIENTS, freshContext, json, text, workerFetch, type TestClient } from "../helpers/clients";
import { changesOf, exportText, stubOf } from "../helpers/context";

const COLS = "access_count, last_accessed_at, category, important, base_relevance, tier, uses, cluster_size";
type Row = Record<string, SqlStorageValue>;

const rowOf = (ctx: string, table: string, key: string, value: string) =>
  runInDurableObject(stubOf(ctx), (_i: MemoryContext, state) => new Db(state.storage.sql).one<Row>(`SELECT ${COLS} FROM ${table} WHERE ${key} = ?`, value));

async function seed(c: TestClient) {
  await c.call("create_entities", {
    entities: [
      { name: "Alice", entityType: "person", observations: ["prefers tea"] },
      { name: "Bob", entityType: "person", observations: [] },
    ],
  });
  await c.call("create", { path: "notes/plan.md", file_text: "roadmap and milestones" });
  await c.call("update_document", { id: "root", content: "# Root\n\n[[design]]" });
}

describe.each(CLIENTS)("mark_important with %s client", (_label, connect) => {
  const open = (ctx: string) => connect({ url: `http://localhost/mcp/${ctx}` });

  it("is listed in the priority toolset, as a write", async () => {
    const c = await connect({ url: "http://localhost/mcp?tools=priority" });
    const tool = (await c.listTools()).find((t) => t.name === "mark_important");
    expect(tool?.annotations?.readOnlyHint).toBeUndefined(); // MCP's default: it writes
    expect(tool?.annotations).toMatchObject({ destructiveHint: false });
    await c.close();
  });

  it("does what its description says: a marked entity ranks higher in search_nodes (not double)", async () => {
    const c = await open(freshContext("mark"));
    const tool = (await c.listTools()).find((t) => t.name === "mark_important") as { description?: string } | undefined;
    expect(tool?.description).toContain("rank higher in search_nodes");
    expect(tool?.description).not.toContain("double");
    await c.call("create_entities", { entities: ["Twin-a", "Twin-b"].map((name) => ({ name, entityType: "note", observations: ["lighthouse keeper"] })) });
    const order = async () =>
      ((await c.call("search_nodes", { query: "lighthouse", topPerToken: 2 })).structuredContent as { entities: { name: string }[] }).entities.map((e) => e.name);
    expect(await order()).toEqual(["Twin-a", "Twin-b"]);
    await c.call("mark_important", { items: ["entity:Twin-b"], important: true });
    expect(await order()).toEqual(["Twin-b", "Twin-a"]);
    await c.close();
  });

  it("marks entities, files and documents, promotes them, and undo takes the mark back", async () => {
    const ctx = freshContext("mark");
    const c = await open(ctx);
    await seed(c);
    // The web page's call: an entity key.
    const r = await c.call("mark_important", { items: ["entity:Alice", "file:/notes/plan.md", "doc:design"], important: true });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ important: true, changed: ["entity:Alice", "file:notes/plan.md", "doc:design"], unchanged: [] });
    expect(text(r)).toContain("Marked important: entity:Alice, file:notes/plan.md, doc:design.");
    for (const [table, key, value] of [
      ["entities", "name", "Alice"],
      ["files", "path", "notes/plan.md"],
      ["documents", "id", "design"],
    ] as const) {
      expect(await rowOf(ctx, table, key, value)).toMatchObject({ important: 1, tier: "long" });
    }
    const [change] = await changesOf(ctx, { limit: 1 });
    expect(change?.tool).toBe("mark_important");
    expect(change?.summary).toContain("+important entity:Alice");

    const again = await c.call("mark_important", { items: ["entity:Alice"], important: true });
    expect(again.structuredContent).toEqual({ important: true, changed: [], unchanged: ["entity:Alice"] });
    expect((await changesOf(ctx, { limit: 1 }))[0]?.seq).toBe(change?.seq);

    const undone = await c.call("undo");
    expect(undone.isError).toBeFalsy();
    for (const [table, key, value] of [
      ["entities", "name", "Alice"],
      ["files", "path", "notes/plan.md"],
      ["documents", "id", "design"],
    ] as const) {
      expect(await rowOf(ctx, table, key, value)).toMatchObject({ important: 0, tier: "short" });
    }
    // Undoing the undo marks them again.
    expect((await c.call("undo", { change: undone.structuredContent?.change })).isError).toBeFalsy();
    expect(await rowOf(ctx, "entities", "name", "Alice")).toMatchObject({ important: 1, tier: "long" });
    await c.close();
  });

  it("keeps the tier an item earned by use when its mark is undone", async () => {
    const ctx = freshContext("mark");
    const c = await open(ctx);
    await seed(c);
    await c.call("mark_important", { items: ["entity:Bob"], important: true });
    for (let i = 0; i < 5; i++) await c.call("open_nodes", { names: ["Bob"] });
    await c.call("undo");
    expect(await rowOf(ctx, "entities", "name", "Bob")).toMatchObject({ important: 0, tier: "long", access_count: 5 });
    await c.close();
  });

  it("marks the root document of a context that has not used documents yet", async () => {
    const ctx = freshContext("mark");
    const c = await open(ctx);
    const r = await c.call("mark_important", { items: ["doc:root"], important: true });
    expect(r.structuredContent).toEqual({ important: true, changed: ["doc:root"], unchanged: [] });
    expect(await rowOf(ctx, "documents", "id", "root")).toMatchObject({ important: 1, tier: "long" });
    await c.close();
  });

  it("unmarks without demoting", async () => {
    const ctx = freshContext("mark");
    const c = await open(ctx);
    await seed(c);
    await c.call("mark_important", { items: ["entity:Bob"], important: true });
    const r = await c.call("mark_important", { items: ["entity:Bob"], important: false });
    expect(text(r)).toContain("Removed the importance mark from: entity:Bob.");
    expect(await rowOf(ctx, "entities", "name", "Bob")).toMatchObject({ important: 0, tier: "long" });
    await c.close();
  });

  it("rejects malformed keys and missing items, naming each, and changes nothing", async () => {
    const ctx = freshContext("mark");
    const c = await open(ctx);
    await seed(c);
    const before = (await changesOf(ctx)).length;
    const r = await c.call("mark_important", { items: ["entity:Alice", "entity:Nobody", "doc:nope", "Alice", "task:x", "file:../etc"], important: true });
    expect(r.isError).toBe(true);
    const message = text(r);
    expect(message).toContain('not an item key (write entity:<name>, file:<path> or doc:<id>): "Alice", "task:x", "file:../etc"');
    expect(message).toContain('not found: "entity:Nobody", "doc:nope"');
    expect(message).toContain("Nothing was marked.");
    const missingOnly = await c.call("mark_important", { items: ["entity:Alice", "file:notes/none.md"], important: true });
    expect(text(missingOnly)).toContain('Error (NotFound): items: not found: "file:notes/none.md". Nothing was marked.');
    expect(await rowOf(ctx, "entities", "name", "Alice")).toMatchObject({ important: 0, tier: "short" });
    expect((await changesOf(ctx)).length).toBe(before);
    const empty = await c.call("mark_important", { items: [], important: true });
    expect(empty.isError).toBe(true);
    expect(text(empty)).toContain("items must name at least one item");
    await c.close();
  });
});

describe.each(CLIENTS)("priority columns across delete and undo (%s)", (_label, connect) => {
  it("restores a deleted entity, file and document with their category, mark and use", async () => {
    const ctx = freshContext("prdel");
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    await seed(c);
    await c.call("open_nodes", { names: ["Alice"] });
    await c.call("view", { path: "notes/plan.md" });
    await c.call("read_document", { id: "design" });
    await c.call("mark_important", { items: ["entity:Alice", "file:notes/plan.md", "doc:design"], important: true });
    const items = [
      ["entities", "name", "Alice"],
      ["files", "path", "notes/plan.md"],
      ["documents", "id", "design"],
    ] as const;
    const before = await Promise.all(items.map(([t, k, v]) => rowOf(ctx, t, k, v)));
    expect(before[0]).toMatchObject({ category: "personal", important: 1, access_count: 1, tier: "long" });
    expect(before[1]).toMatchObject({ category: "project", important: 1, access_count: 1 });

    await c.call("delete_entities", { entityNames: ["Alice"] });
    await c.call("delete", { path: "notes/plan.md" });
    await c.call("update_document", { id: "root", content: "# Root\n" });
    expect(await Promise.all(items.map(([t, k, v]) => rowOf(ctx, t, k, v)))).toEqual([undefined, undefined, undefined]);
    expect((await c.call("undo", { count: 3 })).isError).toBeFalsy();
    expect(await Promise.all(items.map(([t, k, v]) => rowOf(ctx, t, k, v)))).toEqual(before);
    await c.close();
  });
});

describe("the stats route and export/import", () => {
  it("answers an entity's category, mark, tier and priority", async () => {
    const ctx = freshContext("prst");
    const c = await CLIENTS[1][1]({ url: `http://localhost/mcp/${ctx}` });
    await seed(c);
    await c.call("mark_important", { items: ["entity:Alice"], important: true });
    const res = await workerFetch()(`http://localhost/api/contexts/${ctx}/stats?entity=Alice`);
    const body = (await res.json()) as { entities: Record<string, unknown>[] };
    expect(body.entities[0]).toMatchObject({ name: "Alice", category: "personal", important: true, tier: "long", accessCount: 0 });
    // Never accessed, just created: frequency 1 x personal 2.0 x marked 2.
    expect(body.entities[0]?.priority).toBeCloseTo(4, 2);
    await c.close();
  });

  it("exports a category the classifier would not give and the mark, and an import brings them back", async () => {
    const from = freshContext("prex");
    const c = await CLIENTS[1][1]({ url: `http://localhost/mcp/${from}` });
    await c.call("create_entities", {
      entities: [
        { name: "Alice", entityType: "person", observations: ["prefers tea"] },
        { name: "Kettle", entityType: "thing", observations: ["boils water"], category: "casual" },
      ],
    });
    await c.call("mark_important", { items: ["entity:Alice"], important: true });
    const lines = (await exportText(from))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([
      { type: "entity", name: "Alice", entityType: "person", observations: ["prefers tea"], important: true },
      { type: "entity", name: "Kettle", entityType: "thing", observations: ["boils water"], category: "casual" },
    ]);
    const to = freshContext("prim");
    const res = await workerFetch()(`http://localhost/api/contexts/${to}/import`, {
      method: "POST",
      headers: { "Content-Type": "application/x-ndjson" },
      body: lines.map((l) => JSON.stringify(l)).join("\n"),
    });
    expect(res.status).toBe(200);
    expect(await rowOf(to, "entities", "name", "Alice")).toMatchObject({ category: "personal", important: 1, tier: "long" });
    expect(await rowOf(to, "entities", "name", "Kettle")).toMatchObject({ category: "casual", important: 0, tier: "short" });
    expect(json(await c.call("read_graph")).entities).toHaveLength(2);
    await c.close();
  });
});
