/**
 * Access tracking (src/priority/track.ts through the access hook): what each
 * retrieval does to an item's use, relevance, tier and priority, that writes
 * are not retrievals, the promotion rules, the priority's factors as they
 * come out of real access patterns, and the ranking change that follows.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { DEFAULT_ACCESS_OPTIONS } from "../../src/context/access";
import { MAX_PENDING, PendingAccesses, WRITE_DELAY_MS } from "../../src/context/pending";
import { Db } from "../../src/storage/sql";
import { DAY_MS, RELEVANCE_CAP, RELEVANCE_STEP } from "../../src/priority/model";
import { parseCategoryWeights } from "../../src/priority/weights";
import { settings, SettingsError } from "../../src/settings";
import { as, stubOf, unwrap } from "../helpers/context";
import { CLIENTS, freshContext, json } from "../helpers/clients";
import { api, connectAs, createContext, mint } from "../helpers/teams";
import { manualTimers, type ManualTimers } from "../helpers/timers";

const meta = as("tester");
const T0 = Date.UTC(2026, 5, 1);

interface ItemRow extends Record<string, SqlStorageValue> {
  access_count: number;
  uses: number;
  last_accessed_at: number | null;
  base_relevance: number;
  tier: string;
  cluster_size: number;
  category: string;
  important: number;
}

const COLS = "access_count, uses, last_accessed_at, base_relevance, tier, cluster_size, category, important";
const rowOf = (db: Db, table: "entities" | "files" | "documents", key: "name" | "path" | "id", value: string) =>
  db.one<ItemRow>(`SELECT ${COLS} FROM ${table} WHERE ${key} = ?`, value);
const entity = (db: Db, name: string) => rowOf(db, "entities", "name", name);

/**
 * Runs `fn` on a fresh context's object with its clock at T0 and its timers
 * in the test's hands: searches' hits are recorded WRITE_DELAY_MS after the
 * first (src/context/pending.ts) once `timers.advance` gets there.
 */
async function inObject<T>(fn: (instance: MemoryContext, db: Db, ctx: string, timers: ManualTimers) => T): Promise<T> {
  const ctx = freshContext("prio");
  return runInDurableObject(stubOf(ctx), (instance: MemoryContext, state) => {
    instance.now = () => T0;
    const timers = manualTimers();
    instance.schedule = timers.schedule;
    return fn(instance, new Db(state.storage.sql), ctx, timers);
  });
}

const thing = (name: string, observations: string[] = ["plain note"]) => ({ name, entityType: "thing", observations });

describe("access tracking", () => {
  it("counts an open as a direct use: count, uses, last access, relevance step, short to mid", async () => {
    await inObject(async (instance, db) => {
      unwrap(instance.createEntities([thing("alpha")], meta));
      expect(entity(db, "alpha")).toMatchObject({ access_count: 0, uses: 0, last_accessed_at: null, base_relevance: 1, tier: "short" });
      instance.now = () => T0 + 1000;
      unwrap(instance.openNodes(["alpha", "alpha", "missing"], meta));
      expect(entity(db, "alpha")).toMatchObject({ access_count: 1, uses: 1, last_accessed_at: T0 + 1000, tier: "mid" });
      expect(entity(db, "alpha")?.base_relevance).toBeCloseTo(1 + RELEVANCE_STEP, 10);
    });
  });

  it("counts a search hit as a quarter use, for every entity a search returns", async () => {
    await inObject(async (instance, db, _ctx, timers) => {
      unwrap(instance.createEntities([thing("kafka-broker", ["streams events"]), thing("billing", ["uses kafka"]), thing("other")], meta));
      unwrap(instance.createRelations([{ from: "kafka-broker", to: "billing", relationType: "feeds" }], meta));
      // The write counts both ends' clusters; make the stored size stale to see who refreshes it.
      expect(entity(db, "billing")?.cluster_size).toBe(1);
      db.run("UPDATE entities SET cluster_size = 0");
      const found = unwrap(await instance.searchNodes("kafka", { topPerToken: 2, minRelativeScore: 0 }, meta));
      expect(found.entities.map((e) => e.name).sort()).toEqual(["billing", "kafka-broker"]);
      // The search itself wrote nothing: its hits are recorded just after it answers.
      expect(entity(db, "billing")).toMatchObject({ access_count: 0, uses: 0 });
      timers.advance(WRITE_DELAY_MS);
      for (const name of ["kafka-broker", "billing"]) {
        expect(entity(db, name)).toMatchObject({ access_count: 1, uses: 0.25, last_accessed_at: T0, tier: "mid" });
        expect(entity(db, name)?.base_relevance).toBeCloseTo(1 + RELEVANCE_STEP * 0.25, 10);
      }
      expect(entity(db, "other")).toMatchObject({ access_count: 0, uses: 0, tier: "short" });
      // A search hit keeps the stored cluster size (cheap on the hot path); a direct retrieval refreshes it.
      expect(entity(db, "billing")?.cluster_size).toBe(0);
      unwrap(instance.openNodes(["billing"], meta));
      expect(entity(db, "billing")?.cluster_size).toBe(1);
    });
  });

  it("writes a run of searches' hits together after the delay; a search neither writes nor sees earlier hits", async () => {
    await inObject(async (instance, db, _ctx, timers) => {
      const start = T0;
      unwrap(instance.createEntities([thing("gamma-ray", ["telescope data"])], meta));
      for (let i = 1; i <= 3; i++) {
        instance.now = () => start + i;
        unwrap(await instance.searchNodes("gamma", {}, meta));
        // Not even the earlier searches' hits: the search did not write them first.
        expect(entity(db, "gamma-ray")).toMatchObject({ access_count: 0, uses: 0 });
      }
      timers.advance(WRITE_DELAY_MS - 1);
      expect(entity(db, "gamma-ray")).toMatchObject({ access_count: 0 });
      timers.advance(1);
      // One batch, each search with its own time: the last one's is the last access.
      expect(entity(db, "gamma-ray")).toMatchObject({ access_count: 3, uses: 0.75, last_accessed_at: start + 3 });
    });
  });

  it(`writes the batch at once when ${MAX_PENDING} searches' hits are waiting`, async () => {
    await runInDurableObject(stubOf(freshContext("prio")), async (instance: MemoryContext, state) => {
      unwrap(instance.createEntities([thing("delta-wing")], meta));
      const db = new Db(state.storage.sql);
      // Its own queue, on timers that move only when told: only a full batch is written without waiting.
      const timers = manualTimers();
      const pending = new PendingAccesses(db, (fn) => state.storage.transactionSync(fn), timers.schedule);
      const search = { accesses: [{ item: "entity:delta-wing", kind: "search" as const }], now: T0, meta, options: DEFAULT_ACCESS_OPTIONS };
      for (let i = 0; i < MAX_PENDING - 1; i++) pending.add(search);
      timers.advance(0);
      expect(entity(db, "delta-wing")).toMatchObject({ access_count: 0 });
      pending.add(search);
      timers.advance(0);
      expect(entity(db, "delta-wing")).toMatchObject({ access_count: MAX_PENDING });
      expect(timers.waiting()).toBe(0);
    });
  });

  it("does not count writes: creating, editing and relating items leave their use at zero", async () => {
    await inObject(async (instance, db) => {
      unwrap(instance.createEntities([thing("a"), thing("b")], meta));
      unwrap(instance.addObservations([{ entityName: "a", contents: ["more"] }], meta));
      unwrap(instance.createRelations([{ from: "a", to: "b", relationType: "knows" }], meta));
      unwrap(instance.createFile("notes/x.md", "hello", false, meta));
      unwrap(instance.strReplace("notes/x.md", "hello", "hello there", meta));
      unwrap(instance.updateDocument("root", "# Root\n\n[[plan]]", meta));
      for (const row of [entity(db, "a"), entity(db, "b"), rowOf(db, "files", "path", "notes/x.md"), rowOf(db, "documents", "id", "plan")]) {
        expect(row).toMatchObject({ access_count: 0, uses: 0, last_accessed_at: null, base_relevance: 1, tier: "short" });
      }
    });
  });

  it("tracks files on view and documents on read (direct) and on search (a quarter)", async () => {
    await inObject(async (instance, db, _ctx, timers) => {
      unwrap(instance.createFile("notes/x.md", "quarterly numbers", false, meta));
      unwrap(instance.viewFile("/notes/x.md", undefined, meta));
      expect(rowOf(db, "files", "path", "notes/x.md")).toMatchObject({ access_count: 1, uses: 1, last_accessed_at: T0, tier: "mid" });
      unwrap(instance.updateDocument("root", "# Root\n\nquarterly plan", meta));
      unwrap(instance.readDocument("root", meta));
      unwrap(instance.searchDocuments("quarterly", 10, meta));
      timers.advance(WRITE_DELAY_MS);
      expect(rowOf(db, "documents", "id", "root")).toMatchObject({ access_count: 2, uses: 1.25, tier: "mid" });
    });
  });

  it("caps base relevance at 2.0", async () => {
    await inObject(async (instance, db) => {
      unwrap(instance.createEntities([thing("hot")], meta));
      const opens = Math.ceil((RELEVANCE_CAP - 1) / RELEVANCE_STEP) + 5;
      for (let i = 0; i < opens; i++) unwrap(instance.openNodes(["hot"], meta));
      expect(entity(db, "hot")).toMatchObject({ access_count: opens, uses: opens, base_relevance: RELEVANCE_CAP, tier: "long" });
    });
  });

  it("updates every item of a large call (chunked statements), each once", async () => {
    await inObject(async (instance, db) => {
      const names = Array.from({ length: 250 }, (_, i) => `n${i}`);
      unwrap(
        instance.createEntities(
          names.map((n) => thing(n)),
          meta,
        ),
      );
      unwrap(instance.openNodes([...names, ...names.slice(0, 10)], meta));
      expect(db.one<{ n: number; total: number }>("SELECT COUNT(*) AS n, SUM(access_count) AS total FROM entities WHERE tier = 'mid'")).toEqual({
        n: 250,
        total: 250,
      });
    });
  });
});

describe("promotion to long term", () => {
  it("promotes on the fifth retrieval, not before", async () => {
    await inObject(async (instance, db) => {
      unwrap(instance.createEntities([thing("five")], meta));
      for (let i = 1; i <= 4; i++) unwrap(instance.openNodes(["five"], meta));
      expect(entity(db, "five")?.tier).toBe("mid");
      unwrap(instance.openNodes(["five"], meta));
      expect(entity(db, "five")).toMatchObject({ access_count: 5, tier: "long" });
    });
  });

  it("counts search hits towards the five retrievals", async () => {
    await inObject(async (instance, db) => {
      unwrap(instance.createEntities([thing("zebrafish", ["model organism"])], meta));
      for (let i = 0; i < 5; i++) unwrap(await instance.searchNodes("zebrafish", {}, meta));
      // Any other call records what is pending before it runs, without waiting for the timer: a read...
      expect(unwrap(instance.memoryStats(meta)).byTier.long).toBe(1);
      expect(entity(db, "zebrafish")).toMatchObject({ access_count: 5, uses: 1.25, tier: "long" });
      // ...and a write.
      unwrap(await instance.searchNodes("zebrafish", {}, meta));
      unwrap(instance.createEntities([thing("unrelated")], meta));
      expect(entity(db, "zebrafish")).toMatchObject({ access_count: 6, uses: 1.5 });
    });
  });

  it("leaves search hits pending across read_graph, whose answer uses no statistics", async () => {
    await inObject(async (instance, db) => {
      unwrap(instance.createEntities([thing("axolotl", ["salamander"])], meta));
      unwrap(await instance.searchNodes("axolotl", {}, meta));
      expect(unwrap(instance.readGraph({ limit: 5 }, meta)).entities.map((e) => e.name)).toEqual(["axolotl"]);
      expect(entity(db, "axolotl")).toMatchObject({ access_count: 0 });
      // The next call that reads statistics still sees the hit.
      unwrap(instance.memoryStats(meta));
      expect(entity(db, "axolotl")).toMatchObject({ access_count: 1, uses: 0.25 });
    });
  });

  it("promotes a marked item at once", async () => {
    await inObject(async (instance, db) => {
      unwrap(instance.createEntities([thing("marked")], meta));
      unwrap(instance.markImportant(["entity:marked"], true, meta));
      expect(entity(db, "marked")).toMatchObject({ important: 1, tier: "long", access_count: 0 });
    });
  });

  it("promotes an item with a cluster of three related items on its next retrieval", async () => {
    await inObject(async (instance, db) => {
      unwrap(instance.createEntities([thing("hub"), thing("r1"), thing("r2"), thing("r3"), thing("pair"), thing("p1"), thing("p2")], meta));
      unwrap(
        instance.createRelations(
          [
            { from: "hub", to: "r1", relationType: "has" },
            { from: "r2", to: "hub", relationType: "uses" },
            { from: "hub", to: "r3", relationType: "has" },
            { from: "pair", to: "p1", relationType: "has" },
            { from: "pair", to: "p2", relationType: "has" },
          ],
          meta,
        ),
      );
      unwrap(instance.openNodes(["hub", "pair"], meta));
      expect(entity(db, "hub")).toMatchObject({ cluster_size: 3, tier: "long", access_count: 1 });
      expect(entity(db, "pair")).toMatchObject({ cluster_size: 2, tier: "mid" });
    });
  });
});

describe("priority from access patterns", () => {
  const priorityOf = (instance: MemoryContext, name: string) => unwrap(instance.entityStats([name]))[0]?.priority ?? Number.NaN;

  it("rises with use, falls with age, and gets a recency boost from the last access, not from creation", async () => {
    await inObject(async (instance) => {
      unwrap(instance.createEntities([thing("used"), thing("idle")], meta));
      expect(priorityOf(instance, "used")).toBe(priorityOf(instance, "idle"));
      for (let i = 0; i < 3; i++) unwrap(instance.openNodes(["used"], meta));
      expect(priorityOf(instance, "used")).toBeGreaterThan(3 * priorityOf(instance, "idle"));
      instance.now = () => T0 + 28 * DAY_MS;
      // Four weeks on: the idle item's frequency is a fifth of what it was; no recency boost without an access.
      expect(priorityOf(instance, "idle")).toBeCloseTo(1 / 5, 3);
      const stale = priorityOf(instance, "used");
      unwrap(instance.openNodes(["used"], meta));
      expect(priorityOf(instance, "used")).toBeGreaterThan(stale);
    });
  });

  it("weighs categories 2.0 / 1.8 / 1.7 / 1.0 / 1.0 by default and as MEMORY_CATEGORY_WEIGHTS says", async () => {
    await inObject(async (instance) => {
      const categories = ["personal", "technical", "project", "casual", "general"] as const;
      unwrap(
        instance.createEntities(
          categories.map((category) => ({ ...thing(`c-${category}`), category })),
          meta,
        ),
      );
      expect(categories.map((c) => priorityOf(instance, `c-${c}`))).toEqual([2, 1.8, 1.7, 1, 1]);
      const base = instance.config();
      instance.config = () => ({ ...base, MEMORY_CATEGORY_WEIGHTS: { ...base.MEMORY_CATEGORY_WEIGHTS, casual: 0.5, personal: 3 } });
      expect(categories.map((c) => priorityOf(instance, `c-${c}`))).toEqual([3, 1.8, 1.7, 0.5, 1]);
    });
  });

  it("doubles the priority of a marked item, and halves it back when unmarked", async () => {
    await inObject(async (instance) => {
      unwrap(instance.createEntities([thing("star")], meta));
      unwrap(instance.openNodes(["star"], meta));
      const before = priorityOf(instance, "star");
      unwrap(instance.markImportant(["entity:star"], true, meta));
      expect(priorityOf(instance, "star")).toBeCloseTo(2 * before, 3);
      unwrap(instance.markImportant(["entity:star"], false, meta));
      expect(priorityOf(instance, "star")).toBeCloseTo(before, 3);
    });
  });
});

describe("ranking", () => {
  it("moves an entity up the search results after repeated access", async () => {
    await inObject(async (instance) => {
      unwrap(instance.createEntities([thing("first-kafka", ["handles kafka events"]), thing("second-kafka", ["handles kafka events"])], meta));
      const order = async () => unwrap(await instance.searchNodes("kafka", { topPerToken: 2, minRelativeScore: 0 }, meta)).entities.map((e) => e.name);
      expect(await order()).toEqual(["first-kafka", "second-kafka"]);
      for (let i = 0; i < 3; i++) unwrap(instance.openNodes(["second-kafka"], meta));
      expect(await order()).toEqual(["second-kafka", "first-kafka"]);
    });
  });
});

describe.each(CLIENTS)("a read-only context with %s client", (_label, connect) => {
  it("still records the accesses of its reads", async () => {
    const ctx = freshContext("ro");
    await createContext(ctx);
    const writer = await connectAs(connect, (await mint([{ context: ctx, role: "write" }])).token, `/mcp/${ctx}`);
    await writer.call("create_entities", { entities: [thing("frozen", ["kept as is"])] });
    await writer.call("create", { path: "notes/frozen.md", file_text: "kept as is" });
    await writer.close();
    expect((await api(`/contexts/${ctx}`, { method: "PATCH", json: { readOnly: true } })).status).toBe(200);

    const reader = await connectAs(connect, (await mint([{ context: ctx, role: "write" }])).token, `/mcp/${ctx}`);
    expect((await reader.call("create_entities", { entities: [thing("refused")] })).isError).toBe(true);
    const opened = await reader.call("open_nodes", { names: ["frozen"] });
    expect(opened.isError).toBeFalsy();
    expect(json<{ entities: { name: string }[] }>(opened).entities.map((e) => e.name)).toEqual(["frozen"]);
    expect((await reader.call("search_nodes", { query: "frozen" })).isError).toBeFalsy();
    expect((await reader.call("view", { path: "notes/frozen.md" })).isError).toBeFalsy();
    await reader.close();

    await runInDurableObject(stubOf(ctx), (_i: MemoryContext, state) => {
      const db = new Db(state.storage.sql);
      expect(entity(db, "frozen")).toMatchObject({ access_count: 2, uses: 1.25, tier: "mid" });
      expect(rowOf(db, "files", "path", "notes/frozen.md")).toMatchObject({ access_count: 1, uses: 1, tier: "mid" });
    });
  });
});

describe("MEMORY_CATEGORY_WEIGHTS", () => {
  it("overrides the named categories and keeps the others", () => {
    const parsed = parseCategoryWeights(" personal=3, casual = 0.5 ");
    expect(parsed).toEqual({ ok: true, weights: { personal: 3, technical: 1.8, project: 1.7, casual: 0.5, general: 1 } });
  });

  it.each([
    ["personal", "write category=weight"],
    ["work=2", '"work" is not a category; known: personal, technical, project, casual, general'],
    ["personal=0", "above 0 and at most 10"],
    ["personal=abc", "above 0 and at most 10"],
    ["personal=2,personal=3", "personal is given twice"],
  ])("rejects %j naming the problem", (value, message) => {
    expect(() => settings({ MEMORY_CATEGORY_WEIGHTS: value } as unknown as Env)).toThrow(SettingsError);
    expect(() => settings({ MEMORY_CATEGORY_WEIGHTS: value } as unknown as Env)).toThrow(message);
    expect(() => settings({ MEMORY_CATEGORY_WEIGHTS: value } as unknown as Env)).toThrow("MEMORY_CATEGORY_WEIGHTS");
  });
});
