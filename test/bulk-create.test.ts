/**
 * create_entities writes its batch in multi-row statements (src/graph/writes.ts
 * insertNewEntities); these pin that it means the same as one row at a time.
 */
import { describe, expect, it } from "vitest";
import { connectV2, freshContext, json } from "./helpers/clients";

const entity = (i: number, observations = [`note ${i}`, `shared fact`]) => ({ name: `bulk-${i}`, entityType: "thing", observations });

describe("create_entities in bulk", () => {
  it("skips names repeated in the batch or already stored and keeps an entity's repeated observations once", async () => {
    const c = await connectV2({ url: `http://localhost/mcp/${freshContext("bulk")}` });
    expect(json(await c.call("create_entities", { entities: [entity(0)] }))).toEqual({ entities: [entity(0)] });
    const batch = [entity(0), entity(1, ["a", "b", "a"]), { ...entity(1), entityType: "other" }, entity(2, [])];
    expect(json(await c.call("create_entities", { entities: batch }))).toEqual({
      entities: [entity(1, ["a", "b"]), entity(2, [])],
    });
    expect(json(await c.call("open_nodes", { names: ["bulk-0", "bulk-1", "bulk-2"] }))).toMatchObject({
      entities: [entity(0), entity(1, ["a", "b"]), entity(2, [])],
    });
  });

  it("creates a full batch of 1,000 in input order, searchable and undone as one change", async () => {
    const c = await connectV2({ url: `http://localhost/mcp/${freshContext("bulk")}` });
    const batch = Array.from({ length: 1000 }, (_, i) => entity(i, [`note ${i}`, `shared fact`, `zebra${i}`]));
    const created = json<{ entities: { name: string }[] }>(await c.call("create_entities", { entities: batch }));
    expect(created.entities.map((e) => e.name)).toEqual(batch.map((e) => e.name));
    const page = json<{ entities: { name: string }[] }>(await c.call("read_graph", { mode: "summary", limit: 1000 }));
    expect(page.entities.map((e) => e.name)).toEqual(batch.map((e) => e.name));
    const found = json<{ entities: { name: string }[] }>(await c.call("search_nodes", { query: "zebra777" }));
    expect(found.entities.map((e) => e.name)).toEqual(["bulk-777"]);
    expect((await c.call("undo", {})).isError).toBeFalsy();
    expect(json(await c.call("open_nodes", { names: ["bulk-0", "bulk-999"] }))).toMatchObject({ entities: [] });
  });
});
