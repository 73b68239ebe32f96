/**
 * Archive and restore through a real MCP client: what the evaluation prunes
 * comes back whole with `restore` (an entity with its observations and
 * relations, a file, a document in its place in the tree), restore and undo
 * never duplicate an item, and memory_stats tells what happened.
 */
import { describe, expect, it } from "vitest";
import { text, type TestClient } from "../helpers/clients";
import { changesOf } from "../helpers/context";
import { expectTreeIntact, update } from "../helpers/documents";
import { DAY_MS, onlyPrunable, rows, runAlarmAt, sql, ok, prunableContext } from "../helpers/priority";

type Structured = Record<string, unknown>;

const setup = (capacity: number) => prunableContext(capacity, "arch");

const openNodes = (c: TestClient, names: string[]) =>
  ok(c, "open_nodes", { names }) as Promise<{
    entities: { name: string; observations: string[] }[];
    relations: { from: string; to: string; relationType: string }[];
    notFound?: string[];
  }>;

describe("archive and restore", () => {
  it("brings an entity back with its observations and relations; undo of the restore archives it again", async () => {
    const { t0, name, stub, c } = await setup(4);
    await ok(c, "create_entities", {
      entities: [
        { name: "X", entityType: "person", observations: ["likes tea", "lives in Kyoto"] },
        { name: "Y", entityType: "person", observations: [] },
        { name: "Z", entityType: "person", observations: [] },
        { name: "W", entityType: "person", observations: [] },
      ],
    });
    await ok(c, "create_relations", {
      relations: [
        { from: "X", to: "Y", relationType: "knows" },
        { from: "Z", to: "X", relationType: "likes" },
      ],
    });
    // X's neighbours stay unmarked (a mark would protect X, see below) but well used, so only X is below the threshold.
    await onlyPrunable(stub, { entities: ["X", "Y", "Z"] });
    await sql(stub, "UPDATE entities SET uses = 1000 WHERE name IN ('Y', 'Z')");
    const before = await openNodes(c, ["X"]);

    expect(await runAlarmAt(stub, t0 + 200 * DAY_MS)).toBe(true);
    expect((await openNodes(c, ["X", "Z"])).notFound).toEqual(["X"]);
    expect((await openNodes(c, ["Z"])).relations).toEqual([]);

    const listing = await c.call("restore");
    const listed = listing.structuredContent as { archived: { id: number; item: string; reason: string }[] };
    expect(listed.archived).toHaveLength(1);
    expect(listed.archived[0]).toMatchObject({ item: "entity:X", reason: expect.stringContaining("total 4/4") });
    expect(text(listing)).toContain("1 archived in all, newest first:");
    expect(await ok(c, "memory_stats")).toMatchObject({ archived: 1, lastEvaluation: { outcome: "pruned", pruned: 1 }, total: 3 });

    const restored = (await ok(c, "restore", { items: ["entity:X"] })) as { restored: string[]; change: number };
    expect(restored.restored).toEqual(["entity:X"]);
    // Restoring is a use (X was opened once before), so the next evaluation does not prune it straight away.
    expect(await rows(stub, "SELECT access_count, last_accessed_at, tier FROM entities WHERE name = 'X'")).toEqual([
      { access_count: 2, last_accessed_at: t0 + 200 * DAY_MS, tier: "mid" },
    ]);
    const after = await openNodes(c, ["X"]);
    expect(after.entities).toEqual(before.entities);
    expect(after.relations).toEqual(before.relations);
    expect((await ok(c, "restore")) as Structured).toEqual({ archived: [] });

    // The restore is a change; undoing it puts X back into the archive, once.
    const [change] = await changesOf(name);
    expect(change).toMatchObject({ seq: restored.change, tool: "restore" });
    await ok(c, "undo", { change: restored.change });
    expect((await openNodes(c, ["X"])).notFound).toEqual(["X"]);
    expect(((await ok(c, "restore")) as { archived: { item: string }[] }).archived.map((a) => a.item)).toEqual(["entity:X"]);
    await ok(c, "restore", { ids: [listed.archived[0]?.id] });
    expect((await openNodes(c, ["X"])).entities).toEqual(before.entities);
    await c.close();
  });

  it("brings a file and a document back in place, with the tree intact all along", async () => {
    const { t0, name, stub, c } = await setup(6);
    await ok(c, "create", { path: "notes/plan.md", file_text: "step one\nstep two\n" });
    await update(c, "root", "# root\n\nSee [[ideas]] and [[todo]].\n");
    await update(c, "ideas", "# ideas\n\na garden on the roof\n");
    await ok(c, "create_entities", { entities: ["Keep1", "Keep2"].map((n) => ({ name: n, entityType: "t", observations: [] })) });
    // The root stays unmarked: a marked parent protects its children (the root itself is never pruned).
    await onlyPrunable(stub, { files: ["notes/plan.md"], docs: ["ideas", "root"] });

    expect(await runAlarmAt(stub, t0 + 200 * DAY_MS)).toBe(true);
    const missing = await c.call("view", { path: "notes/plan.md" });
    expect(missing.isError).toBe(true);
    expect((await c.call("read_document", { id: "ideas" })).isError).toBe(true);
    // The parent no longer links the archived document; it shows it as archived.
    expect(((await ok(c, "read_document", { id: "root" })) as { content: string }).content).toBe("# root\n\nSee [[archived:ideas]] and [[todo]].\n");
    await expectTreeIntact(name);

    const listed = (await ok(c, "restore", { kind: "doc" })) as { archived: { id: number; item: string }[] };
    expect(listed.archived.map((a) => a.item)).toEqual(["doc:ideas"]);
    const restored = (await ok(c, "restore", { items: ["file:notes/plan.md", "doc:ideas", "doc:nothing"] })) as Structured;
    expect(restored).toMatchObject({ restored: ["file:notes/plan.md", "doc:ideas"], notFound: ["doc:nothing"] });
    expect(((await ok(c, "view", { path: "notes/plan.md" })) as { text: string }).text).toContain("step two");
    expect(((await ok(c, "read_document", { id: "ideas" })) as { content: string }).content).toBe("# ideas\n\na garden on the roof\n");
    expect(((await ok(c, "read_document", { id: "root" })) as { content: string }).content).toBe("# root\n\nSee [[ideas]] and [[todo]].\n");
    expect(((await ok(c, "get_document_tree")) as { yaml: string }).yaml).toContain("ideas");
    await expectTreeIntact(name);
    await c.close();
  });

  it("never prunes the root or a document with children, only leaves", async () => {
    const { t0, name, stub, c } = await setup(6);
    await update(c, "root", "# root\n\n[[parent]]\n");
    await update(c, "parent", "# parent\n\n[[leaf]]\n");
    await ok(c, "create_entities", { entities: ["K1", "K2", "K3"].map((n) => ({ name: n, entityType: "t", observations: [] })) });
    await onlyPrunable(stub, { docs: ["root", "parent", "leaf"] });
    // 6/6 is near and two must go; the three documents are equally low, but only the leaf may go.
    expect(await runAlarmAt(stub, t0 + 200 * DAY_MS)).toBe(true);
    expect((await rows<{ item: string }>(stub, "SELECT item FROM archive")).map((r) => r.item)).toEqual(["doc:leaf"]);
    // One went instead of two: 5/6 is below 90%, so this is not "over capacity", but nothing else was prunable.
    expect(await ok(c, "memory_stats")).toMatchObject({ lastEvaluation: { outcome: "pruned", pruned: 1 } });
    expect((await expectTreeIntact(name)).map((d) => d.id)).toEqual(["parent", "root"]);
    await c.close();
  });

  it("undo of the pruning brings items back and empties the archive, so a later restore finds nothing to duplicate", async () => {
    const { t0, name, stub, c } = await setup(3);
    await ok(c, "create_entities", { entities: ["A", "B", "C"].map((n) => ({ name: n, entityType: "t", observations: [`${n} obs`] })) });
    await onlyPrunable(stub, { entities: ["A"] });
    expect(await runAlarmAt(stub, t0 + 200 * DAY_MS)).toBe(true);
    const [pruning] = await changesOf(name);
    expect(pruning).toMatchObject({ caller: "system", tool: "memory_evaluation" });

    // The pruning was not by this caller: undo names it explicitly.
    await ok(c, "undo", { change: pruning?.seq });
    expect((await openNodes(c, ["A"])).entities.map((e) => e.observations)).toEqual([["A obs"]]);
    expect(await ok(c, "restore", { items: ["entity:A"] })).toMatchObject({ restored: [], notFound: ["entity:A"] });
    expect(await rows(stub, "SELECT COUNT(*) AS n FROM archive")).toEqual([{ n: 0 }]);
    await c.close();
  });

  it("reports a conflict and keeps the archived copy when an item of that name exists again", async () => {
    const { t0, stub, c } = await setup(3);
    await ok(c, "create_entities", { entities: ["A", "B", "C"].map((n) => ({ name: n, entityType: "old", observations: [] })) });
    await onlyPrunable(stub, { entities: ["A"] });
    expect(await runAlarmAt(stub, t0 + 200 * DAY_MS)).toBe(true);
    await ok(c, "create_entities", { entities: [{ name: "A", entityType: "new", observations: [] }] });

    const r = await c.call("restore", { items: ["entity:A"] });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ restored: [], conflicts: [expect.stringMatching(/^#\d+ entity:A: an entity named "A" exists again/)] });
    expect(text(r)).toContain("Conflict, kept archived");
    expect((await openNodes(c, ["A"])).entities[0]).toMatchObject({ entityType: "new" });
    expect(await rows(stub, "SELECT item FROM archive")).toEqual([{ item: "entity:A" }]);
    await c.close();
  });

  it("keeps a relation whose other end is still archived with that end, and brings it back with it", async () => {
    const { t0, stub, c } = await setup(6);
    await ok(c, "create_entities", { entities: ["P", "Q", "K1", "K2", "K3", "K4"].map((n) => ({ name: n, entityType: "t", observations: [] })) });
    await ok(c, "create_relations", { relations: [{ from: "P", to: "Q", relationType: "knows" }] });
    await onlyPrunable(stub, { entities: ["P", "Q"] });
    await sql(stub, "UPDATE entities SET uses = 1 WHERE name = 'Q'"); // P is the lowest: pruned first, the relation goes with it
    expect(await runAlarmAt(stub, t0 + 200 * DAY_MS)).toBe(true);
    expect((await rows<{ item: string }>(stub, "SELECT item FROM archive ORDER BY id")).map((r) => r.item)).toEqual(["entity:P", "entity:Q"]);

    const first = await c.call("restore", { items: ["entity:P"] });
    const [q] = await rows<{ id: number }>(stub, "SELECT id FROM archive WHERE item = 'entity:Q'");
    expect(first.structuredContent).toMatchObject({
      restored: ["entity:P"],
      relationsDeferred: [{ relation: "P -knows-> Q", waitsFor: "entity:Q", archiveId: q?.id }],
    });
    expect(text(first)).toContain(`P -knows-> Q (kept as archive #${q?.id} until entity:Q exists`);
    expect((await openNodes(c, ["P"])).relations).toEqual([]);
    await ok(c, "restore", { items: ["entity:Q"] });
    expect((await openNodes(c, ["P"])).relations).toEqual([{ from: "P", to: "Q", relationType: "knows" }]);
    await c.close();
  });

  it("rejects bad selections and changes nothing", async () => {
    const { t0, stub, c } = await setup(3);
    await ok(c, "create_entities", { entities: ["A", "B", "C"].map((n) => ({ name: n, entityType: "t", observations: [`${n} obs`] })) });
    await onlyPrunable(stub, { entities: ["A"] });
    expect(await runAlarmAt(stub, t0 + 200 * DAY_MS)).toBe(true);
    const archived = await rows(stub, "SELECT id, item, payload FROM archive");
    expect(archived.map((r) => r.item)).toEqual(["entity:A"]);
    const changes = await rows(stub, "SELECT COUNT(*) AS n FROM changes");

    const both = await c.call("restore", { items: ["entity:A"], before: 5 });
    expect(both.isError).toBe(true);
    expect(text(both)).toContain("Nothing was restored");
    const kindToo = await c.call("restore", { ids: [archived[0]?.id as number], kind: "entity" });
    expect(kindToo.isError).toBe(true);
    const badKey = await c.call("restore", { items: ["entity:A", "Alice"] });
    expect(badKey.isError).toBe(true);
    expect(text(badKey)).toContain('item must be a key like "entity:Alice"');
    const huge = await c.call("restore", { before: 1e16 });
    expect(huge.isError).toBe(true);
    expect(text(huge)).toContain(`before must be a whole number from 1 to ${Number.MAX_SAFE_INTEGER}`);
    const badId = await c.call("restore", { ids: [archived[0]?.id as number, 0] });
    expect(badId.isError).toBe(true);

    // A stays archived, exactly as it was, and no change was recorded.
    expect(await rows(stub, "SELECT id, item, payload FROM archive")).toEqual(archived);
    expect(await rows(stub, "SELECT COUNT(*) AS n FROM changes")).toEqual(changes);
    expect((await openNodes(c, ["A"])).notFound).toEqual(["A"]);
    await c.close();
  });
});
