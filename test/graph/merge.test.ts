/**
 * merge_entities and aliases through real MCP clients: what a merge moves,
 * what reads by an old name find, what a create of an old name is told, how
 * export and import carry aliases, and that undo puts everything back.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Db } from "../../src/storage/sql";
import { connectV2, freshContext, json, text, workerFetch, type TestClient } from "../helpers/clients";
import { changesOf, exportText, stubOf } from "../helpers/context";

const ent = (name: string, observations: string[] = [], entityType = "company") => ({ name, entityType, observations });

async function seed(c: TestClient) {
  await c.call("create_entities", {
    entities: [
      ent("ACME Corporation", ["makes anvils", "founded 1920"]),
      ent("Acme Corp", ["makes anvils", "based in Phoenix"]),
      ent("acme"),
      ent("Wile", [], "person"),
      ent("Road Runner", [], "person"),
    ],
  });
  await c.call("create_relations", {
    relations: [
      { from: "Wile", to: "Acme Corp", relationType: "buys from" },
      { from: "Wile", to: "ACME Corporation", relationType: "buys from" },
      { from: "Acme Corp", to: "Road Runner", relationType: "sues" },
      { from: "Acme Corp", to: "ACME Corporation", relationType: "same as" },
      { from: "acme", to: "acme", relationType: "is" },
    ],
  });
}

/** Every row a merge and its undo touch, ids and times included. */
async function rows(ctx: string) {
  return runInDurableObject(stubOf(ctx), (_o, state) => {
    const db = new Db(state.storage.sql);
    return {
      entities: db.all("SELECT * FROM entities ORDER BY id"),
      observations: db.all("SELECT * FROM observations ORDER BY id"),
      relations: db.all("SELECT * FROM relations ORDER BY id"),
      aliases: db.all("SELECT * FROM entity_aliases ORDER BY alias"),
      pairs: db.all("SELECT * FROM covisit_pairs ORDER BY item, other"),
    };
  });
}

describe("merge_entities", () => {
  it("folds sources into the target: observations once, relations rewired, duplicates and self-loops dropped, names kept as aliases", async () => {
    const ctx = freshContext("merge");
    const c = await connectV2({ url: `http://localhost/mcp/${ctx}` });
    await seed(c);
    const r = await c.call("merge_entities", { target: "ACME Corporation", sources: ["Acme Corp", "acme"] });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      target: "ACME Corporation",
      merged: ["Acme Corp", "acme"],
      observationsAdded: 1,
      relationsMoved: 1,
      relationsDropped: 3,
      aliases: ["Acme Corp", "acme"],
    });
    const g = json<{ entities: { name: string; observations: string[] }[]; relations: unknown[] }>(await c.call("read_graph"));
    expect(g.entities.map((e) => e.name)).toEqual(["ACME Corporation", "Wile", "Road Runner"]);
    expect(g.entities[0]?.observations).toEqual(["makes anvils", "founded 1920", "based in Phoenix"]);
    expect(g.relations).toEqual([
      { from: "ACME Corporation", to: "Road Runner", relationType: "sues" },
      { from: "Wile", to: "ACME Corporation", relationType: "buys from" },
    ]);
    // The search index follows: the moved observation finds the target, and the sources are gone from it.
    const hits = async (query: string) => (json<{ entities: { name: string }[] }>(await c.call("search_nodes", { query })).entities ?? []).map((e) => e.name);
    expect(await hits("Phoenix")).toEqual(["ACME Corporation"]);
    await c.call("undo");
    expect(await hits("Phoenix")).toEqual(["Acme Corp"]);
    await c.close();
  });

  it("moves a source's superseded observations to the target with the times they held; undo puts them back on the source", async () => {
    const ctx = freshContext("merge");
    const c = await connectV2({ url: `http://localhost/mcp/${ctx}` });
    await seed(c);
    await c.call("update_observation", { entityName: "Acme Corp", old: "based in Phoenix", new: "based in Tucson" });
    const superseded = async (name: string) =>
      json<{ entities: { superseded?: { text: string; addedAt: string; supersededAt: string }[] }[] }>(
        await c.call("open_nodes", { names: [name], includeSuperseded: true }),
      ).entities[0]?.superseded ?? [];
    const held = await superseded("Acme Corp");
    expect(held.map((o) => o.text)).toEqual(["based in Phoenix"]);
    expect((await c.call("merge_entities", { target: "ACME Corporation", sources: ["Acme Corp"] })).isError).toBeFalsy();
    expect(await superseded("ACME Corporation")).toEqual(held);
    await c.call("undo");
    expect(await superseded("ACME Corporation")).toEqual([]);
    expect(await superseded("Acme Corp")).toEqual(held);
    await c.close();
  });

  it("lets open_nodes and search_nodes reach the target by an old name, saying so, and refuses to create an old name", async () => {
    const ctx = freshContext("merge");
    const c = await connectV2({ url: `http://localhost/mcp/${ctx}` });
    await seed(c);
    await c.call("merge_entities", { target: "ACME Corporation", sources: ["Acme Corp"] });
    const [change] = await changesOf(ctx);
    expect(change).toMatchObject({ tool: "merge_entities" });
    expect(change?.summary).toContain("+alias Acme Corp → ACME Corporation");
    expect(change?.summary).toContain("-entity Acme Corp");
    const opened = await c.call("open_nodes", { names: ["Acme Corp"] });
    expect(opened.structuredContent).toMatchObject({ entities: [{ name: "ACME Corporation" }], aliases: { "Acme Corp": "ACME Corporation" } });
    expect(opened.structuredContent).not.toHaveProperty("notFound");
    const found = await c.call("search_nodes", { query: "acme corp." });
    expect(found.structuredContent).toMatchObject({ aliases: { "Acme Corp": "ACME Corporation" } });
    expect((found.structuredContent as { entities: { name: string }[] }).entities[0]?.name).toBe("ACME Corporation");
    const added = await c.call("add_observations", { observations: [{ entityName: "Acme Corp", contents: ["x"] }] });
    expect(text(added)).toContain('add_observations: "Acme Corp" was merged into "ACME Corporation"; use "ACME Corporation". Nothing was written.');
    const refused = await c.call("create_entities", { entities: [ent("Acme Corp")] });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('"Acme Corp" is an alias of "ACME Corporation"');
    expect(json(await c.call("read_graph")).entities).toHaveLength(4);
    await c.close();
  });

  it("finds the entity by an old name that matches nothing else, without saying nothing matches", async () => {
    const c = await connectV2({ url: `http://localhost/mcp/${freshContext("merge")}` });
    await c.call("create_entities", { entities: [ent("A", ["a1"]), ent("C")] });
    await c.call("merge_entities", { target: "A", sources: ["C"] });
    const found = await c.call("search_nodes", { query: "C" });
    expect(found.structuredContent).toMatchObject({ entities: [{ name: "A" }], aliases: { C: "A" } });
    expect(found.structuredContent).not.toHaveProperty("note");
    const nothing = await c.call("search_nodes", { query: "Ghost" });
    expect(nothing.structuredContent).toMatchObject({ entities: [], note: expect.stringContaining("Nothing in memory matches") });
    await c.close();
  });

  it("points a write naming an old name to the entity it was merged into, not to create_entities, which refuses it", async () => {
    const ctx = freshContext("merge");
    const c = await connectV2({ url: `http://localhost/mcp/${ctx}` });
    await seed(c);
    await c.call("merge_entities", { target: "ACME Corporation", sources: ["Acme Corp"] });
    const before = await rows(ctx);
    const related = await c.call("create_relations", {
      relations: [
        { from: "Wile", to: "Acme Corp", relationType: "likes" },
        { from: "Ghost", to: "Wile", relationType: "haunts" },
      ],
    });
    expect(text(related)).toContain(
      'create_relations: no entity named "Ghost"; create it with create_entities first. "Acme Corp" was merged into "ACME Corporation"; use "ACME Corporation". Nothing was written.',
    );
    const updated = await c.call("update_observation", { entityName: "Acme Corp", old: "makes anvils", new: "makes rockets" });
    expect(updated.isError).toBe(true);
    expect(text(updated)).toContain('"Acme Corp" was merged into "ACME Corporation"; use "ACME Corporation".');
    expect(text(updated)).not.toContain("create_entities");
    expect(await rows(ctx)).toEqual(before);
    await c.close();
  });

  it.each([
    ["an entity into itself", { target: "acme", sources: ["acme"] }, /merged into itself/],
    ["an unknown target", { target: "Nobody", sources: ["acme"] }, /target: no entity named "Nobody"/],
    ["an unknown source", { target: "acme", sources: ["Acme Corp", "Ghost"] }, /sources: no entity named "Ghost"/],
    ["no source", { target: "acme", sources: [] }, /at least one/],
  ])("rejects merging %s and changes nothing", async (_what, args, message) => {
    const ctx = freshContext("merge");
    const c = await connectV2({ url: `http://localhost/mcp/${ctx}` });
    await seed(c);
    const before = await rows(ctx);
    const r = await c.call("merge_entities", args);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(message);
    expect(await rows(ctx)).toEqual(before);
    await c.close();
  });

  it("names the entity a source was already merged into", async () => {
    const ctx = freshContext("merge");
    const c = await connectV2({ url: `http://localhost/mcp/${ctx}` });
    await seed(c);
    await c.call("merge_entities", { target: "ACME Corporation", sources: ["Acme Corp"] });
    const r = await c.call("merge_entities", { target: "acme", sources: ["Acme Corp"] });
    expect(text(r)).toContain('"Acme Corp" (already merged into "ACME Corporation")');
    await c.close();
  });

  it("is undone exactly by undo: every row, statistic, alias and co-visitation count", async () => {
    const ctx = freshContext("merge");
    const c = await connectV2({ url: `http://localhost/mcp/${ctx}` });
    await seed(c);
    // Use and co-visitation on both sides, and a mark.
    await c.call("open_nodes", { names: ["Acme Corp", "Wile"] });
    await c.call("open_nodes", { names: ["ACME Corporation", "Road Runner"] });
    expect((await c.call("mark_important", { items: ["entity:acme"], important: true })).isError).toBeFalsy();
    await c.call("merge_entities", { target: "acme", sources: ["Road Runner"] });
    const before = await rows(ctx);
    expect(before.pairs.length).toBeGreaterThan(0);
    const merged = await c.call("merge_entities", { target: "ACME Corporation", sources: ["Acme Corp", "acme"] });
    const after = await rows(ctx);
    const target = after.entities.find((e) => e.name === "ACME Corporation");
    expect(target).toMatchObject({ important: 1, access_count: 3, tier: "long" });
    expect(after.aliases.map((a) => a.alias)).toEqual(["Acme Corp", "Road Runner", "acme"]);
    expect(after.pairs.some((p) => String(p.item).includes("Acme Corp"))).toBe(false);
    const undone = await c.call("undo", { change: (merged.structuredContent as { change: number }).change });
    expect(undone.isError).toBeFalsy();
    expect(await rows(ctx)).toEqual(before);
    await c.close();
  });

  it("deleting the target deletes its aliases, and undoing the delete brings them back", async () => {
    const ctx = freshContext("merge");
    const c = await connectV2({ url: `http://localhost/mcp/${ctx}` });
    await seed(c);
    await c.call("merge_entities", { target: "ACME Corporation", sources: ["Acme Corp"] });
    const before = await rows(ctx);
    await c.call("delete_entities", { entityNames: ["ACME Corporation"] });
    expect((await rows(ctx)).aliases).toEqual([]);
    expect((await c.call("create_entities", { entities: [ent("Acme Corp")] })).isError).toBeFalsy();
    await c.call("delete_entities", { entityNames: ["Acme Corp"] });
    await c.call("undo", { count: 3 });
    // Undoing a delete restores observations after their entity, which touches its update time (as for any delete).
    const withoutTimes = (r: Awaited<ReturnType<typeof rows>>) => ({ ...r, entities: r.entities.map(({ updated_at: _, ...e }) => e) });
    expect(withoutTimes(await rows(ctx))).toEqual(withoutTimes(before));
    await c.close();
  });

  it("exports aliases as an extra field that an import restores", async () => {
    const ctx = freshContext("merge");
    const c = await connectV2({ url: `http://localhost/mcp/${ctx}` });
    await seed(c);
    await c.call("merge_entities", { target: "ACME Corporation", sources: ["Acme Corp", "acme"] });
    const exported = await exportText(ctx);
    const line = exported.split("\n").find((l) => l.includes('"ACME Corporation"') && l.includes('"type":"entity"'));
    expect(JSON.parse(line ?? "{}")).toMatchObject({ name: "ACME Corporation", aliases: ["Acme Corp", "acme"] });
    const copy = freshContext("merge");
    const res = await workerFetch()(`http://localhost/api/contexts/${copy}/import`, {
      method: "POST",
      headers: { "Content-Type": "application/x-ndjson" },
      body: exported,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ entitiesCreated: 3, rejected: [] });
    expect((await rows(copy)).aliases.map((a) => a.alias)).toEqual(["Acme Corp", "acme"]);
    await c.close();
  });
});
