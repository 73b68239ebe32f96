/**
 * Cluster counts after bulk writes (src/priority/queue.ts): a write call that
 * relates more than CLUSTER_INLINE_MAX entities queues their names, and the
 * alarm counts them once writes pause (or the oldest has waited
 * CLUSTER_MAX_LAG_MS), a slice per run, each entity once per pass; rows
 * queued during a pass are counted in the next one.
 */
import { describe, expect, it } from "vitest";
import { CLUSTER_COUNT_CAP } from "../../src/priority/cluster";
import { CLUSTER_INLINE_MAX, CLUSTER_MAX_LAG_MS, CLUSTER_QUIET_MS, CLUSTER_SLICE } from "../../src/priority/queue";
import { as, unwrap } from "../helpers/context";
import { adminApi, alarmAt, contextWithCapacity, rows, runAlarmAt, setClock } from "../helpers/priority";

const meta = as("tester");
const thing = (name: string) => ({ name, entityType: "thing", observations: [] as string[] });
const names = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `e${from + i}`);

type Stub = Awaited<ReturnType<typeof contextWithCapacity>>["stub"];

async function entities(stub: Stub, list: string[]) {
  for (let i = 0; i < list.length; i += 1000) unwrap(await stub.createEntities(list.slice(i, i + 1000).map(thing), meta));
}

/** Each of `list` related to the next two: inner entities get 4 neighbours, the threshold (3) puts them in long term. */
const chain = (list: string[]) =>
  list.flatMap((from, i) => [list[i + 1], list[i + 2]].filter((to): to is string => to !== undefined).map((to) => ({ from, to, relationType: "next" })));

const cluster = async (stub: Stub, name: string) =>
  (await rows<{ cluster_size: number; tier: string }>(stub, "SELECT cluster_size, tier FROM entities WHERE name = ?", name))[0];
/** Runs the alarm at `at`, then again while the pass asks for its next slice at once. */
async function drainAt(stub: Stub, at: number) {
  await runAlarmAt(stub, at);
  for (let runs = 0; (await alarmAt(stub)) === at; runs++) {
    if (runs > 100) throw new Error("the pass did not end in 100 alarm runs");
    await runAlarmAt(stub, at);
  }
}
const pending = async (stub: Stub) => (await rows<{ n: number }>(stub, "SELECT coalesce(sum(n), 0) AS n FROM cluster_queue"))[0]?.n;

describe("cluster counts after bulk writes", () => {
  it("a bulk create_relations queues its ends; the alarm counts them once writes pause and empties the queue", async () => {
    const t0 = Date.now();
    const { name, stub } = await contextWithCapacity(null, t0, "cq");
    const list = names(0, 600);
    await entities(stub, list);
    unwrap(await stub.createRelations(chain(list), meta));
    expect(list.length).toBeGreaterThan(CLUSTER_INLINE_MAX);
    // Not counted in the call: sizes and tiers as before it, the names queued, the alarm asked for once writes pause.
    expect(await cluster(stub, "e10")).toEqual({ cluster_size: 0, tier: "short" });
    expect(await pending(stub)).toBe(600);
    expect(await alarmAt(stub)).toBe(t0 + CLUSTER_QUIET_MS);
    const stats = (await (await adminApi(`/contexts/${name}/stats`)).json()) as { counts: { clustersPending: number } };
    expect(stats.counts.clustersPending).toBe(600);
    // A run before the pause counts nothing.
    await runAlarmAt(stub, t0 + CLUSTER_QUIET_MS - 1);
    expect(await pending(stub)).toBe(600);
    await runAlarmAt(stub, t0 + CLUSTER_QUIET_MS);
    // One slice per run, the next at once.
    expect(await pending(stub)).toBe(600 - CLUSTER_SLICE);
    await drainAt(stub, t0 + CLUSTER_QUIET_MS);
    expect(await pending(stub)).toBe(0);
    expect(await cluster(stub, "e10")).toEqual({ cluster_size: 4, tier: "long" });
    expect(await cluster(stub, "e0")).toEqual({ cluster_size: 2, tier: "short" });
    expect(await rows(stub, "SELECT count(*) AS n FROM cluster_queue")).toEqual([{ n: 0 }]);
  });

  it("a write with few ends still counts them in its own transaction", async () => {
    const t0 = Date.now();
    const { stub } = await contextWithCapacity(null, t0, "cq");
    const list = names(0, CLUSTER_INLINE_MAX);
    await entities(stub, list);
    unwrap(await stub.createRelations(chain(list), meta));
    expect(await cluster(stub, "e10")).toEqual({ cluster_size: 4, tier: "long" });
    expect(await pending(stub)).toBe(0);
  });

  it("counts a pass in slices; rows queued during a pass wait for the next, so an entity related again after its count is counted again", async () => {
    const t0 = Date.now();
    const { stub } = await contextWithCapacity(null, t0, "cq");
    const list = names(0, 3300);
    await entities(stub, list);
    // 3,000 ends: several rows, a slice each.
    unwrap(await stub.createRelations(chain(list.slice(0, 3000)), meta));
    expect((await rows(stub, "SELECT n FROM cluster_queue ORDER BY seq")).map((r) => r.n)).toEqual(Array(3000 / CLUSTER_SLICE).fill(CLUSTER_SLICE));
    let at = t0 + CLUSTER_QUIET_MS;
    await runAlarmAt(stub, at);
    // The first slice counted e0 (in the first row); the pass goes on at once.
    expect(await cluster(stub, "e0")).toEqual({ cluster_size: 2, tier: "short" });
    expect(await pending(stub)).toBe(3000 - CLUSTER_SLICE);
    expect(await alarmAt(stub)).toBe(at);
    // Meanwhile a bulk write relates e0 to 300 more entities: queued after the pass's last row.
    await setClock(stub, at);
    unwrap(
      await stub.createRelations(
        list.slice(3000).map((to) => ({ from: "e0", to, relationType: "has" })),
        meta,
      ),
    );
    await drainAt(stub, at);
    // The pass is over; the new row waits for writes to pause again.
    expect(await pending(stub)).toBe(301);
    expect(await cluster(stub, "e0")).toEqual({ cluster_size: 2, tier: "short" });
    expect(await cluster(stub, "e2500")).toEqual({ cluster_size: 4, tier: "long" });
    expect(await alarmAt(stub)).toBe(at + CLUSTER_QUIET_MS);
    at += CLUSTER_QUIET_MS;
    await drainAt(stub, at);
    expect(await pending(stub)).toBe(0);
    expect(await cluster(stub, "e0")).toEqual({ cluster_size: CLUSTER_COUNT_CAP, tier: "long" });
    expect(await cluster(stub, "e3100")).toEqual({ cluster_size: 1, tier: "short" });
  });

  it("counts a context written without pause once its oldest row has waited CLUSTER_MAX_LAG_MS", async () => {
    const t0 = Date.now();
    const { stub } = await contextWithCapacity(null, t0, "cq");
    const list = names(0, 1200);
    await entities(stub, list);
    unwrap(await stub.createRelations(chain(list.slice(0, 600)), meta));
    // Writes go on: the last one just before the oldest row is due by its age.
    await setClock(stub, t0 + CLUSTER_MAX_LAG_MS - 1);
    unwrap(await stub.createRelations(chain(list.slice(600)), meta));
    await runAlarmAt(stub, t0 + CLUSTER_MAX_LAG_MS - 1);
    expect(await pending(stub)).toBe(1200);
    await runAlarmAt(stub, t0 + CLUSTER_MAX_LAG_MS);
    // One slice, then the rest of the pass at once.
    expect(await pending(stub)).toBe(1200 - CLUSTER_SLICE);
    await drainAt(stub, t0 + CLUSTER_MAX_LAG_MS);
    expect(await pending(stub)).toBe(0);
    expect(await cluster(stub, "e700")).toEqual({ cluster_size: 4, tier: "long" });
  });

  it("an undo of a bulk write queues its ends again, and ids whose entity is gone are dropped", async () => {
    const t0 = Date.now();
    const { stub } = await contextWithCapacity(null, t0, "cq");
    const list = names(0, 600);
    await entities(stub, list);
    unwrap(await stub.createRelations(chain(list), meta));
    await drainAt(stub, t0 + CLUSTER_QUIET_MS);
    expect(await cluster(stub, "e10")).toEqual({ cluster_size: 4, tier: "long" });
    await setClock(stub, t0 + 2 * CLUSTER_QUIET_MS);
    unwrap(await stub.undo({ count: 1 }, meta));
    expect(await pending(stub)).toBe(600);
    unwrap(await stub.deleteEntities(["e11"], meta));
    await drainAt(stub, t0 + 3 * CLUSTER_QUIET_MS);
    expect(await pending(stub)).toBe(0);
    // Unrelated again: the size follows, the tier stays (a tier never drops because a cluster shrank).
    expect(await cluster(stub, "e10")).toEqual({ cluster_size: 0, tier: "long" });
    expect(await cluster(stub, "e11")).toBeUndefined();
  });

  it("a bulk delete whose ends are all gone queues nothing", async () => {
    const t0 = Date.now();
    const { stub } = await contextWithCapacity(null, t0, "cq");
    const list = names(0, 600);
    await entities(stub, list);
    unwrap(await stub.createRelations(chain(list), meta));
    await drainAt(stub, t0 + CLUSTER_QUIET_MS);
    unwrap(await stub.deleteEntities(list, meta));
    expect(await rows(stub, "SELECT count(*) AS n FROM cluster_queue")).toEqual([{ n: 0 }]);
  });

  it("the evaluation waits for queued counts: a bulk load's tiers are counted before it decides what is over capacity", async () => {
    const t0 = Date.now();
    const { stub } = await contextWithCapacity({ short: 10 }, t0, "cq");
    const list = names(0, 600);
    await entities(stub, list);
    unwrap(await stub.createRelations(chain(list), meta));
    // The evaluation is due with the counts still queued: counted, only the two chain ends stay short term (2 of 10).
    const due = t0 + 10 * 60_000;
    await runAlarmAt(stub, due);
    expect(await pending(stub)).toBe(600 - CLUSTER_SLICE);
    expect(await rows(stub, "SELECT value FROM priority_state WHERE key = 'last_evaluation'")).toEqual([]);
    await drainAt(stub, due);
    const [evaluation] = await rows<{ value: string }>(stub, "SELECT value FROM priority_state WHERE key = 'last_evaluation'");
    expect(JSON.parse(evaluation?.value ?? "null")).toMatchObject({ outcome: "within", pruned: 0 });
    expect(await rows(stub, "SELECT tier, COUNT(*) AS n FROM entities GROUP BY tier ORDER BY tier")).toEqual([
      { tier: "long", n: 598 },
      { tier: "short", n: 2 },
    ]);
    expect(await rows(stub, "SELECT COUNT(*) AS n FROM archive")).toEqual([{ n: 0 }]);
  });
});
