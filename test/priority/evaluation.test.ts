import { describe, expect, it } from "vitest";
import { MAX_PRUNE_PER_RUN } from "../../src/priority/evaluate";
import { PRUNE_GRACE_MS } from "../../src/priority/scan";
import { connectV2, text } from "../helpers/clients";
import { as, changesOf, unwrap } from "../helpers/context";
import { adminApi, alarmAt, contextWithCapacity, DAY_MS, rows, runAlarmAt, setClock, sql } from "../helpers/priority";

const ent = (name: string) => ({ name, entityType: "t", observations: [`about ${name}`] });
const EVERY = 10 * 60_000;

type Stub = Awaited<ReturnType<typeof contextWithCapacity>>["stub"];

const entityNames = async (stub: Stub) => (await rows<{ name: string }>(stub, "SELECT name FROM entities ORDER BY name")).map((r) => r.name);
const archived = async (stub: Stub) => await rows<{ item: string; reason: string }>(stub, "SELECT item, reason FROM archive ORDER BY id");
const lastEvaluation = async (stub: Stub) => {
  const r = await rows<{ value: string }>(stub, "SELECT value FROM priority_state WHERE key = 'last_evaluation'");
  return r[0] ? (JSON.parse(r[0].value) as { outcome: string; pruned: number; prunedItems: string[]; reason: string; change?: number }) : null;
};

/** `n` entities created at `at`, with `uses` weighted uses each (priority grows with uses). */
async function seed(stub: Stub, at: number, spec: Record<string, { uses?: number; important?: boolean; tier?: string }>) {
  await setClock(stub, at);
  unwrap(await stub.createEntities(Object.keys(spec).map(ent), as("alice")));
  for (const [name, s] of Object.entries(spec)) {
    await sql(stub, "UPDATE entities SET uses = ?, important = ?, tier = ? WHERE name = ?", s.uses ?? 0, s.important ? 1 : 0, s.tier ?? "short", name);
  }
}

describe("capacity evaluation (the alarm)", () => {
  it("is scheduled every MEMORY_EVALUATION_MINUTES once a capacity is set, and not without one", async () => {
    const t0 = Date.now();
    const { name, stub } = await contextWithCapacity(null, t0);
    expect(await alarmAt(stub)).toBeNull();

    expect((await adminApi(`/contexts/${name}`, "PATCH", { capacity: { total: 50 } })).status).toBe(200);
    expect(await alarmAt(stub)).toBe(t0 + EVERY);
    expect(await runAlarmAt(stub, t0 + EVERY)).toBe(true);
    expect(await lastEvaluation(stub)).toMatchObject({ outcome: "within", pruned: 0 });
    expect(await alarmAt(stub)).toBe(t0 + 2 * EVERY);

    // Without a capacity the alarm runs no evaluation and sets none: the last evaluation stays the one
    // from t0 + EVERY (not replaced, not cleared), and old unused items stay.
    expect((await adminApi(`/contexts/${name}`, "PATCH", { capacity: null })).status).toBe(200);
    await seed(stub, t0 + EVERY, { A: {}, B: {} });
    expect(await runAlarmAt(stub, t0 + 400 * DAY_MS)).toBe(true);
    expect(await lastEvaluation(stub)).toMatchObject({ at: t0 + EVERY, outcome: "within", pruned: 0 });
    expect(await entityNames(stub)).toEqual(["A", "B"]);
    expect(await archived(stub)).toEqual([]);
    expect(await alarmAt(stub)).toBeNull();
  });

  it("never prunes a read-only context, and prunes again once it is writable", async () => {
    const t0 = Date.now();
    const { name, stub } = await contextWithCapacity({ total: 4 }, t0);
    await seed(stub, t0, { A: {}, B: {}, C: {}, D: {} });
    expect((await adminApi(`/contexts/${name}`, "PATCH", { readOnly: true })).status).toBe(200);
    expect(await runAlarmAt(stub, t0 + 400 * DAY_MS)).toBe(true);
    expect(await entityNames(stub)).toEqual(["A", "B", "C", "D"]);
    expect(await archived(stub)).toEqual([]);
    expect(await lastEvaluation(stub)).toMatchObject({ outcome: "read_only", pruned: 0, reason: expect.stringContaining("total 4/4 (100%)") });

    expect((await adminApi(`/contexts/${name}`, "PATCH", { readOnly: false })).status).toBe(200);
    expect(await runAlarmAt(stub, t0 + 401 * DAY_MS)).toBe(true);
    expect(await lastEvaluation(stub)).toMatchObject({ outcome: "pruned" });
    expect((await archived(stub)).length).toBeGreaterThan(0);
  });

  it("learns that a context created read-only is read-only when it is given a capacity", async () => {
    const t0 = Date.now();
    const { name, stub } = await contextWithCapacity(null, t0);
    await seed(stub, t0, { A: {}, B: {} });
    // Read-only from the Registry's side only (as add_context would leave it), then a capacity.
    expect((await adminApi(`/contexts/${name}`, "PATCH", { readOnly: true })).status).toBe(200);
    await sql(stub, "UPDATE registration SET read_only = 0");
    expect((await adminApi(`/contexts/${name}`, "PATCH", { capacity: { total: 2 } })).status).toBe(200);
    expect(await runAlarmAt(stub, t0 + 400 * DAY_MS)).toBe(true);
    expect(await entityNames(stub)).toEqual(["A", "B"]);
    expect(await lastEvaluation(stub)).toMatchObject({ outcome: "read_only" });
  });

  it("prunes nothing while every limit is below 90%, however low the priorities", async () => {
    const t0 = Date.now();
    const { stub } = await contextWithCapacity({ total: 10 }, t0);
    await seed(stub, t0, { A: {}, B: {}, C: {}, D: {}, E: {}, F: {}, G: {}, H: {} });
    expect(await runAlarmAt(stub, t0 + 400 * DAY_MS)).toBe(true);
    expect(await entityNames(stub)).toHaveLength(8);
    expect(await archived(stub)).toEqual([]);
    expect(await lastEvaluation(stub)).toMatchObject({ outcome: "within", pruned: 0, reason: expect.stringContaining("total 8/10 (80%)") });
  });

  it("near capacity prunes the lowest priority below the threshold first, never a marked item, down to 80%", async () => {
    const t0 = Date.now();
    const { name, stub } = await contextWithCapacity({ total: 10 }, t0);
    // 200 days old and never used: priority (1 + uses) / (1 + 200/7), so uses 0 ≈ 0.034, 1 ≈ 0.068, 2 ≈ 0.10, 10 ≈ 0.37.
    await seed(stub, t0, {
      Marked: { uses: 0, important: true },
      Lowest: { uses: 0 },
      Second: { uses: 1 },
      Third: { uses: 2 },
      Used1: { uses: 10 },
      Used2: { uses: 10 },
      Used3: { uses: 10 },
      Used4: { uses: 10 },
      Used5: { uses: 10 },
      Used6: { uses: 10 },
    });
    const at = t0 + 200 * DAY_MS;
    expect(await runAlarmAt(stub, at)).toBe(true);

    // 10/10 is near; 80% of 10 is 8, so two go: the two lowest that are not marked.
    expect(await entityNames(stub)).not.toContain("Lowest");
    expect(await entityNames(stub)).not.toContain("Second");
    expect(await entityNames(stub)).toEqual(expect.arrayContaining(["Marked", "Third", "Used1"]));
    const rowsArchived = await archived(stub);
    expect(rowsArchived.map((r) => r.item)).toEqual(["entity:Lowest", "entity:Second"]);
    expect(rowsArchived[0]?.reason).toMatch(/total 10\/10 \(100%\) at or over 90%; priority 0\.03\d+ < 0\.2/);
    const evaluation = await lastEvaluation(stub);
    expect(evaluation).toMatchObject({ outcome: "pruned", pruned: 2, prunedItems: ["entity:Lowest", "entity:Second"] });

    // The pruning is in history, by "system", as memory_evaluation, and the next run is due in 10 minutes.
    const [change] = await changesOf(name);
    expect(change).toMatchObject({ seq: evaluation?.change, caller: "system", tool: "memory_evaluation" });
    expect(change?.summary).toContain("-entity Lowest, Second");
    expect(await alarmAt(stub)).toBe(at + EVERY);
  });

  it("stops and reports over capacity when nothing left is below the threshold, never pruning marked or used items", async () => {
    const t0 = Date.now();
    const { stub } = await contextWithCapacity({ total: 10 }, t0);
    const used = Object.fromEntries(["U1", "U2", "U3", "U4", "U5", "U6", "U7"].map((n) => [n, { uses: 10 }]));
    await seed(stub, t0, { M1: { important: true }, M2: { important: true }, Low: { uses: 0 }, ...used });
    expect(await runAlarmAt(stub, t0 + 200 * DAY_MS)).toBe(true);
    // Two should go to reach 80%, but only Low is below the threshold and not marked.
    expect(await entityNames(stub)).toEqual(["M1", "M2", "U1", "U2", "U3", "U4", "U5", "U6", "U7"]);
    const evaluation = await lastEvaluation(stub);
    expect(evaluation).toMatchObject({ outcome: "over_capacity", pruned: 1, prunedItems: ["entity:Low"] });
    expect(evaluation?.reason).toContain("over capacity, nothing prunable: total 9/10 (90%) still at or over 90%");
  });

  it("a near tier limit prunes only items of that tier", async () => {
    const t0 = Date.now();
    const { stub } = await contextWithCapacity({ short: 4 }, t0);
    // The mid-term items have the lowest priority, but only the short tier is near its limit.
    await seed(stub, t0, {
      S1: { uses: 1 },
      S2: { uses: 2 },
      S3: { uses: 2 },
      S4: { uses: 2 },
      M1: { uses: 0, tier: "mid" },
      M2: { uses: 0, tier: "mid" },
    });
    expect(await runAlarmAt(stub, t0 + 200 * DAY_MS)).toBe(true);
    expect((await archived(stub)).map((r) => r.item)).toEqual(["entity:S1"]);
    expect(await entityNames(stub)).toEqual(["M1", "M2", "S2", "S3", "S4"]);
  });

  it("refreshes cluster sizes first: an item whose cluster bonus lifts it over the threshold is kept", async () => {
    const t0 = Date.now();
    const { stub } = await contextWithCapacity({ total: 5 }, t0);
    // At 200 days, uses 4 gives 5 / (1 + 200/7) ≈ 0.169 < 0.2; the cluster bonus (x1.25) makes it ≈ 0.211.
    await seed(stub, t0, { Hub: { uses: 4 }, A: { uses: 10 }, B: { uses: 10 }, C: { uses: 10 }, Lone: { uses: 4 } });
    unwrap(
      await stub.createRelations(
        ["A", "B", "C"].map((to) => ({ from: "Hub", to, relationType: "knows" })),
        as("alice"),
      ),
    );
    // Stored cluster sizes are stale (0): Hub and Lone look equally low (Hub first by name) until refreshed.
    expect(await runAlarmAt(stub, t0 + 200 * DAY_MS)).toBe(true);
    expect((await archived(stub)).map((r) => r.item)).toEqual(["entity:Lone"]);
    expect(await rows(stub, "SELECT cluster_size, tier FROM entities WHERE name = 'Hub'")).toEqual([{ cluster_size: 3, tier: "long" }]);
  });

  it("never prunes an item accessed within the grace period: a restored item survives the next alarm", async () => {
    const t0 = Date.now();
    const { stub } = await contextWithCapacity({ total: 10 }, t0);
    const used = Object.fromEntries(["U1", "U2", "U3", "U4", "U5", "U6"].map((n) => [n, { uses: 10 }]));
    await seed(stub, t0, { Lowest: { uses: 0 }, Second: { uses: 1 }, Third: { uses: 2 }, Fourth: { uses: 3 }, ...used });
    const at = t0 + 200 * DAY_MS;
    expect(await runAlarmAt(stub, at)).toBe(true);
    expect((await archived(stub)).map((r) => r.item)).toEqual(["entity:Lowest", "entity:Second"]);

    await setClock(stub, at + 60_000);
    unwrap(await stub.restoreArchived({ items: ["entity:Lowest"], ids: [] }, as("alice")));
    expect(await entityNames(stub)).toContain("Lowest");
    // 9/10 is near again and Lowest (200 days old, one use) is still far below 0.2, but it was just restored:
    // the next lowest goes instead.
    expect(await runAlarmAt(stub, at + PRUNE_GRACE_MS - 60_000)).toBe(true);
    expect(await entityNames(stub)).toContain("Lowest");
    expect((await archived(stub)).map((r) => r.item)).toEqual(["entity:Second", "entity:Third"]);
    // Once the grace period is over, it is an ordinary candidate again.
    await sql(stub, "UPDATE entities SET uses = 10 WHERE name = 'Fourth'");
    await seed(stub, at, { Extra: { uses: 10 } });
    expect(await runAlarmAt(stub, at + PRUNE_GRACE_MS + EVERY)).toBe(true);
    expect(await entityNames(stub)).not.toContain("Lowest");
  });

  it("a mark protects what hangs on it: a marked document's child and an entity related to a marked entity stay as they are", async () => {
    const t0 = Date.now();
    const { name, stub } = await contextWithCapacity({ total: 5 }, t0);
    await setClock(stub, t0);
    const c = await connectV2({ url: `http://localhost/mcp/${name}` });
    const call = async (tool: string, args: Record<string, unknown>) => {
      const r = await c.call(tool, args);
      expect(r.isError, `${tool}: ${text(r)}`).toBeFalsy();
    };
    await call("update_document", { id: "root", content: "# root\n\n[[parent]]\n" });
    await call("update_document", { id: "parent", content: "# parent\n\nsee [[leaf]]\n" });
    await call("create_entities", { entities: [ent("A"), ent("B")] });
    await call("create_relations", { relations: [{ from: "A", to: "B", relationType: "knows" }] });
    await call("mark_important", { items: ["doc:parent", "entity:B"], important: true });
    // 5/5 is near and the leaf document and A are old, unused and unmarked, but each hangs on a marked item.
    expect(await runAlarmAt(stub, t0 + 200 * DAY_MS)).toBe(true);
    expect(await archived(stub)).toEqual([]);
    expect(await lastEvaluation(stub)).toMatchObject({ outcome: "over_capacity", pruned: 0 });
    expect(await rows(stub, "SELECT content FROM documents WHERE id = 'parent'")).toEqual([{ content: "# parent\n\nsee [[leaf]]\n" }]);
    expect(await rows(stub, "SELECT COUNT(*) AS n FROM relations")).toEqual([{ n: 1 }]);

    // Without the marks both may go (a limit of 4 makes two go: 5 down to 3).
    await call("mark_important", { items: ["doc:parent", "entity:B"], important: false });
    await sql(stub, "UPDATE entities SET uses = 100 WHERE name = 'B'");
    await sql(stub, "UPDATE documents SET uses = 100 WHERE id = 'parent'");
    expect((await adminApi(`/contexts/${name}`, "PATCH", { capacity: { total: 4 } })).status).toBe(200);
    expect(await runAlarmAt(stub, t0 + 201 * DAY_MS)).toBe(true);
    expect((await archived(stub)).map((r) => r.item).sort()).toEqual(["doc:leaf", "entity:A"]);
    await c.close();
  });

  it(`prunes at most ${MAX_PRUNE_PER_RUN} items per run and continues at once`, async () => {
    const t0 = Date.now();
    const { stub } = await contextWithCapacity({ total: 100 }, t0);
    await setClock(stub, t0);
    for (let i = 0; i < 2; i++) {
      unwrap(
        await stub.createEntities(
          Array.from({ length: 600 }, (_, j) => ({ name: `e${i}-${j}`, entityType: "t", observations: [] })),
          as("alice"),
        ),
      );
    }
    const at = t0 + 200 * DAY_MS;
    expect(await runAlarmAt(stub, at)).toBe(true);
    expect(await lastEvaluation(stub)).toMatchObject({ outcome: "partial", pruned: MAX_PRUNE_PER_RUN });
    expect(await alarmAt(stub)).toBe(at);
    expect(await runAlarmAt(stub, at)).toBe(true);
    expect(await lastEvaluation(stub)).toMatchObject({ outcome: "pruned", pruned: 120 });
    expect(await rows(stub, "SELECT COUNT(*) AS n FROM entities")).toEqual([{ n: 80 }]);
    expect(await rows(stub, "SELECT COUNT(*) AS n FROM archive")).toEqual([{ n: 1120 }]);
  });
});
