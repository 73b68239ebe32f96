/**
 * create_entities and create_relations write a batch's rows as JSON
 * parameters, many rows per statement (src/graph/writes.ts insertNewEntities,
 * insertNewRelations); these pin that it means the same as one row at a time.
 */
import { describe, expect, it } from "vitest";
import { connectV2, freshContext, json } from "../helpers/clients";
import { exportText } from "../helpers/context";

const entity = (i: number, observations = [`note ${i}`, `shared fact`]) => ({ name: `bulk-${i}`, entityType: "thing", observations });

describe("create_entities in bulk", () => {
  it("skips names repeated in the batch or already stored and keeps an entity's repeated observations once", async () => {
    const c = await connectV2({ url: `http://localhost/mcp/${freshContext("bulk")}` });
    expect(json(await c.call("create_entities", { entities: [entity(0)] }))).toEqual({ entities: [entity(0)] });
    const batch = [entity(0), entity(1, ["a", "b", "a"]), { ...entity(1), entityType: "other" }, entity(2, [])];
    expect(json(await c.call("create_entities", { entities: batch }))).toEqual({
      entities: [entity(1, ["a", "b"]), entity(2, [])],
      note: 'Skipped 2 entities that already exist, and did not add their observations: "bulk-0", "bulk-1". Use add_observations to add observations to an existing entity.',
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

  it("writes a batch larger than one statement's parameter whole: 1,000 entities with 1.5 MB of observations", async () => {
    const c = await connectV2({ url: `http://localhost/mcp/${freshContext("bulk")}` });
    const filler = "x".repeat(1500);
    const batch = Array.from({ length: 1000 }, (_, i) => entity(i, [`${filler} ${i}`]));
    const created = json<{ entities: { name: string }[] }>(await c.call("create_entities", { entities: batch }));
    expect(created.entities).toHaveLength(1000);
    const opened = json<{ entities: { name: string; observations: string[] }[] }>(await c.call("open_nodes", { names: ["bulk-0", "bulk-999"] }));
    expect(opened.entities.map((e) => e.observations)).toEqual([[`${filler} 0`], [`${filler} 999`]]);
  });

  it("creates relations in input order, once each: one repeated in the batch or already stored is skipped", async () => {
    const context = freshContext("bulk");
    const c = await connectV2({ url: `http://localhost/mcp/${context}` });
    await c.call("create_entities", { entities: [entity(0), entity(1), entity(2)] });
    const rel = (from: number, to: number, relationType = "uses") => ({ from: `bulk-${from}`, to: `bulk-${to}`, relationType });
    expect(json(await c.call("create_relations", { relations: [rel(0, 1)] }))).toEqual({ relations: [rel(0, 1)] });
    const batch = [rel(1, 2), rel(0, 1), rel(2, 0), rel(1, 2), rel(0, 1, "owns"), rel(2, 2)];
    expect(json(await c.call("create_relations", { relations: batch }))).toEqual({
      relations: [rel(1, 2), rel(2, 0), rel(0, 1, "owns"), rel(2, 2)],
      note: 'Skipped 2 relations that already exist: "bulk-0 -uses-> bulk-1", "bulk-1 -uses-> bulk-2".',
    });
    // Stored in input order: the export lists relations by id.
    const relations = async () =>
      (await exportText(context))
        .split("\n")
        .filter((line) => line.includes('"type":"relation"'))
        .map((line) => {
          const { from, to, relationType } = JSON.parse(line) as { from: string; to: string; relationType: string };
          return { from, to, relationType };
        });
    expect(await relations()).toEqual([rel(0, 1), rel(1, 2), rel(2, 0), rel(0, 1, "owns"), rel(2, 2)]);
    // One change, undone whole.
    expect((await c.call("undo", {})).isError).toBeFalsy();
    expect(await relations()).toEqual([rel(0, 1)]);
  });
});
