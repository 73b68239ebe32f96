/**
 * The brief and name completion timed inside a Durable Object under workerd
 * (src/priority/brief.ts, src/priority/complete.ts), on the benchmark's
 * generated graph with some items marked and used:
 *
 *   npm run bench:engine -- bench/engine/guide.bench.ts                        (20,000 entities)
 *   ENGINE_SIZES=100000 npm run bench:engine -- bench/engine/guide.bench.ts
 *
 * Timed like bench/engine/search.bench.ts: the clock moves only across I/O
 * inside the object, so N back-to-back runs between two zero-delay timers,
 * divided by N. Prints one line per size; it measures, it does not check.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { modelOptions } from "../../src/priority/weights";
import { brief, BRIEF_TOKENS } from "../../src/priority/brief";
import { completeItems } from "../../src/priority/complete";
import { settings } from "../../src/settings";
import { Db } from "../../src/storage/sql";
import { generateGraph } from "../lib/generate.mjs";
import { knob, sizesFrom, timePerRun } from "./timing";

const SIZES = sizesFrom("20000");
const REPEAT = knob("ENGINE_REPEAT", 20);
const BATCH = 1000;

it.each(SIZES)("brief and completion time inside the object at %i entities", { timeout: 3_600_000 }, async (SIZE) => {
  const stub = env.MEMORY.getByName(`guide-bench-${SIZE}`) as DurableObjectStub<MemoryContext>;
  const meta = { caller: "bench", callerId: "bench", tool: "bench" };
  const graph = generateGraph(SIZE, 1);
  for (let i = 0; i < graph.entities.length; i += BATCH) expect((await stub.createEntities(graph.entities.slice(i, i + BATCH), meta)).ok).toBe(true);
  const names = graph.entities.map((e: { name: string }) => e.name);
  expect(
    (
      await stub.markImportant(
        names.slice(0, 20).map((n: string) => `entity:${n}`),
        true,
        meta,
      )
    ).ok,
  ).toBe(true);
  for (let i = 0; i < 200; i += 50) expect((await stub.openNodes(names.slice(1000 + i, 1050 + i), meta)).ok).toBe(true);
  const prefixes = ["", "a", "s", ...names.slice(0, 20).map((n: string) => n.slice(0, 3))];
  const model = modelOptions(settings(env));

  await runInDurableObject(stub, async (_i, state) => {
    const db = new Db(state.storage.sql);
    const opts = { maxTokens: BRIEF_TOKENS, kinds: ["entity", "file", "doc"] as const, header: "# bench" };
    const b = brief(db, { ...opts, kinds: [...opts.kinds] });
    const briefMs = await timePerRun(REPEAT, () => brief(db, { ...opts, kinds: [...opts.kinds] }));
    const completeMs: number[] = [];
    for (const p of prefixes) completeMs.push(await timePerRun(REPEAT, () => completeItems(db, "entity", p, Date.now(), model)));
    completeMs.sort((a, b) => a - b);
    const worst = completeMs[completeMs.length - 1] ?? 0;
    const median = completeMs[Math.floor(completeMs.length / 2)] ?? 0;
    console.log(
      `GUIDE_RESULT ${JSON.stringify({ entities: SIZE, briefMs, briefTokens: b.tokens, briefShown: b.shown, completeMedianMs: median, completeWorstMs: worst, prefixes: prefixes.length })}`,
    );
  });
});
