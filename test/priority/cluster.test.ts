/**
 * Clusters and cluster promotion (src/priority/cluster.ts, promote.ts): a
 * cluster is counted per item and bounded (a hub never crowds out another
 * item of the same call), relating items promotes both ends in the same
 * call, the evaluation promotes clustered items before counting a tier, and
 * undoing a mark decides the tier with the deployment's
 * SEMANTIC_CLUSTER_THRESHOLD.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { Db } from "../../src/storage/sql";
import { CLUSTER_COUNT_CAP, clusterSizes } from "../../src/priority/cluster";
import { itemRef, type ItemRef } from "../../src/items";
import { as, stubOf, unwrap } from "../helpers/context";
import { freshContext } from "../helpers/clients";
import { contextWithCapacity, rows, runAlarmAt, sql } from "../helpers/priority";

const meta = as("tester");
const T0 = Date.UTC(2026, 5, 1);
const thing = (name: string) => ({ name, entityType: "thing", observations: [] as string[] });

const clusterOf = (db: Db, name: string) => db.one<{ cluster_size: number; tier: string }>("SELECT cluster_size, tier FROM entities WHERE name = ?", name);

async function inObject<T>(fn: (instance: MemoryContext, db: Db) => T): Promise<T> {
  return runInDurableObject(stubOf(freshContext("clu")), (instance: MemoryContext, state) => {
    instance.now = () => T0;
    return fn(instance, new Db(state.storage.sql));
  });
}

describe("clusters", () => {
  it("counts each item's cluster on its own: a hub with 2,500 relations does not crowd out the other item opened with it", async () => {
    await inObject((instance, db) => {
      const spokes = Array.from({ length: 2500 }, (_, i) => `spoke-${String(i).padStart(4, "0")}`);
      for (let i = 0; i < spokes.length; i += 1000) unwrap(instance.createEntities(spokes.slice(i, i + 1000).map(thing), meta));
      unwrap(instance.createEntities(["Alpha", "Zeta"].map(thing), meta));
      for (let i = 0; i < spokes.length; i += 1000) {
        unwrap(
          instance.createRelations(
            spokes.slice(i, i + 1000).map((to) => ({ from: "Alpha", to, relationType: "has" })),
            meta,
          ),
        );
      }
      unwrap(
        instance.createRelations(
          spokes.slice(0, 3).map((from) => ({ from, to: "Zeta", relationType: "knows" })),
          meta,
        ),
      );
      // Stale stored sizes: the open must count both items itself.
      db.run("UPDATE entities SET cluster_size = 0, tier = 'short'");
      unwrap(instance.openNodes(["Alpha", "Zeta"], meta));
      expect(clusterOf(db, "Zeta")).toEqual({ cluster_size: 3, tier: "long" });
      // A hub's size stops at the cap: the model only asks whether it reaches the threshold.
      expect(clusterOf(db, "Alpha")).toEqual({ cluster_size: CLUSTER_COUNT_CAP, tier: "long" });
    });
  });

  it("counts an entity both related and co-visited once, co-visited items of every kind, and never the item itself", async () => {
    await inObject((instance, db) => {
      unwrap(instance.createEntities(["Hub", "Near", "Seen", "Other"].map(thing), meta));
      unwrap(instance.createRelations([{ from: "Hub", to: "Near", relationType: "uses" }], meta));
      const pair = (other: string, count = 2) =>
        db.run("INSERT INTO covisit_pairs (item, other, count, updated_at) VALUES ('entity:Hub', ?, ?, ?)", other, count, T0);
      pair("entity:Near"); // related as well: one item
      pair("entity:Seen");
      pair("file:notes/a.md");
      pair("entity:Gone"); // no such entity (any more): still an item used with it
      pair("entity:Hub"); // itself: never counted
      pair("entity:Other", 1); // seen together once: not yet a pair that counts
      const sizes = clusterSizes(
        db,
        ["entity:Hub", "entity:Near", "entity:Other"].map((k) => itemRef(k) as ItemRef),
      );
      expect(Object.fromEntries(sizes)).toEqual({ "entity:Hub": 4, "entity:Near": 1, "entity:Other": 0 });
    });
  });

  it("counts a relation both ways and each neighbour once, whatever the relation types", async () => {
    await inObject((instance, db) => {
      unwrap(instance.createEntities(["a", "b", "c"].map(thing), meta));
      unwrap(
        instance.createRelations(
          [
            { from: "a", to: "b", relationType: "knows" },
            { from: "a", to: "b", relationType: "likes" },
            { from: "b", to: "a", relationType: "knows" },
            { from: "c", to: "a", relationType: "knows" },
            { from: "a", to: "a", relationType: "self" },
          ],
          meta,
        ),
      );
      expect(clusterOf(db, "a")?.cluster_size).toBe(2);
      expect(clusterOf(db, "b")?.cluster_size).toBe(1);
    });
  });

  it("relating items promotes both ends in the same call; deleting the relations shrinks the clusters back (tiers stay)", async () => {
    await inObject((instance, db) => {
      unwrap(instance.createEntities(["hub", "x", "y", "z"].map(thing), meta));
      unwrap(
        instance.createRelations(
          ["x", "y", "z"].map((to) => ({ from: "hub", to, relationType: "has" })),
          meta,
        ),
      );
      expect(clusterOf(db, "hub")).toEqual({ cluster_size: 3, tier: "long" });
      expect(clusterOf(db, "x")).toEqual({ cluster_size: 1, tier: "short" });
      unwrap(instance.deleteRelations([{ from: "hub", to: "x", relationType: "has" }], meta));
      expect(clusterOf(db, "hub")).toEqual({ cluster_size: 2, tier: "long" });
      expect(clusterOf(db, "x")).toEqual({ cluster_size: 0, tier: "short" });
      // Deleting an entity takes its relations: its neighbours' clusters follow.
      unwrap(instance.deleteEntities(["hub"], meta));
      expect(clusterOf(db, "y")).toEqual({ cluster_size: 0, tier: "short" });
    });
  });

  it("ten new entities related to each other go to long term, so a short limit of 10 is not over capacity", async () => {
    const t0 = Date.now();
    const { stub } = await contextWithCapacity({ short: 10 }, t0, "clu");
    const names = Array.from({ length: 10 }, (_, i) => `n${i}`);
    unwrap(await stub.createEntities(names.map(thing), meta));
    const relations = names.flatMap((from, i) => names.slice(i + 1).map((to) => ({ from, to, relationType: "with" })));
    unwrap(await stub.createRelations(relations, meta));
    expect(await rows(stub, "SELECT tier, COUNT(*) AS n FROM entities GROUP BY tier")).toEqual([{ tier: "long", n: 10 }]);
    expect(await runAlarmAt(stub, t0 + 10 * 60_000)).toBe(true);
    const [evaluation] = await rows<{ value: string }>(stub, "SELECT value FROM priority_state WHERE key = 'last_evaluation'");
    expect(JSON.parse(evaluation?.value ?? "null")).toMatchObject({ outcome: "within", pruned: 0 });
  });

  it("the evaluation promotes items whose cluster reached the threshold before it counts the tier", async () => {
    const t0 = Date.now();
    const { stub } = await contextWithCapacity({ short: 10 }, t0, "clu");
    const names = Array.from({ length: 10 }, (_, i) => `n${i}`);
    unwrap(await stub.createEntities(names.map(thing), meta));
    unwrap(
      await stub.createRelations(
        names.map((from, i) => ({ from, to: names[(i + 1) % 10] as string, relationType: "next" })),
        meta,
      ),
    );
    // Co-visitation grows during reads without refreshing every partner: here each item has 2 ring neighbours
    // and co-visited pairs (in >= 2 sessions) with the items two steps away, stored sizes stale.
    for (const [i, n] of names.entries()) {
      await sql(stub, "INSERT INTO covisit_pairs (item, other, count, updated_at) VALUES (?, ?, 2, ?)", `entity:${n}`, `entity:${names[(i + 2) % 10]}`, t0);
    }
    await sql(stub, "UPDATE entities SET cluster_size = 0, tier = 'short'");
    expect(await runAlarmAt(stub, t0 + 10 * 60_000)).toBe(true);
    expect(await rows(stub, "SELECT tier, cluster_size, COUNT(*) AS n FROM entities GROUP BY tier, cluster_size")).toEqual([
      { tier: "long", cluster_size: 3, n: 10 },
    ]);
    const [evaluation] = await rows<{ value: string }>(stub, "SELECT value FROM priority_state WHERE key = 'last_evaluation'");
    expect(JSON.parse(evaluation?.value ?? "null")).toMatchObject({ outcome: "within", pruned: 0 });
    expect(await rows(stub, "SELECT COUNT(*) AS n FROM archive")).toEqual([{ n: 0 }]);
  });

  it("undoing a mark decides the tier with the deployment's SEMANTIC_CLUSTER_THRESHOLD", async () => {
    await inObject((instance, db) => {
      const base = instance.config();
      instance.config = () => ({ ...base, SEMANTIC_CLUSTER_THRESHOLD: 2 });
      unwrap(instance.createEntities(["A"].map(thing), meta));
      unwrap(instance.markImportant(["entity:A"], true, meta));
      // A's cluster grew to 2 since the mark (co-visitation, counted at its next read).
      db.run("UPDATE entities SET cluster_size = 2 WHERE name = 'A'");
      unwrap(instance.undo({ count: 1 }, meta));
      // Without the mark A still has a cluster of 2, which this deployment's threshold puts in long term.
      expect(db.one("SELECT important, tier FROM entities WHERE name = 'A'")).toEqual({ important: 0, tier: "long" });
    });
  });
});
