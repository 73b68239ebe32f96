/** Stored vectors: int8 quantization's error, and nearest() against a brute-force float ranking. */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { normalize } from "../../src/search/semantic/embedder";
import { UNLISTED_SCAN_MAX } from "../../src/search/semantic/ivf";
import { nearest, nearestExact } from "../../src/search/semantic/query";
import { quantize, similarity, storeVector } from "../../src/search/semantic/vectors";
import { Db } from "../../src/storage/sql";
import { stubOf } from "../helpers/context";
import { prng } from "../../bench/lib/generate.mjs";

const unitVector = (next: () => number, dims: number) => normalize(Float32Array.from({ length: dims }, () => next() * 2 - 1));
const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * (b[i] as number), 0);

let n = 0;
const withDb = <T>(fn: (db: Db) => T) => runInDurableObject(stubOf(`vectors-${Date.now()}-${n++}`), (_i: MemoryContext, state) => fn(new Db(state.storage.sql)));

describe("int8 vectors", () => {
  it("keep a query's cosine with a stored vector within 0.01 at 384 dimensions", () => {
    const next = prng(1);
    let worst = 0;
    for (let i = 0; i < 500; i++) {
      const a = unitVector(next, 384);
      const b = unitVector(next, 384);
      const { scale, bytes } = quantize(b);
      worst = Math.max(worst, Math.abs(similarity(a, scale, bytes) - dot(a, b)));
    }
    expect(worst).toBeLessThan(0.01);
    expect(worst).toBeGreaterThan(0);
  });

  it("store a zero vector as zeros", () => {
    const { bytes } = quantize(new Float32Array(4));
    expect([...bytes]).toEqual([0, 0, 0, 0]);
  });
});

describe("nearest", () => {
  it("returns the k most similar of the model's vectors, best first, as a float ranking would", async () => {
    const next = prng(7);
    const stored = Array.from({ length: 300 }, (_, i) => ({ key: `entity:e${i}`, vector: unitVector(next, 32) }));
    const query = unitVector(next, 32);
    const found = await withDb((db) => {
      for (const s of stored) storeVector(db, s.key, "m", s.vector, 0);
      storeVector(db, "entity:other-model", "m2", query, 0);
      return nearest(db, query, 10, "m");
    });
    const exact = stored.map((s) => ({ key: s.key, similarity: dot(query, s.vector) })).sort((a, b) => b.similarity - a.similarity);
    expect(found).toHaveLength(10);
    expect(found.map((f) => f.key)).not.toContain("entity:other-model");
    for (let i = 0; i < 10; i++) {
      expect(found[i]?.similarity).toBeCloseTo(exact[i]?.similarity as number, 1);
      if (i > 0) expect(found[i]?.similarity).toBeLessThanOrEqual(found[i - 1]?.similarity as number);
    }
    // The int8 ranking may swap near-ties only: every one found is among the float ranking's best 13.
    const top = new Set(exact.slice(0, 13).map((e) => e.key));
    for (const f of found) expect(top.has(f.key)).toBe(true);
  });

  it("finds the stored vector itself first, orders ties by key, keeps the first stored of a tie at the cut, and returns fewer than k when fewer are stored", async () => {
    const v = normalize(Float32Array.from([1, 2, 3, 4]));
    const w = normalize(Float32Array.from([4, 3, 2, 1]));
    const found = await withDb((db) => {
      storeVector(db, "doc:b", "m", v, 0);
      storeVector(db, "doc:a", "m", v, 0);
      storeVector(db, "file:w", "m", w, 0);
      return { three: nearest(db, v, 5, "m"), one: nearest(db, v, 1, "m"), none: nearest(db, v, 0, "m"), lexical: nearest(db, v, 5) };
    });
    expect(found.three.map((f) => f.key)).toEqual(["doc:a", "doc:b", "file:w"]);
    expect(found.three[0]?.similarity).toBeCloseTo(1, 2);
    expect(found.one.map((f) => f.key)).toEqual(["doc:b"]);
    expect(found.none).toEqual([]);
    // By default the context's model: a context in lexical mode has none, so nothing is near.
    expect(found.lexical).toEqual([]);
  });

  it("reads only the newest UNLISTED_SCAN_MAX vectors of a context that has no index yet", async () => {
    const v = normalize(Float32Array.from([1, 0, 0, 0]));
    const w = normalize(Float32Array.from([0, 1, 0, 0]));
    const found = await withDb((db) => {
      storeVector(db, "entity:old", "m", v, 0);
      const first = nearest(db, v, 1, "m");
      for (let i = 0; i < UNLISTED_SCAN_MAX; i++) storeVector(db, `entity:new${i}`, "m", w, 0);
      return { first, later: nearest(db, v, 1, "m"), exact: nearestExact(db, v, 1, "m") };
    });
    expect(found.first.map((f) => f.key)).toEqual(["entity:old"]);
    expect(found.later[0]?.key).not.toBe("entity:old");
    expect(found.exact.map((f) => f.key)).toEqual(["entity:old"]);
  });
});
