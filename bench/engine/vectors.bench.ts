/**
 * nearest() (src/search/semantic/vectors.ts) timed inside a Durable Object
 * under workerd: an exact scan over N stored int8 vectors of bge-small's 384
 * dimensions, top 20.
 *
 *   npm run bench:vectors                                  (10,000 and 100,000 vectors)
 *   ENGINE_VECTOR_SIZES=1000,50000 npm run bench:vectors   (any sizes; ENGINE_REPEAT too)
 *
 * Then what semantic mode costs a write: batches of 1,000 new entities of 3
 * observations each, written in lexical mode and in hybrid mode (an embedder
 * set, over a binding the write never calls: the triggers queue the items),
 * alternating between two fresh contexts, ENGINE_WRITE_BATCHES batches each.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { normalize, WorkersAiEmbedder } from "../../src/search/semantic/embedder";
import { nearest, storeVector } from "../../src/search/semantic/vectors";
import { Db } from "../../src/storage/sql";
import { knob, sizesFrom, timePerRun } from "./timing";
import { prng } from "../lib/generate.mjs";

const SIZES = sizesFrom("10000,100000", "ENGINE_VECTOR_SIZES");
const REPEAT = knob("ENGINE_REPEAT", 5);
const WRITE_BATCHES = knob("ENGINE_WRITE_BATCHES", 10);
const DIMS = 384;
const K = 20;

it("times nearest() over stored vectors", async () => {
  for (const size of SIZES) {
    const stub = env.MEMORY.getByName(`bench-vectors-${size}-${Date.now()}`) as DurableObjectStub<MemoryContext>;
    const result = await runInDurableObject(stub, async (_i, state) => {
      const db = new Db(state.storage.sql);
      const next = prng(size);
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

it("times writes in lexical and in hybrid mode", async () => {
  // The alarm embeds between batches (outside the timed writes): small vectors, answered at once.
  const fake = { run: async (_model: string, inputs: Record<string, unknown>) => ({ data: (inputs.text as string[]).map((t) => [t.length, 1, 2, 3]) }) };
  const stamp = Date.now();
  const contexts = {
    lexical: env.MEMORY.getByName(`bench-writes-lexical-${stamp}`) as DurableObjectStub<MemoryContext>,
    hybrid: env.MEMORY.getByName(`bench-writes-hybrid-${stamp}`) as DurableObjectStub<MemoryContext>,
  };
  await runInDurableObject(contexts.hybrid, (instance: MemoryContext) => instance.useEmbedder(new WorkersAiEmbedder(fake, "@cf/bench/fake")));
  const ms: Record<keyof typeof contexts, number[]> = { lexical: [], hybrid: [] };
  for (let b = 0; b < WRITE_BATCHES; b++) {
    for (const mode of ["lexical", "hybrid"] as const) {
      const entities = Array.from({ length: 1000 }, (_, i) => ({
        name: `item-${b}-${i}`,
        entityType: "note",
        observations: [`observation one of ${b}-${i} about the weather`, `observation two of ${b}-${i} about a trip`, `third ${b}-${i}`],
      }));
      const took = await runInDurableObject(contexts[mode], (instance: MemoryContext) =>
        timePerRun(1, () => {
          const out = instance.createEntities(entities, { caller: "bench", callerId: "bench", tool: "bench" });
          if (!out.ok) throw new Error(out.message);
        }),
      );
      ms[mode].push(took);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const items = await runInDurableObject(contexts.hybrid, (instance: MemoryContext) => instance.searchStatus());
  expect(items.ok && items.value.queued + items.value.embedded).toBe(WRITE_BATCHES * 1000);
  // The machine's load moves single batches a lot: the fastest batch of each mode is the steadiest comparison.
  const fastest = (xs: number[]) => Math.min(...xs);
  const summary = {
    batches: WRITE_BATCHES,
    entitiesPerBatch: 1000,
    fastestMs: { lexical: fastest(ms.lexical), hybrid: fastest(ms.hybrid) },
    medianMs: { lexical: median(ms.lexical), hybrid: median(ms.hybrid) },
  };
  console.log(`WRITES_RESULT ${JSON.stringify(summary)}`);
});
