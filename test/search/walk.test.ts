/**
 * The walk's relation budget (src/search/walk.ts connect, MAX_WALK_EDGES):
 * a level the budget cuts short ends the walk and the paths found so far
 * stand, and on the last level the seeks between hubs come before the scans,
 * so a cut falls on the scans. Run on the object's own database with a small
 * budget instead of a graph of thousands of relations.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { Db } from "../../src/storage/sql";
import { connect, HUB_DEGREE, MAX_WALK_EDGES } from "../../src/search/walk";
import { as, stubOf, unwrap } from "../helpers/context";
import { freshContext } from "../helpers/clients";

const meta = as("tester");

/** Builds the graph in a fresh object, then runs `fn` with a name -> id lookup and the path renderer. */
async function inGraph(
  names: string[],
  relations: [string, string][],
  fn: (walk: (entries: string[], maxPathLength: number, budget: number, hubListMax?: number) => string[][]) => void,
): Promise<void> {
  await runInDurableObject(stubOf(freshContext("walk")), (instance: MemoryContext, state) => {
    unwrap(
      instance.createEntities(
        names.map((name) => ({ name, entityType: "node", observations: ["plain"] })),
        meta,
      ),
    );
    unwrap(
      instance.createRelations(
        relations.map(([from, to]) => ({ from, to, relationType: "rel" })),
        meta,
      ),
    );
    const db = new Db(state.storage.sql);
    const ids = new Map(db.all<{ id: number; name: string }>("SELECT id, name FROM entities").map((r) => [r.name, r.id]));
    const byId = new Map([...ids].map(([name, id]) => [id, name]));
    fn((entries, maxPathLength, budget, hubListMax) =>
      connect(
        db,
        entries.map((n) => ids.get(n) as number),
        maxPathLength,
        budget,
        hubListMax,
      ).map((p) => p.nodes.map((id) => byId.get(id) as string)),
    );
  });
}

const spokes = (hub: string, n = HUB_DEGREE + 6) => Array.from({ length: n }, (_, i) => `${hub}-spoke-${i}`);

describe("the walk's relation budget", () => {
  it("keeps the paths found before a hub exhausts the budget, and ends the walk where the budget runs out", async () => {
    // start - finish directly; start - hub (70 spokes) - x - y - far.
    const hub = spokes("hub");
    await inGraph(
      ["start", "finish", "hub", "x", "y", "far", ...hub],
      [["start", "finish"], ["start", "hub"], ["hub", "x"], ["x", "y"], ["y", "far"], ...hub.map((s): [string, string] => [s, "hub"])],
      (walk) => {
        // The first level reads start's two relations and finish's one and finds start - finish;
        // the hub's 72 relations on the next level do not fit in what is left of 20: that path stands.
        expect(walk(["start", "finish"], 5, 20)).toEqual([["start", "finish"]]);
        expect(walk(["start", "finish"], 5, 3)).toEqual([["start", "finish"]]);
        // start - far is 4 hops, through the hub: found with the budget, not when the first level
        // (start's two relations and far's one) uses it all.
        expect(walk(["start", "far"], 4, MAX_WALK_EDGES)).toEqual([["start", "hub", "x", "y", "far"]]);
        expect(walk(["start", "far"], 4, 3)).toEqual([]);
      },
    );
  });

  it("seeks the relation between two hubs before scanning the frontier, so a cut falls on the scans", async () => {
    // start - a1 - {a2 hub, a3, a4, a5} and finish - b1 - {b2 hub, b3, b4}, b3 - b4 within the b region,
    // and the bridge a2 - b2: the only 5-hop path, found on the last level.
    const hubs = [...spokes("a2"), ...spokes("b2")];
    await inGraph(
      ["start", "finish", "a1", "a2", "a3", "a4", "a5", "b1", "b2", "b3", "b4", ...hubs],
      [
        ["start", "a1"],
        ["finish", "b1"],
        ...["a2", "a3", "a4", "a5"].map((n): [string, string] => ["a1", n]),
        ...["b2", "b3", "b4"].map((n): [string, string] => [n, "b1"]),
        ["b3", "b4"],
        ["a2", "b2"],
        ...hubs.map((s): [string, string] => [s, s.slice(0, 2)]),
      ],
      (walk) => {
        const path = ["start", "a1", "a2", "b2", "b1", "finish"];
        // Hubs read whole from their index (2 here), or looked up per frontier node when there are more than hubListMax.
        for (const hubListMax of [undefined, 1]) {
          // Levels 0 and 1 read 2 + 9 relations; the last level's budget is what is left.
          expect(walk(["start", "finish"], 5, MAX_WALK_EDGES, hubListMax)).toEqual([path]);
          expect(walk(["start", "finish"], 5, 11, hubListMax)).toEqual([]);
          // One relation left: the seek between the hubs comes first (the scan of b3 and b4 would return b3 - b4).
          expect(walk(["start", "finish"], 5, 12, hubListMax)).toEqual([path]);
        }
      },
    );
  });

  it("finds a bridge from the hub outside the largest region, sought pair by pair or scanned when its relations are few next to the seeks", async () => {
    // start - a1 - {a2 hub, a3 ... } and finish - b1 - {b2 hub, b3, b4}; the bridge a3 - b2 is the only 5-hop path.
    // b2 has 72 relations: with 2 ordinary nodes in start's region it is sought (4 seeks), with 6 it is scanned.
    for (const ordinary of [2, 6]) {
      const aNodes = Array.from({ length: ordinary }, (_, i) => `a${i + 3}`);
      const hubs = [...spokes("a2"), ...spokes("b2")];
      await inGraph(
        ["start", "finish", "a1", "a2", ...aNodes, "b1", "b2", "b3", "b4", ...hubs],
        [
          ["start", "a1"],
          ["finish", "b1"],
          ...["a2", ...aNodes].map((n): [string, string] => ["a1", n]),
          ...["b2", "b3", "b4"].map((n): [string, string] => [n, "b1"]),
          ["b3", "b4"],
          ["a3", "b2"],
          ...hubs.map((s): [string, string] => [s, s.slice(0, 2)]),
        ],
        (walk) => expect(walk(["start", "finish"], 5, MAX_WALK_EDGES)).toEqual([["start", "a1", "a3", "b2", "b1", "finish"]]),
      );
    }
  });

  it("finds a bridge from either of two hubs outside the largest region: the one with fewer relations scanned, the other sought or scanned too", async () => {
    // start - a1 - {a3 ... a12} and finish - b1 - {b2 hub, b3 hub, b4}; the bridge a3 - (b2 or b3) is the only 5-hop path.
    // b2 has 71 relations, b3 72 (plus the bridge's): with 10 ordinary nodes in start's region both fit in the
    // scans that skipping that region saves (8 x 2 x 10); with 4 only b2 does and b3 is sought pair by pair.
    for (const [ordinary, via] of [
      [10, "b2"],
      [10, "b3"],
      [4, "b2"],
      [4, "b3"],
    ] as const) {
      const aNodes = Array.from({ length: ordinary }, (_, i) => `a${i + 3}`);
      const hubs = [...spokes("b2", HUB_DEGREE + 5), ...spokes("b3")];
      await inGraph(
        ["start", "finish", "a1", ...aNodes, "b1", "b2", "b3", "b4", ...hubs],
        [
          ["start", "a1"],
          ["finish", "b1"],
          ...aNodes.map((n): [string, string] => ["a1", n]),
          ...["b2", "b3", "b4"].map((n): [string, string] => [n, "b1"]),
          ["a3", via],
          ...hubs.map((s): [string, string] => [s, s.slice(0, 2)]),
        ],
        (walk) => expect(walk(["start", "finish"], 5, MAX_WALK_EDGES)).toEqual([["start", "a1", "a3", via, "b1", "finish"]]),
      );
    }
  });

  it("reads the hubs and their degrees from their partial index, whose condition matches HUB_DEGREE", async () => {
    await runInDurableObject(stubOf(freshContext("walk")), (_instance: MemoryContext, state) => {
      const plan = new Db(state.storage.sql).all<{ detail: string }>(
        `EXPLAIN QUERY PLAN SELECT entity_id, degree FROM search_entity_stats WHERE degree > ${HUB_DEGREE}`,
      );
      expect(plan.map((r) => r.detail).join("; ")).toMatch(/USING (COVERING )?INDEX search_hubs/);
    });
  });
});
