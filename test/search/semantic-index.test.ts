/**
 * The IVF index over stored vectors (src/search/semantic/ivf.ts): recall
 * against the exact scan on seeded clustered vectors (bench/lib/vectors.mjs),
 * lists trained once a context passes the threshold and split as it grows,
 * an existing context's vectors indexed by the alarm, and lists and blocks
 * kept right through delete, rename and undo.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { type AiBinding, embeddingQueued, WorkersAiEmbedder } from "../../src/search/semantic";
import { INDEX_MIN, indexBehind, indexStep, LIST_MAX, lists, nearestList } from "../../src/search/semantic/ivf";
import { nearest, nearestExact } from "../../src/search/semantic/query";
import { readVector, storeVector } from "../../src/search/semantic/vectors";
import { Db } from "../../src/storage/sql";
import { clusteredQueries, clusteredVectors } from "../../bench/lib/vectors.mjs";
import { as, stubOf, unwrap } from "../helpers/context";

const DIMS = 64;
const MODEL = "@cf/test/clustered";
type Stub = DurableObjectStub<MemoryContext>;
let n = 0;
const fresh = (): Stub => stubOf(`semantic-index-${Date.now()}-${n++}`);

/** Runs index steps until the index is caught up (as the alarm does, one transaction each); returns how many. */
function build(db: Db, tx: <T>(fn: () => T) => T, model = MODEL): number {
  let steps = 0;
  while (tx(() => indexBehind(db, model) && indexStep(db, model) !== null)) if (++steps > 500) throw new Error("index never caught up");
  return steps;
}

/** Stores vectors[i] under `${prefix}${i}`, without a list (as before the index, or below its threshold). */
function storeAll(db: Db, prefix: string, vectors: readonly Float32Array[]): void {
  for (const [i, v] of vectors.entries()) storeVector(db, `${prefix}${i}`, MODEL, v, 0);
}

const recallAt = (found: string[], truth: string[], k: number) => found.slice(0, k).filter((x) => truth.slice(0, k).includes(x)).length / k;

interface IndexState {
  lists: number;
  largest: number;
  unlisted: number;
  stale: number;
  /** Whether every list's size matches its members and every fresh block holds exactly them (up to its tail). */
  consistent: boolean;
}

function indexState(db: Db): IndexState {
  const all = db.all<{ id: number; size: number; fresh: number; block_max: number; tail: number; ids: ArrayBuffer | null }>(
    "SELECT id, size, fresh, block_max, tail, (SELECT ids FROM vector_blocks WHERE list = id) AS ids FROM vector_lists",
  );
  let consistent = true;
  for (const l of all) {
    const members = db.all<{ rowid: number }>("SELECT rowid FROM embeddings WHERE list = ? ORDER BY rowid", l.id).map((r) => r.rowid);
    if (members.length !== l.size) consistent = false;
    // A fresh block holds exactly the members up to its last rowid; the rest are its tail.
    const blocked = members.filter((r) => r <= l.block_max);
    if (l.fresh === 1 && JSON.stringify([...new Float64Array(l.ids ?? new ArrayBuffer(0))]) !== JSON.stringify(blocked)) consistent = false;
    if (l.fresh === 1 && members.length - blocked.length !== l.tail) consistent = false;
  }
  return {
    lists: all.length,
    largest: Math.max(0, ...all.map((l) => l.size)),
    unlisted: db.one<{ n: number }>("SELECT count(*) AS n FROM embeddings WHERE list IS NULL")?.n ?? 0,
    stale: all.filter((l) => l.fresh === 0).length,
    consistent,
  };
}

describe("the IVF index", () => {
  it("finds nearly what the exact scan finds on clustered vectors while reading a fraction of them", async () => {
    const size = 6000;
    const vectors = clusteredVectors(size, DIMS, 11);
    const queries = clusteredQueries(size, DIMS, 20, 11);
    const out = await runInDurableObject(fresh(), (_i, state) => {
      const db = new Db(state.storage.sql);
      const tx = <T>(fn: () => T) => state.storage.transactionSync(fn);
      tx(() => storeAll(db, "entity:v", vectors));
      build(db, tx);
      let at10 = 0;
      let at50 = 0;
      let narrow = 0;
      for (const q of queries) {
        const truth = nearestExact(db, q, 50, MODEL).map((x) => x.key);
        const found = nearest(db, q, 50, MODEL).map((x) => x.key);
        at10 += recallAt(found, truth, 10) / queries.length;
        at50 += recallAt(found, truth, 50) / queries.length;
        // A fifth of the vectors: the partition, not the budget, must find them (reading a fifth at random would find about 0.2).
        narrow +=
          recallAt(
            nearest(db, q, 50, MODEL, { probeVectors: size / 5 }).map((x) => x.key),
            truth,
            50,
          ) / queries.length;
      }
      return { at10, at50, narrow, state: indexState(db) };
    });
    expect(out.state).toMatchObject({ unlisted: 0, stale: 0, consistent: true });
    expect(out.state.lists).toBeGreaterThan(5);
    expect(out.at10).toBeGreaterThanOrEqual(0.95);
    expect(out.at50).toBeGreaterThanOrEqual(0.9);
    expect(out.narrow).toBeGreaterThanOrEqual(0.7);
  });

  it("scans exactly below the threshold, trains lists past it, and splits lists as the context grows", async () => {
    const vectors = clusteredVectors(8000, DIMS, 12);
    const out = await runInDurableObject(fresh(), (_i, state) => {
      const db = new Db(state.storage.sql);
      const tx = <T>(fn: () => T) => state.storage.transactionSync(fn);
      // Grown as catchUp stores vectors: each into its nearest list, if any, with the alarm's steps in between.
      const grow = (from: number, to: number) => {
        tx(() => {
          const index = lists(db, MODEL);
          for (let i = from; i < to; i++) storeVector(db, `entity:v${i}`, MODEL, vectors[i] as Float32Array, 0, nearestList(index, vectors[i] as Float32Array));
        });
        build(db, tx);
        return indexState(db);
      };
      const below = grow(0, INDEX_MIN - 1);
      const exactBelow = nearest(db, vectors[7] as Float32Array, 1, MODEL)[0]?.key;
      const past = grow(INDEX_MIN - 1, 3000);
      const grown = grow(3000, 8000);
      const q = clusteredQueries(8000, DIMS, 1, 12)[0] as Float32Array;
      // A vector stored after the blocks were built waits in its list's tail: queries read it from its row.
      const copy = vectors[42] as Float32Array;
      tx(() => storeVector(db, "entity:copy", MODEL, copy, 0, nearestList(lists(db, MODEL), copy)));
      const inTail = { state: indexState(db), near: nearest(db, copy, 2, MODEL).map((x) => x.key) };
      return { below, exactBelow, past, grown, inTail, top: nearest(db, q, 10, MODEL), truth: nearestExact(db, q, 10, MODEL) };
    });
    expect(out.below).toMatchObject({ lists: 0, unlisted: INDEX_MIN - 1 });
    expect(out.exactBelow).toBe("entity:v7");
    expect(out.past).toMatchObject({ unlisted: 0, stale: 0, consistent: true });
    expect(out.past.lists).toBeGreaterThanOrEqual(2);
    expect(out.grown).toMatchObject({ unlisted: 0, stale: 0, consistent: true });
    expect(out.grown.lists).toBeGreaterThan(out.past.lists);
    expect(out.grown.largest).toBeLessThanOrEqual(LIST_MAX);
    expect(
      recallAt(
        out.top.map((x) => x.key),
        out.truth.map((x) => x.key),
        10,
      ),
    ).toBeGreaterThanOrEqual(0.9);
    expect(out.inTail.state).toMatchObject({ stale: 0, consistent: true });
    expect(out.inTail.near.sort()).toEqual(["entity:copy", "entity:v42"]);
  });

  it("splits lists of identical vectors (items with the same text) and of evenly spread ones in halves, so splitting ends", async () => {
    const same = Array.from({ length: 2500 }, () => clusteredVectors(1, DIMS, 15)[0] as Float32Array);
    const spread = Array.from({ length: 4000 }, (_, i) => {
      // Directions with no clusters to find: each a seeded mix of all axes.
      const v = Float32Array.from(
        { length: DIMS },
        (_, d) => Math.sin(i * 12.9898 + d * 78.233) * 43758.5453 - Math.floor(Math.sin(i * 12.9898 + d * 78.233) * 43758.5453) - 0.5,
      );
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    });
    const out = await runInDurableObject(fresh(), (_i, state) => {
      const db = new Db(state.storage.sql);
      const tx = <T>(fn: () => T) => state.storage.transactionSync(fn);
      tx(() => storeAll(db, "entity:same", same));
      build(db, tx);
      const sameState = indexState(db);
      tx(() => db.run("DELETE FROM embeddings"));
      build(db, tx);
      tx(() => storeAll(db, "entity:spread", spread));
      build(db, tx);
      return { sameState, spreadState: indexState(db) };
    });
    for (const s of [out.sameState, out.spreadState]) {
      expect(s).toMatchObject({ unlisted: 0, stale: 0, consistent: true });
      expect(s.largest).toBeLessThanOrEqual(LIST_MAX);
    }
  });

  it("drops a model's lists when the context changes model, and reads a stale list from its rows", async () => {
    const vectors = clusteredVectors(INDEX_MIN + 500, DIMS, 13);
    const out = await runInDurableObject(fresh(), (instance: MemoryContext, state) => {
      const db = new Db(state.storage.sql);
      const tx = <T>(fn: () => T) => state.storage.transactionSync(fn);
      instance.useEmbedder(new WorkersAiEmbedder(new ClusteredAi(vectors), MODEL));
      tx(() => storeAll(db, "doc:v", vectors));
      build(db, tx);
      // A vector changed in place (as a re-embedding does) marks its list stale: a query then reads that list's rows.
      const target = vectors[3] as Float32Array;
      const moved = vectors[4] as Float32Array;
      tx(() => storeVector(db, "doc:v4", MODEL, target, 0, nearestList(lists(db, MODEL), target)));
      const staleRead = nearest(db, target, 2, MODEL).map((x) => x.key);
      const stale = indexState(db).stale;
      build(db, tx);
      const rebuilt = indexState(db);
      const gone = nearest(db, moved, 1, MODEL)[0]?.key;
      instance.useEmbedder(new WorkersAiEmbedder(new ClusteredAi(vectors), "@cf/test/other"));
      return { staleRead, stale, rebuilt, gone, after: indexState(db) };
    });
    expect(out.staleRead.sort()).toEqual(["doc:v3", "doc:v4"]);
    expect(out.stale).toBeGreaterThanOrEqual(1);
    expect(out.rebuilt).toMatchObject({ stale: 0, consistent: true });
    expect(out.gone).not.toBe("doc:v4");
    expect(out.after.lists).toBe(0);
  });
});

/** A fake `AI` binding that gives the text naming `item-N` the N-th seeded vector, so tests know each item's neighbours. */
class ClusteredAi implements AiBinding {
  constructor(private readonly vectors: readonly Float32Array[]) {}
  async run(_model: string, inputs: Record<string, unknown>): Promise<unknown> {
    return {
      data: (inputs.text as string[]).map((t) => {
        const at = Number(/item-(\d+)/.exec(t)?.[1] ?? -1);
        return [...(this.vectors[at] ?? Float32Array.from({ length: DIMS }, (_, i) => (i === 0 ? 1 : 0)))];
      }),
    };
  }
}

describe("the IVF index in a context", () => {
  const count = INDEX_MIN + 400;
  const vectors = clusteredVectors(count, DIMS, 14);
  const entities = Array.from({ length: count }, (_, i) => ({ name: `item-${i}`, entityType: "note", observations: [`note ${i}`] }));
  const state = (stub: Stub) => runInDurableObject(stub, (_i, s) => indexState(new Db(s.storage.sql)));
  const near = (stub: Stub, i: number, k = 1) =>
    runInDurableObject(stub, (_i, s) => nearest(new Db(s.storage.sql), vectors[i] as Float32Array, k, MODEL).map((x) => x.key));
  /** Runs the alarm until the queue is empty and the index caught up. */
  const settle = async (stub: Stub) => {
    for (let i = 0; i < 200; i++) {
      const behind = await runInDurableObject(stub, (_i, s) => {
        const db = new Db(s.storage.sql);
        return embeddingQueued(db) || indexBehind(db, MODEL);
      });
      if (!behind || !(await runDurableObjectAlarm(stub))) return;
    }
  };

  it("is built by the alarm as the context is embedded, and follows delete, rename and undo", async () => {
    const stub = fresh();
    await runInDurableObject(stub, (instance: MemoryContext) => instance.useEmbedder(new WorkersAiEmbedder(new ClusteredAi(vectors), MODEL)));
    unwrap(await stub.createEntities(entities, as("writer")));
    await settle(stub);
    expect(await state(stub)).toMatchObject({ unlisted: 0, stale: 0, consistent: true });
    expect((await state(stub)).lists).toBeGreaterThanOrEqual(2);
    expect(await near(stub, 5)).toEqual(["entity:item-5"]);

    // Delete: the vector leaves its list in the same call (its block is stale until the alarm rebuilds it).
    unwrap(await stub.deleteEntities(["item-5"], as("writer")));
    expect(await near(stub, 5, 3)).not.toContain("entity:item-5");
    expect((await state(stub)).stale).toBe(1);
    await settle(stub);
    expect(await state(stub)).toMatchObject({ stale: 0, consistent: true });
    expect(await near(stub, 5, 3)).not.toContain("entity:item-5");

    // Rename: the vector, its list and its block stay; only the key changes.
    // No tool renames entities yet; the trigger covers any path that does (undo, a later merge).
    await runInDurableObject(stub, (_i, s) => new Db(s.storage.sql).run("UPDATE entities SET name = 'item-6 renamed' WHERE name = 'item-6'"));
    expect(await near(stub, 6)).toEqual(["entity:item-6 renamed"]);
    expect((await state(stub)).consistent).toBe(true);

    // Undo of the delete: the item is queued again, embedded by the alarm into its nearest list.
    unwrap(await stub.undo({ change: 2 }, as("writer", "undo")));
    await settle(stub);
    expect(await near(stub, 5)).toEqual(["entity:item-5"]);
    expect(await state(stub)).toMatchObject({ unlisted: 0, stale: 0, consistent: true });
  });

  it("indexes an existing context's vectors once its object starts with the model", async () => {
    const stub = fresh();
    // As a context embedded before the index existed: every vector stored without a list.
    await runInDurableObject(stub, (instance: MemoryContext, s) => {
      instance.useEmbedder(new WorkersAiEmbedder(new ClusteredAi(vectors), MODEL));
      const db = new Db(s.storage.sql);
      s.storage.transactionSync(() => {
        storeAll(db, "entity:item-", vectors);
        db.run("DELETE FROM embed_queue");
      });
    });
    expect(await state(stub)).toMatchObject({ lists: 0, unlisted: count });
    // Before the index, a query scans exactly.
    expect(await near(stub, 9)).toEqual(["entity:item-9"]);
    // The object starting again with the same model asks the alarm to build it.
    await runInDurableObject(stub, async (instance: MemoryContext, s) => {
      await s.storage.deleteAlarm();
      instance.useEmbedder(new WorkersAiEmbedder(new ClusteredAi(vectors), MODEL));
      expect(await s.storage.getAlarm()).not.toBeNull();
    });
    await settle(stub);
    expect(await state(stub)).toMatchObject({ unlisted: 0, stale: 0, consistent: true });
    expect(await near(stub, 9)).toEqual(["entity:item-9"]);
    const v = await runInDurableObject(stub, (_i, s) => readVector(new Db(s.storage.sql), "entity:item-9"));
    expect(v?.model).toBe(MODEL);
  });
});
