/**
 * Restore when the world moved on since the pruning, through a real MCP
 * client: a relation whose other end was deleted stays in the archive until
 * that end exists again, a document whose parent was deleted comes back
 * under the root, file keys are normalised as mark_important does, and the
 * archive's size is kept per row, not recounted from the payloads.
 */
import { describe, expect, it } from "vitest";
import { text, type TestClient } from "../helpers/clients";
import { changesOf } from "../helpers/context";
import { expectTreeIntact, update } from "../helpers/documents";
import { DAY_MS, onlyPrunableByUse, rows, runAlarmAt, sql, ok, prunableContext } from "../helpers/priority";

const setup = (capacity: number) => prunableContext(capacity, "rest");

const relationsOf = async (c: TestClient, name: string) =>
  ((await ok(c, "open_nodes", { names: [name] })) as { relations: { from: string; to: string; relationType: string }[] }).relations;

describe("restore after the graph changed", () => {
  it("keeps a relation whose other end was deleted in the archive, and brings it back once that end exists again", async () => {
    const { t0, name, stub, c } = await setup(4);
    await ok(c, "create_entities", { entities: ["A", "B", "K1", "K2"].map((n) => ({ name: n, entityType: "t", observations: [] })) });
    await ok(c, "create_relations", { relations: [{ from: "A", to: "B", relationType: "knows" }] });
    await onlyPrunableByUse(stub, { entities: ["A"] });
    expect(await runAlarmAt(stub, t0 + 200 * DAY_MS)).toBe(true);
    await ok(c, "delete_entities", { entityNames: ["B"] });
    const [deletion] = await changesOf(name);

    const first = await c.call("restore", { items: ["entity:A"] });
    expect(first.isError).toBeFalsy();
    const kept = await rows<{ id: number; item: string }>(stub, "SELECT id, item FROM archive");
    expect(kept).toEqual([{ id: expect.any(Number), item: "entity:A" }]);
    expect(first.structuredContent).toMatchObject({
      restored: ["entity:A"],
      relationsDeferred: [{ relation: "A -knows-> B", waitsFor: "entity:B", archiveId: kept[0]?.id }],
    });
    expect(text(first)).toContain(`A -knows-> B (kept as archive #${kept[0]?.id} until entity:B exists`);
    expect(text(first)).not.toContain("dropped");
    expect(await relationsOf(c, "A")).toEqual([]);

    // Undoing that restore puts A's row back whole, relation included, and removes the kept row.
    await ok(c, "undo", {});
    expect(await rows(stub, "SELECT item, json_extract(payload, '$.relations[0].to') AS to_ FROM archive")).toEqual([{ item: "entity:A", to_: "B" }]);
    expect(await rows(stub, "SELECT json_extract(payload, '$.kind') AS kind FROM archive")).toEqual([{ kind: "entity" }]);
    await ok(c, "restore", { items: ["entity:A"] });
    expect((await rows<{ id: number }>(stub, "SELECT id FROM archive"))[0]?.id).toBe(kept[0]?.id);

    // Asking before B exists changes nothing and says why.
    const early = await c.call("restore", { items: ["entity:A"] });
    expect(early.structuredContent).toMatchObject({ restored: [], relationsDeferred: [{ relation: "A -knows-> B", archiveId: kept[0]?.id }] });
    expect(early.structuredContent).not.toHaveProperty("change");
    expect(await rows(stub, "SELECT id, item FROM archive")).toEqual(kept);

    await ok(c, "undo", { change: deletion?.seq });
    expect(await relationsOf(c, "B")).toEqual([]);
    const again = await ok(c, "restore", { items: ["entity:A"] });
    expect(again).toMatchObject({ restored: ["entity:A"], relationsRestored: ["A -knows-> B"] });
    expect(again).not.toHaveProperty("relationsDeferred");
    expect(await relationsOf(c, "A")).toEqual([{ from: "A", to: "B", relationType: "knows" }]);
    expect(await rows(stub, "SELECT COUNT(*) AS n FROM archive")).toEqual([{ n: 0 }]);
    await c.close();
  });

  it("brings kept relations back with the entity when it was archived again in between", async () => {
    const { t0, name, stub, c } = await setup(4);
    await ok(c, "create_entities", { entities: ["A", "B", "K1", "K2"].map((n) => ({ name: n, entityType: "t", observations: [] })) });
    await ok(c, "create_relations", { relations: [{ from: "B", to: "A", relationType: "follows" }] });
    await onlyPrunableByUse(stub, { entities: ["A"] });
    expect(await runAlarmAt(stub, t0 + 200 * DAY_MS)).toBe(true);
    await ok(c, "delete_entities", { entityNames: ["B"] });
    const [deletion] = await changesOf(name);
    expect(await ok(c, "restore", { items: ["entity:A"] })).toMatchObject({ relationsDeferred: [{ relation: "B -follows-> A", waitsFor: "entity:B" }] });

    // A is pruned again: its own row is now the newest for entity:A, the kept relation sits in the older one.
    await ok(c, "create_entities", { entities: [{ name: "K3", entityType: "t", observations: [] }] });
    await onlyPrunableByUse(stub, { entities: ["A"] });
    await sql(stub, "UPDATE entities SET access_count = 0, uses = 0, last_accessed_at = NULL, tier = 'short' WHERE name = 'A'");
    expect(await runAlarmAt(stub, t0 + 201 * DAY_MS)).toBe(true);
    expect(await rows(stub, "SELECT json_extract(payload, '$.kind') AS kind FROM archive ORDER BY id")).toEqual([{ kind: "relations" }, { kind: "entity" }]);

    await ok(c, "undo", { change: deletion?.seq });
    expect(await ok(c, "restore", { items: ["entity:A"] })).toMatchObject({ restored: ["entity:A"], relationsRestored: ["B -follows-> A"] });
    expect(await relationsOf(c, "A")).toEqual([{ from: "B", to: "A", relationType: "follows" }]);
    expect(await rows(stub, "SELECT COUNT(*) AS n FROM archive")).toEqual([{ n: 0 }]);
    await c.close();
  });

  it("restores a document whose parent was deleted under the root, and says so", async () => {
    const { t0, name, stub, c } = await setup(4);
    await update(c, "root", "# root\n\n[[p]]\n");
    await update(c, "p", "# p\n\n[[leaf]]\n");
    await update(c, "leaf", "# leaf\n\nkeep me\n");
    await ok(c, "create_entities", { entities: [{ name: "K", entityType: "t", observations: [] }] });
    await onlyPrunableByUse(stub, { docs: ["leaf"] });
    expect(await runAlarmAt(stub, t0 + 200 * DAY_MS)).toBe(true);
    expect(await rows(stub, "SELECT item FROM archive")).toEqual([{ item: "doc:leaf" }]);
    // The user drops p from the root: p goes with its subtree (its [[archived:leaf]] mark is plain text).
    await update(c, "root", "# root\n\nnothing here\n");
    expect((await c.call("read_document", { id: "p" })).isError).toBe(true);

    const r = await c.call("restore", { items: ["doc:leaf"] });
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ restored: ["doc:leaf"], reparented: ["doc:leaf"] });
    expect(text(r)).toContain('doc:leaf came back under the root: its parent "p" no longer exists');
    expect(((await ok(c, "read_document", { id: "root" })) as { content: string }).content).toBe("# root\n\nnothing here\n\n[[leaf]]\n");
    expect(((await ok(c, "read_document", { id: "leaf" })) as { content: string }).content).toBe("# leaf\n\nkeep me\n");
    const tree = await expectTreeIntact(name);
    expect(tree.find((d) => d.id === "leaf")?.parent_id).toBe("root");
    await c.close();
  });

  it("still asks for an archived parent first rather than re-parenting", async () => {
    const { t0, stub, c } = await setup(4);
    await update(c, "root", "# root\n\n[[p]]\n");
    await update(c, "p", "# p\n\n[[leaf]]\n");
    await update(c, "leaf", "# leaf\n");
    await ok(c, "create_entities", { entities: [{ name: "K1", entityType: "t", observations: [] }] });
    await onlyPrunableByUse(stub, { docs: ["leaf"] });
    expect(await runAlarmAt(stub, t0 + 200 * DAY_MS)).toBe(true);
    // Near capacity again (4/4): now p, a leaf itself, goes too.
    await ok(c, "create_entities", { entities: [{ name: "K2", entityType: "t", observations: [] }] });
    await onlyPrunableByUse(stub, { docs: ["p"] });
    expect(await runAlarmAt(stub, t0 + 201 * DAY_MS)).toBe(true);
    expect((await rows<{ item: string }>(stub, "SELECT item FROM archive ORDER BY id")).map((a) => a.item)).toEqual(["doc:leaf", "doc:p"]);

    const alone = await ok(c, "restore", { items: ["doc:leaf"] });
    expect(alone).toMatchObject({ restored: [], conflicts: [expect.stringContaining('its parent document "p" is archived; restore doc:p first')] });
    expect(await ok(c, "restore", { items: ["doc:leaf", "doc:p"] })).toMatchObject({ restored: ["doc:p", "doc:leaf"] });
    expect(((await ok(c, "read_document", { id: "p" })) as { content: string }).content).toBe("# p\n\n[[leaf]]\n");
    await c.close();
  });

  it("finds a file by any spelling of its path, as mark_important does", async () => {
    const { t0, stub, c } = await setup(3);
    await ok(c, "create", { path: "notes/a.md", file_text: "alpha\n" });
    await ok(c, "create_entities", { entities: ["K1", "K2"].map((n) => ({ name: n, entityType: "t", observations: [] })) });
    await onlyPrunableByUse(stub, { files: ["notes/a.md"] });
    expect(await runAlarmAt(stub, t0 + 200 * DAY_MS)).toBe(true);
    expect(await ok(c, "restore", { items: ["file:/notes/a.md"] })).toMatchObject({ restored: ["file:notes/a.md"] });
    expect(((await ok(c, "view", { path: "notes/a.md" })) as { text: string }).text).toContain("alpha");
    const bad = await c.call("restore", { items: ["file:../x"] });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain("file:../x");
    await c.close();
  });

  it("keeps each archive row's size in a column that memory_stats sums", async () => {
    const { t0, stub, c } = await setup(3);
    await ok(c, "create_entities", { entities: ["A", "B", "C"].map((n) => ({ name: n, entityType: "t", observations: [`${n} likes tea`] })) });
    await onlyPrunableByUse(stub, { entities: ["A"] });
    expect(await runAlarmAt(stub, t0 + 200 * DAY_MS)).toBe(true);
    const [row] = await rows<{ bytes: number; actual: number }>(stub, "SELECT bytes, length(CAST(payload AS BLOB)) AS actual FROM archive");
    expect(row?.bytes).toBeGreaterThan(100);
    expect(row?.bytes).toBe(row?.actual);
    // Stats read the column, not the payloads.
    await sql(stub, "UPDATE archive SET bytes = 4242");
    expect(await ok(c, "memory_stats")).toMatchObject({ archived: 1 });
    expect(text(await c.call("memory_stats"))).toContain("4242");
    await c.close();
  });

  it("archives an entity's aliases and superseded observations with it and brings them back; an alias whose name is taken now is reported", async () => {
    const { t0, stub, c } = await setup(4);
    await ok(c, "create_entities", {
      entities: [
        { name: "ACME Corporation", entityType: "org", observations: ["based in Lyon"] },
        { name: "Acme Corp", entityType: "org", observations: [] },
        { name: "K1", entityType: "t", observations: [] },
        { name: "K2", entityType: "t", observations: [] },
      ],
    });
    await ok(c, "merge_entities", { target: "ACME Corporation", sources: ["Acme Corp"] });
    await ok(c, "update_observation", { entityName: "ACME Corporation", old: "based in Lyon", new: "based in Paris" });
    await ok(c, "create_entities", { entities: [{ name: "K3", entityType: "t", observations: [] }] });
    const opened = async () =>
      (await ok(c, "open_nodes", { names: ["Acme Corp"], includeSuperseded: true })) as {
        entities: { name: string; observations: string[]; superseded?: { text: string }[] }[];
        aliases?: Record<string, string>;
      };
    const before = await opened();
    expect(before.aliases).toEqual({ "Acme Corp": "ACME Corporation" });

    await onlyPrunableByUse(stub, { entities: ["ACME Corporation"] });
    expect(await runAlarmAt(stub, t0 + 200 * DAY_MS)).toBe(true);
    const archived = await rows<{ aliases: string; superseded: string }>(
      stub,
      "SELECT json_extract(payload, '$.aliases[0].alias') AS aliases, json_extract(payload, '$.superseded[0].content') AS superseded FROM archive",
    );
    expect(archived).toEqual([{ aliases: "Acme Corp", superseded: "based in Lyon" }]);
    expect(await rows(stub, "SELECT COUNT(*) AS n FROM entity_aliases")).toEqual([{ n: 0 }]);
    expect((await opened()).entities).toEqual([]);

    await ok(c, "restore", { items: ["entity:ACME Corporation"] });
    const after = await opened();
    expect(after.aliases).toEqual({ "Acme Corp": "ACME Corporation" });
    expect(after.entities[0]?.observations).toEqual(["based in Paris"]);
    expect(after.entities[0]?.superseded?.map((o) => o.text)).toEqual(["based in Lyon"]);
    expect(await rows(stub, "SELECT COUNT(*) AS n FROM archive")).toEqual([{ n: 0 }]);

    // Pruned again; meanwhile a new entity takes the old name, so that alias cannot come back.
    await onlyPrunableByUse(stub, { entities: ["ACME Corporation"] });
    await sql(stub, "UPDATE entities SET access_count = 0, uses = 0, tier = 'short' WHERE name = 'ACME Corporation'");
    expect(await runAlarmAt(stub, t0 + 201 * DAY_MS)).toBe(true);
    await ok(c, "delete_entities", { entityNames: ["K3"] });
    await ok(c, "create_entities", { entities: [{ name: "Acme Corp", entityType: "org", observations: ["a new one"] }] });
    const r = await c.call("restore", { items: ["entity:ACME Corporation"] });
    expect(r.structuredContent).toMatchObject({ restored: ["entity:ACME Corporation"] });
    expect(text(r)).toContain('entity:ACME Corporation: alias "Acme Corp" not restored, the name is the entity "Acme Corp" now.');
    expect(await rows(stub, "SELECT alias FROM entity_aliases")).toEqual([]);
    await c.close();
  });
});
