/**
 * The search engine's own time inside a Durable Object under workerd: no
 * Worker, no HTTP, no RPC hop in the numbers.
 *
 *   npm run bench:engine                            (20,000 entities)
 *   ENGINE_SIZES=1000,100000 npm run bench:engine   (any sizes; ENGINE_REPEAT, ENGINE_QUERIES, ENGINE_SEED too)
 *
 * `npm run bench` runs it for its own sizes after the end-to-end runs and
 * reads the ENGINE_RESULT line each size prints.
 * Loads the benchmark's generated graph (bench/lib/generate.mjs, the same
 * data and queries as `npm run bench`) into a fresh MemoryContext over RPC,
 * then inside the object runs each query ENGINE_REPEAT times back to back.
 *
 * ## How it measures
 * Inside a Durable Object the clock does not move during synchronous code;
 * it moves across I/O. So a run of the same search repeated N times is
 * bracketed by zero-delay timers, and the clock's step over the run divided
 * by N is that query's time, to 1/N ms (repeats read warm pages, as the
 * bench's queries of a loaded context mostly do). The table lists the
 * queries' p50 / p95 / p99 and mean, then the same for a search over RPC from
 * the test (the object's whole call: transaction, result copy, the hop) and
 * for a trivial RPC, then the time per statement shape (each statement the
 * searches ran, replayed N times one shape after another: shares, and a lower
 * bound, since a shape replayed alone finds more of its pages cached).
 */
import { env, runInDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { Db, type SqlValue } from "../../src/storage/sql";
import { searchGraph, searchParams } from "../../src/search";
import { compactionStep, indexShape, SEARCH_INDEXES } from "../../src/search/compact";
import { parseQuery } from "../../src/search/query";
import { settings } from "../../src/settings";
import { generateGraph, prefix, searchQueries } from "../lib/generate.mjs";
import { summarize as summarizeSamples, type Summary } from "../lib/stats.mjs";
import { knob, sizesFrom, tick, timePerRun } from "./timing";

const SIZES = sizesFrom("20000");
const REPEAT = knob("ENGINE_REPEAT", 20);
const QUERIES = knob("ENGINE_QUERIES", 200);
const SEED = knob("ENGINE_SEED", 1);
const BATCH = 1000;

/** Percentiles as the rest of the bench computes them (nearest rank, bench/lib/stats.mjs). */
function summarize(xs: number[]): Summary {
  const s = summarizeSamples(xs);
  if (!s) throw new Error("no samples");
  return s;
}
const cells = (s: Summary) => [s.p50, s.p95, s.p99, s.mean].map((v) => v.toFixed(2)).join(" | ");

/** The slice of SqlStorage that Db uses, recording each statement for replay. */
function recording(sql: SqlStorage, into: { shape: string; query: string; params: SqlValue[] }[]): SqlStorage {
  return {
    exec(query: string, ...params: SqlValue[]) {
      into.push({ shape: query.replace(/\s+/g, " ").slice(0, 90), query, params });
      return sql.exec(query, ...params);
    },
  } as unknown as SqlStorage;
}

const full = generateGraph(Math.max(...SIZES), SEED);

it.each(SIZES)("search engine time inside the object at %i entities", { timeout: 3_600_000 }, async (SIZE) => {
  const stub = env.MEMORY.getByName(`engine-bench-${SIZE}`) as DurableObjectStub<MemoryContext>;
  const meta = { caller: "bench", callerId: "bench", tool: "bench" };
  const graph = prefix(full, SIZE);
  for (let i = 0; i < graph.entities.length; i += BATCH) {
    const out = await stub.createEntities(graph.entities.slice(i, i + BATCH), meta);
    expect(out.ok).toBe(true);
  }
  for (let i = 0; i < graph.relations.length; i += BATCH) {
    const out = await stub.createRelations(graph.relations.slice(i, i + BATCH), meta);
    expect(out.ok).toBe(true);
  }
  const queries = searchQueries(
    graph.entities.slice(0, 1000).map((e) => e.name),
    QUERIES,
    SEED,
  );

  // Over RPC, as the Worker calls it: the whole call (transaction, result copy, the hop), and a trivial call.
  const rpc: number[] = [];
  const trivial: number[] = [];
  for (const q of queries) {
    rpc.push(await timeRpc(() => stub.searchNodes(q, {}, meta)));
    trivial.push(await timeRpc(() => stub.readGraph({ limit: 1, mode: "summary" }, meta)));
  }

  const lines = await runInDurableObject(stub, async (_instance, state) => {
    const params = searchParams({}, settings(env));
    const now = Date.now();
    const statements: { shape: string; query: string; params: SqlValue[] }[] = [];
    const recorded = new Db(recording(state.storage.sql, statements));
    const db = new Db(state.storage.sql);
    const timeQueries = async () => {
      const times: number[] = [];
      for (const q of queries) times.push(await timePerRun(REPEAT, () => searchGraph(db, parseQuery(q), params, now)));
      return times;
    };
    for (const q of queries) searchGraph(db, parseQuery(q), params, now); // warm
    // First as the index is now (the alarm may have compacted it during the relations' load, 10 s after the last
    // entity batch), then compacted to one segment per index, as the alarm leaves it once writes pause
    // (src/search/compact.ts). The segment counts say which is which.
    const segments = () => SEARCH_INDEXES.reduce((n, index) => n + indexShape(db, index).segments, 0);
    const loadedSegments = segments();
    const beforeCompaction = await timeQueries();
    let steps = 0;
    while (state.storage.transactionSync(() => compactionStep(db))) steps++;
    const compactedSegments = segments();
    let entities = 0;
    for (const q of queries) entities += searchGraph(recorded, parseQuery(q), params, now).entities.length; // warm, and record the statements
    const perQuery = await timeQueries();

    const shapes = new Map<string, { query: string; params: SqlValue[] }[]>();
    for (const s of statements) shapes.set(s.shape, [...(shapes.get(s.shape) ?? []), s]);
    const perShape: { shape: string; ms: number; calls: number }[] = [];
    for (const [shape, runs] of shapes) {
      const ms = await timePerRun(REPEAT, () => {
        for (const r of runs) state.storage.sql.exec(r.query, ...r.params).toArray();
      });
      perShape.push({ shape, ms: ms / queries.length, calls: runs.length / queries.length });
    }
    const inStatements = perShape.reduce((sum, s) => sum + s.ms, 0);
    const result = {
      size: SIZE,
      queries: queries.length,
      repeat: REPEAT,
      inObject: summarize(perQuery),
      inObjectBeforeCompaction: summarize(beforeCompaction),
      segments: { loaded: loadedSegments, compacted: compactedSegments, steps },
      rpc: summarize(rpc),
      trivialRpc: summarize(trivial),
    };
    return [
      `${SIZE} entities, ${queries.length} queries, each run ${REPEAT} times; ${(entities / queries.length).toFixed(1)} entities per result`,
      `FTS5 segments (both indexes): ${loadedSegments} when first measured, ${compactedSegments} after compaction (${steps + 1} more steps)`,
      "",
      "| ms per call | p50 | p95 | p99 | mean |",
      "|---|---|---|---|---|",
      `| search inside the object (searchGraph), index compacted (${compactedSegments} segments) | ${cells(result.inObject)} |`,
      `| search inside the object (searchGraph), index as first found (${loadedSegments} segments) | ${cells(result.inObjectBeforeCompaction)} |`,
      `| search over RPC (the object's whole call plus the hop, once per query, 1 ms steps) | ${cells(result.rpc)} |`,
      `| trivial call over RPC (read_graph limit 1, summary; 1 ms steps) | ${cells(result.trivialRpc)} |`,
      "",
      `Statements replayed shape by shape: ${inStatements.toFixed(3)} ms of a search's mean (a lower bound: replayed alone, a shape finds its pages cached more often than inside a search).`,
      "",
      "| ms per search | calls per search | statement |",
      "|---|---|---|",
      ...perShape.sort((a, b) => b.ms - a.ms).map((s) => `| ${s.ms.toFixed(3)} | ${s.calls.toFixed(1)} | \`${s.shape}\` |`),
      "",
      `ENGINE_RESULT ${JSON.stringify(result)}`,
    ];
  });
  console.log(lines.join("\n"));
});

/** One RPC's time; the clock moves across the call's I/O, to 1 ms. */
async function timeRpc(call: () => Promise<{ ok: boolean }>): Promise<number> {
  await tick();
  const t0 = Date.now();
  const out = await call();
  const ms = Date.now() - t0;
  expect(out.ok).toBe(true);
  return ms;
}
