/**
 * As-of reads timed inside a Durable Object under workerd (src/graph/asof.ts,
 * src/search/asof.ts): the benchmark's generated graph, then CHANGES write
 * calls one simulated minute apart (update_observation, add_observations,
 * delete_relations, delete_entities in turn), then reads as of a time before
 * all of them (the whole log replayed) and halfway:
 *
 *   npm run bench:engine -- bench/engine/asof.bench.ts                         (20,000 entities, 1,000 changes)
 *   ENGINE_SIZES=100000 ENGINE_CHANGES=5000 npm run bench:engine -- bench/engine/asof.bench.ts
 *
 * Timed like bench/engine/search.bench.ts (N runs between two zero-delay
 * timers, divided by N). Prints one line per size; it measures, it does not check.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { openNodesAt, readGraphAt } from "../../src/graph/asof";
import { openNodes } from "../../src/graph/store";
import type { EntityInput, Relation } from "../../src/graph/types";
import { readGraph } from "../../src/graph/read";
import { searchGraph } from "../../src/search";
import { searchGraphAt } from "../../src/search/asof";
import { parseQuery } from "../../src/search/query";
import { DEFAULT_MODEL } from "../../src/priority/model";
import { Db } from "../../src/storage/sql";
import { generateGraph } from "../lib/generate.mjs";
import { knob, sizesFrom, timePerRun } from "./timing";

const SIZES = sizesFrom("20000");
const CHANGES = knob("ENGINE_CHANGES", 1000);
const REPEAT = knob("ENGINE_REPEAT", 10);
const BATCH = 1000;
const T0 = Date.parse("2026-01-01T00:00:00Z");
const PARAMS = { minRelativeScore: 0.3, topPerToken: 3, maxPathLength: 3, maxTotalNodes: 20 };

type Generated = { entities: EntityInput[]; relations: Relation[] };

it.each(SIZES)("as-of reads inside the object at %i entities", { timeout: 3_600_000 }, async (SIZE) => {
  const stub = env.MEMORY.getByName(`asof-bench-${SIZE}`) as DurableObjectStub<MemoryContext>;
  const meta = { caller: "bench", callerId: "bench", tool: "bench" };
  const graph = generateGraph(SIZE, 1) as Generated;
  const clock = (at: number) =>
    runInDurableObject(stub, (i: MemoryContext) => {
      i.now = () => at;
    });
  await clock(T0);
  for (let i = 0; i < graph.entities.length; i += BATCH) expect((await stub.createEntities(graph.entities.slice(i, i + BATCH), meta)).ok).toBe(true);
  for (let i = 0; i < graph.relations.length; i += BATCH) expect((await stub.createRelations(graph.relations.slice(i, i + BATCH), meta)).ok).toBe(true);

  // Changes on entities spread over the graph, one minute apart.
  const withObs = graph.entities.filter((e) => e.observations.length > 0);
  for (let k = 0; k < CHANGES; k++) {
    await clock(T0 + (k + 1) * 60_000);
    const e = withObs[(k * 7919) % withObs.length] as Generated["entities"][number];
    const r = graph.relations[(k * 104_729) % graph.relations.length] as Generated["relations"][number];
    const kind = k % 4;
    if (kind === 0) await stub.updateObservation({ entityName: e.name, old: e.observations[0] as string, new: `${e.observations[0]} (revised ${k})` }, meta);
    else if (kind === 1) await stub.addObservations([{ entityName: e.name, contents: [`note ${k}`] }], meta);
    else if (kind === 2) await stub.deleteRelations([r], meta);
    else await stub.deleteEntities([graph.entities[(k * 31) % graph.entities.length]?.name as string], meta);
  }
  const now = T0 + (CHANGES + 2) * 60_000;
  await clock(now);
  const before = T0 + 30_000;
  const half = T0 + Math.floor(CHANGES / 2) * 60_000;
  const names = withObs.slice(0, 10).map((e) => e.name);

  await runInDurableObject(stub, async (_i, state) => {
    const db = new Db(state.storage.sql);
    const ms = {
      openNodesNow: await timePerRun(REPEAT, () => openNodes(db, names)),
      openNodesAsOfStart: await timePerRun(REPEAT, () => openNodesAt(db, names, before, true, 1000)),
      readGraphPageNow: await timePerRun(REPEAT, () => readGraph(db, {})),
      readGraphPageAsOfStart: await timePerRun(REPEAT, () => readGraphAt(db, {}, before)),
      readGraphPageAsOfHalf: await timePerRun(REPEAT, () => readGraphAt(db, {}, half)),
      searchNow: await timePerRun(REPEAT, () => searchGraph(db, parseQuery("billing retries"), PARAMS, now, DEFAULT_MODEL)),
      searchAsOfStart: await timePerRun(REPEAT, () => searchGraphAt(db, parseQuery("billing retries"), PARAMS, now, before, DEFAULT_MODEL)),
    };
    console.log(`ASOF_RESULT ${JSON.stringify({ entities: SIZE, changes: CHANGES, ms })}`);
  });
});
