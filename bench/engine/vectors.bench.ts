/**
 * nearest() (src/search/semantic/vectors.ts) timed inside a Durable Object
 * under workerd: an exact scan over N stored int8 vectors of bge-small's 384
 * dimensions, top 20.
 *
 *   npm run bench:vectors                                  (10,000 and 100,000 vectors)
 *   ENGINE_VECTOR_SIZES=1000,50000 npm run bench:vectors   (any sizes; ENGINE_REPEAT too)
 */
import { env, runInDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { normalize } from "../../src/search/semantic/embedder";
import { nearest, storeVector } from "../../src/search/semantic/vectors";
import { Db } from "../../src/storage/sql";
import { timePerRun } from "./timing";

const vars = env as unknown as Record<string, string | undefined>;
const SIZES = (vars.ENGINE_VECTOR_SIZES ?? "10000,100000").split(",").map(Number);
const REPEAT = Number(vars.ENGINE_REPEAT ?? 5);
const DIMS = 384;
const K = 20;

function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

it("times nearest() over stored vectors", async () => {
  for (const size of SIZES) {
    const stub = env.MEMORY.getByName(`bench-vectors-${size}-${Date.now()}`) as DurableObjectStub<MemoryContext>;
    const result = await runInDurableObject(stub, async (_i, state) => {
      const db = new Db(state.storage.sql);
      const next = random(size);
      const vector = () => normalize(Float32Array.from({ length: DIMS }, () => next() * 2 - 1));
      for (let i = 0; i < size; i += 1000) {
        state.storage.transactionSync(() => {
          for (let j = i; j < Math.min(size, i + 1000); j++) storeVector(db, `entity:item-${j}`, "bench", vector(), 0);
        });
      }
      const query = vector();
      let found = nearest(db, query, K, "bench").length; // warm: the first scan compiles the loop and reads pages into the cache
      const ms = await timePerRun(REPEAT, () => {
        found = nearest(db, query, K, "bench").length;
      });
      return { ms, found, bytes: state.storage.sql.databaseSize };
    });
    expect(result.found).toBe(Math.min(K, size));
    console.log(`VECTORS_RESULT ${JSON.stringify({ vectors: size, dims: DIMS, k: K, msPerQuery: result.ms, databaseBytes: result.bytes })}`);
  }
});
