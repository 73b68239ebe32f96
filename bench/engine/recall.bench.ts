/**
 * recall's engine time beside searchGraph's, inside a Durable Object under
 * workerd, on the same generated graph and queries as
 * bench/engine/search.bench.ts (bench/lib/generate.mjs):
 *
 *   npm run bench:engine -- recall                                          (20,000 entities)
 *   ENGINE_SIZES=100000 ENGINE_QUERIES=30 npm run bench:engine -- recall    (ENGINE_REPEAT, ENGINE_SEED too)
 *   ENGINE_QUESTIONS=1 ...                 (each query joined to the next in a question, as agents ask)
 *
 * Each query is timed three ways, as the context's calls run them with the
 * default settings: searchGraph as search.bench.ts times it (words only);
 * searchGraph with the query's synonyms (search_nodes, SEARCH_EXPANSION on);
 * and recall with its synonyms, the default budget and every kind (the recall
 * tool). The synonyms are looked up inside the timed run, as each call does.
 * Timed like search.bench.ts (N runs between two zero-delay timers, divided
 * by N), after the search indexes are compacted to one segment each, as the
 * alarm leaves them once writes pause. Prints p50 / p95 / p99 / mean per case,
 * recall's ratio to searchGraph at p50 and p95 and the median of the per-query
 * ratios, and recall over RPC (the object's whole call, 1 ms steps). It
 * measures, it does not check.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { ITEM_KINDS } from "../../src/items";
import { RECALL_TOKENS } from "../../src/limits";
import { modelOptions } from "../../src/priority/weights";
import { openNodes } from "../../src/graph/store";
import { searchGraph, searchParams } from "../../src/search";
import { rankQuery } from "../../src/search/rank";
import { compactionStep } from "../../src/search/compact";
import { expansionFor } from "../../src/search/meaning";
import { parseQuery } from "../../src/search/query";
import { recall } from "../../src/search/recall";
import { settings } from "../../src/settings";
import { Db } from "../../src/storage/sql";
import { generateGraph, openNodeSets, prefix, searchQueries } from "../lib/generate.mjs";
import { summarize as summarizeSamples, type Summary } from "../lib/stats.mjs";
import { engineVars, knob, sizesFrom, tick, timePerRun } from "./timing";

const SIZES = sizesFrom("20000");
const REPEAT = knob("ENGINE_REPEAT", 20);
const QUERIES = knob("ENGINE_QUERIES", 200);
const SEED = knob("ENGINE_SEED", 1);
const QUESTIONS = engineVars.ENGINE_QUESTIONS === "1";
const BATCH = 1000;
const KINDS = [...ITEM_KINDS];
const SLOWEST = knob("ENGINE_SLOWEST", 8);
/** A timestamped progress line, so a memory sampler outside the process can tell the phases apart. */
const phase = (what: string) => console.log(`ENGINE_PHASE ${new Date().toISOString()} ${what}`);

function summarize(xs: number[]): Summary {
  const s = summarizeSamples(xs);
  if (!s) throw new Error("no samples");
  return s;
}
const cells = (s: Summary) => [s.p50, s.p95, s.p99, s.mean].map((v) => v.toFixed(2)).join(" | ");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] as number;

const full = generateGraph(Math.max(...SIZES), SEED);

it.each(SIZES)("recall engine time beside searchGraph at %i entities", { timeout: 3_600_000 }, async (SIZE) => {
  const stub = env.MEMORY.getByName(`recall-bench-${SIZE}`) as DurableObjectStub<MemoryContext>;
  const meta = { caller: "bench", callerId: "bench", tool: "bench" };
  const graph = prefix(full, SIZE);
  phase(`load ${SIZE}`);
  for (let i = 0; i < graph.entities.length; i += BATCH) expect((await stub.createEntities(graph.entities.slice(i, i + BATCH), meta)).ok).toBe(true);
  for (let i = 0; i < graph.relations.length; i += BATCH) expect((await stub.createRelations(graph.relations.slice(i, i + BATCH), meta)).ok).toBe(true);
  const generated = searchQueries(
    graph.entities.slice(0, 1000).map((e) => e.name),
    QUERIES,
    SEED,
  );
  // The generated queries are 1 to 4 words; with ENGINE_QUESTIONS=1 each is joined to the next in a question.
  const queries = QUESTIONS ? generated.map((q, i) => `when did the ${q} and the ${generated[(i + 1) % generated.length]} last change for us?`) : generated;

  phase(`queries ${SIZE}`);
  const rpc: number[] = [];
  for (const q of queries) {
    await tick();
    const t0 = Date.now();
    const out = await stub.recall(q, { budgetTokens: RECALL_TOKENS.default, kinds: KINDS }, meta);
    rpc.push(Date.now() - t0);
    expect(out.ok).toBe(true);
  }

  const lines = await runInDurableObject(stub, async (_instance, state) => {
    const s = settings(env);
    const params = searchParams({}, s);
    const model = modelOptions(s);
    const now = Date.now();
    const db = new Db(state.storage.sql);
    while (state.storage.transactionSync(() => compactionStep(db))) {}
    const cases = {
      search: (q: string) => searchGraph(db, parseQuery(q), params, now, model),
      searchExpanded: (q: string) => {
        const parsed = parseQuery(q);
        return searchGraph(db, parsed, params, now, model, { expansion: expansionFor(parsed) });
      },
      recall: (q: string) => {
        const parsed = parseQuery(q);
        return recall(db, parsed, { budgetTokens: RECALL_TOKENS.default, kinds: KINDS, now, model, expansion: expansionFor(parsed) });
      },
    };
    let items = 0;
    let usedTokens = 0;
    let entities = 0;
    for (const q of queries) {
      entities += cases.search(q).entities.length; // warm
      cases.searchExpanded(q);
      const r = cases.recall(q);
      items += r.items.length;
      usedTokens += r.usedTokens;
    }
    const times = { search: [] as number[], searchExpanded: [] as number[], recall: [] as number[] };
    phase(`timed ${SIZE}`);
    for (const q of queries) {
      for (const name of ["search", "searchExpanded", "recall"] as const) {
        const run = cases[name];
        times[name].push(await timePerRun(REPEAT, () => run(q)));
      }
    }
    phase(`timed-end ${SIZE}`);
    // open_nodes of 1 to 4 names, as the bench's open_nodes calls (bench/lib/generate.mjs), over the whole graph's names.
    const openSets = openNodeSets(
      graph.entities.map((e) => e.name),
      queries.length,
      SEED,
    );
    for (const names of openSets) openNodes(db, names); // warm
    const open: number[] = [];
    for (const names of openSets) open.push(await timePerRun(REPEAT, () => openNodes(db, names)));
    // The tail: the slowest queries with their terms and how many candidates the ranking scored.
    const slowest = queries
      .map((q, i) => ({ q, i, recall: times.recall[i] as number, search: times.search[i] as number }))
      .sort((a, b) => Math.max(b.recall, b.search) - Math.max(a.recall, a.search))
      .slice(0, SLOWEST)
      .map((x) => {
        const parsed = parseQuery(x.q);
        const r = rankQuery(db, parsed, { now, model, expansion: expansionFor(parsed) });
        return `| ${x.search.toFixed(2)} | ${x.recall.toFixed(2)} | ${r.terms.filter((t) => t.index >= 0).length} | ${r.entities.length} | \`${x.q}\` |`;
      });
    const result = {
      size: SIZE,
      queries: queries.length,
      repeat: REPEAT,
      search: summarize(times.search),
      searchExpanded: summarize(times.searchExpanded),
      recall: summarize(times.recall),
      recallRpc: summarize(rpc),
      openNodes: summarize(open),
      ratio: {
        p50: summarize(times.recall).p50 / summarize(times.search).p50,
        p95: summarize(times.recall).p95 / summarize(times.search).p95,
        perQueryMedian: median(times.recall.map((t, i) => t / Math.max(times.search[i] as number, 1 / REPEAT))),
      },
    };
    const n = queries.length;
    return [
      `${SIZE} entities, ${n} queries, each run ${REPEAT} times; searchGraph returned ${(entities / n).toFixed(1)} entities, recall ${(items / n).toFixed(1)} items in ${(usedTokens / n).toFixed(0)} of ${RECALL_TOKENS.default} tokens per query`,
      "",
      "| ms per call | p50 | p95 | p99 | mean |",
      "|---|---|---|---|---|",
      `| searchGraph, words only (as search.bench.ts) | ${cells(result.search)} |`,
      `| searchGraph with synonyms (search_nodes' default) | ${cells(result.searchExpanded)} |`,
      `| recall with synonyms, budget ${RECALL_TOKENS.default}, all kinds | ${cells(result.recall)} |`,
      `| recall over RPC (the object's whole call plus the hop, once per query, 1 ms steps) | ${cells(result.recallRpc)} |`,
      `| open_nodes of 1 to 4 names (graph.openNodes, as the tool) | ${cells(result.openNodes)} |`,
      "",
      `Slowest ${SLOWEST} queries (ms per run; terms: literal query terms; ranked: entities the ranking scored):`,
      "",
      "| searchGraph | recall | terms | ranked | query |",
      "|---|---|---|---|---|",
      ...slowest,
      "",
      `recall / searchGraph (words only): ${result.ratio.p50.toFixed(2)}x at p50, ${result.ratio.p95.toFixed(2)}x at p95, ${result.ratio.perQueryMedian.toFixed(2)}x median per query`,
      "",
      `RECALL_RESULT ${JSON.stringify(result)}`,
    ];
  });
  console.log(lines.join("\n"));
});
