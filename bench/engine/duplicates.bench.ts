/**
 * find_duplicates' time inside a Durable Object under workerd, on the
 * benchmark's generated graph (bench/lib/generate.mjs), whose names come in
 * kebab-case, camelCase and snake_case variants of the same words:
 *
 *   npm run bench:engine -- duplicates                       (100,000 entities)
 *   ENGINE_SIZES=20000,100000 npm run bench:engine -- duplicates
 *
 * Prints the time per call (the object's clock, as bench/engine/timing.ts
 * explains), the entities read, the candidate pairs the blocking made
 * (src/graph/duplicates.ts) and the pairs found at the default threshold.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { findDuplicates } from "../../src/graph/duplicates";
import { Db } from "../../src/storage/sql";
import { generateGraph, prefix } from "../lib/generate.mjs";
import { knob, sizesFrom, timePerRun } from "./timing";

const SIZES = sizesFrom("100000");
const REPEAT = knob("ENGINE_REPEAT", 3);
const BATCH = 1000;
const full = generateGraph(Math.max(...SIZES), knob("ENGINE_SEED", 1));

it.each(SIZES)("find_duplicates time inside the object at %i entities", { timeout: 3_600_000 }, async (SIZE) => {
  const stub = env.MEMORY.getByName(`duplicates-bench-${SIZE}`) as DurableObjectStub<MemoryContext>;
  const meta = { caller: "bench", callerId: "bench", tool: "bench" };
  const graph = prefix(full, SIZE);
  for (let i = 0; i < graph.entities.length; i += BATCH) expect((await stub.createEntities(graph.entities.slice(i, i + BATCH), meta)).ok).toBe(true);
  for (let i = 0; i < graph.relations.length; i += BATCH) expect((await stub.createRelations(graph.relations.slice(i, i + BATCH), meta)).ok).toBe(true);
  const line = await runInDurableObject(stub, async (_instance, state) => {
    const db = new Db(state.storage.sql);
    const report = findDuplicates(db); // warm
    const ms = await timePerRun(REPEAT, () => findDuplicates(db));
    return `${SIZE} entities: find_duplicates ${ms.toFixed(0)} ms per call (${REPEAT} runs); ${report.entities} entities read, ${report.candidates} candidate pairs, ${report.pairs.length} pairs at the default threshold, best ${JSON.stringify(report.pairs[0])}`;
  });
  console.log(`DUPLICATES_RESULT ${line}`);
});
