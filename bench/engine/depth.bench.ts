/**
 * Depth: does a search find the best match however old it is? Inside a
 * Durable Object under workerd, on a context whose common words are in about
 * half of its entities, with needles (each the clear best match for a pair of
 * those words) planted at every age (bench/lib/depth.mjs).
 *
 *   npm run bench:depth                                   (5,000 entities; bench/depth.mjs)
 *   npm run bench:depth -- --entities 5000,20000          (--seed, --repeat, --mix too)
 *   npm run bench -- --depth 20000                        (beside the other figures)
 *
 * It runs only for the sizes in ENGINE_DEPTH (which those set), so
 * `npm run bench:engine` without it skips it.
 *
 * For every query (one per needle's pair, one per other pair of common words,
 * and the ordinary bench's query mix) it compares with bench/engine/exhaustive.ts,
 * engram's documented score computed for every matching entity:
 * - agreement@10: the share of queries whose top 10 is the same set as the
 *   reference's (all of them when fewer match);
 * - recall@10 of the needles: the share of needle queries with the needle in
 *   the top 10, over all needles and per fifth of the load order (oldest first);
 * for `search_nodes` (searchGraph with its synonyms, minRelativeScore 0 so its
 * entry nodes are its whole ranking, and also with the default settings) and
 * `recall` (entities only, the largest budget, its entity matches in order).
 * Both get the synonyms the tools look up; the common words have none.
 * It also times both as the tools run them with their defaults (in the object,
 * each query N times between two zero-delay timers as search.bench.ts does;
 * over RPC, once per query, 1 ms steps), the reference once per query, and
 * reports the database's bytes per entity. A textbook Okapi BM25 over the
 * generated text (bench/recall/bm25.mjs) checks that each needle is its
 * pair's best match before anything is asked of engram.
 *
 * Nothing here records a search access until the RPC timings at the end, so
 * every comparison sees the priorities as loaded. It measures, it does not check.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { ITEM_KINDS } from "../../src/items";
import { RECALL_TOKENS } from "../../src/limits";
import { modelOptions } from "../../src/priority/weights";
import { searchGraph, searchParams } from "../../src/search";
import { compactionStep } from "../../src/search/compact";
import { expansionFor } from "../../src/search/meaning";
import { parseQuery } from "../../src/search/query";
import { recall } from "../../src/search/recall";
import { settings } from "../../src/settings";
import { Db } from "../../src/storage/sql";
import { ageBucket, COMMON_WORDS, depthCorpus } from "../lib/depth.mjs";
import { summarize as summarizeSamples, type Summary } from "../lib/stats.mjs";
import { bm25Index } from "../recall/bm25.mjs";
import { exhaustiveRanking } from "./exhaustive";
import { engineVars, knob, sizesFrom, tick, timePerRun } from "./timing";

const SIZES = engineVars.ENGINE_DEPTH ? sizesFrom("", "ENGINE_DEPTH") : [];
const REPEAT = knob("ENGINE_REPEAT", 10);
const SEED = knob("ENGINE_SEED", 1);
const MIX = knob("ENGINE_DEPTH_MIX", 100);
const BATCH = 1000;
const K = 10;
const BUCKETS = 5;

function summarize(xs: number[]): Summary {
  const s = summarizeSamples(xs);
  if (!s) throw new Error("no samples");
  return s;
}
const pct = (n: number, of: number) => (of === 0 ? "–" : `${((100 * n) / of).toFixed(1)}% (${n}/${of})`);
const cells = (s: Summary) => [s.p50, s.p95, s.p99, s.max].map((v) => v.toFixed(2)).join(" / ");
const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

if (SIZES.length === 0) it.skip("depth (ENGINE_DEPTH names the sizes to run)", () => {});

it.each(SIZES)("depth: the best match at any age, at %i entities", { timeout: 3_600_000 }, async (SIZE) => {
  const corpus = depthCorpus(SIZE, SEED, { mix: MIX });
  // The needles must be their pairs' best matches by the text alone, or the bench measures nothing.
  const bm25 = bm25Index(corpus.entities.map((e) => ({ id: e.name, text: [e.name, e.entityType, ...e.observations].join(" ") })));
  const bm25First = corpus.needles.filter((n) => bm25.search(n.query, 1)[0]?.id === n.name).length;

  const stub = env.MEMORY.getByName(`depth-bench-${SIZE}`) as DurableObjectStub<MemoryContext>;
  const meta = { caller: "bench", callerId: "bench", tool: "bench" };
  const t0 = Date.now();
  for (let i = 0; i < corpus.entities.length; i += BATCH) expect((await stub.createEntities(corpus.entities.slice(i, i + BATCH), meta)).ok).toBe(true);
  const loadMs = Date.now() - t0;
  const sets = { needles: corpus.queries.needles, pairs: corpus.queries.pairs, mix: corpus.queries.mix };
  const needleOf = new Map(corpus.needles.map((n) => [n.query, n]));

  const inObject = await runInDurableObject(stub, async (_instance, state) => {
    const s = settings(env);
    const model = modelOptions(s);
    const everything = searchParams({ minRelativeScore: 0 }, s);
    const defaults = searchParams({}, s);
    const now = Date.now();
    const db = new Db(state.storage.sql);
    while (state.storage.transactionSync(() => compactionStep(db))) {}
    const nameOf = (ids: readonly number[]) =>
      new Map(
        db
          .tuples<[id: number, name: string]>(["id", "name"], "SELECT id, name FROM entities WHERE id IN (SELECT value FROM json_each(?1))", [JSON.stringify(ids)])
          .map(([id, name]) => [id, name]),
      );
    const methods = {
      search: (q: string) =>
        searchGraph(db, parseQuery(q), everything, now, model, { expansion: expansionFor(parseQuery(q)) })
          .entities.filter((e) => e.role === "entry")
          .map((e) => e.name),
      searchDefaults: (q: string) =>
        searchGraph(db, parseQuery(q), defaults, now, model, { expansion: expansionFor(parseQuery(q)) })
          .entities.filter((e) => e.role === "entry")
          .map((e) => e.name),
      recall: (q: string) =>
        recall(db, parseQuery(q), { budgetTokens: RECALL_TOKENS.max, kinds: ["entity"], now, model, expansion: expansionFor(parseQuery(q)) })
          .items.filter((i) => i.kind === "entity" && i.via === undefined)
          .map((i) => i.name),
    };
    type Method = keyof typeof methods;
    const quality: Record<string, { queries: number; expanded: number; agree: Record<Method, number>; misses: string[] }> = {};
    const needles = { reference: [] as boolean[], search: [] as boolean[], searchDefaults: [] as boolean[], recall: [] as boolean[], searchTop5: [] as boolean[] };
    const referenceMs: number[] = [];
    for (const [set, queries] of Object.entries(sets)) {
      const q0 = { queries: queries.length, expanded: 0, agree: { search: 0, searchDefaults: 0, recall: 0 }, misses: [] as string[] };
      for (const q of queries) {
        const expansion = expansionFor(parseQuery(q));
        if (expansion.length > 0) q0.expanded++;
        await tick();
        const r0 = Date.now();
        const ranked = exhaustiveRanking(db, q, { now, model, expansion });
        await tick();
        referenceMs.push(Date.now() - r0);
        const topIds = ranked.slice(0, K).map((e) => e.id);
        const names = nameOf(topIds);
        const reference = topIds.map((id) => names.get(id) as string);
        for (const m of Object.keys(methods) as Method[]) {
          const top = methods[m](q).slice(0, K);
          if (sameSet(top, reference)) q0.agree[m]++;
          else if (m !== "searchDefaults") q0.misses.push(`${m} "${q}": ${top.filter((n) => !reference.includes(n)).length} of its top ${K} not in the reference's`);
          const needle = needleOf.get(q);
          if (needle && set === "needles") {
            needles[m].push(top.includes(needle.name));
            if (m === "search") needles.searchTop5.push(top.slice(0, 5).includes(needle.name));
          }
        }
        const needle = needleOf.get(q);
        if (needle && set === "needles") needles.reference.push(reference[0] === needle.name);
      }
      quality[set] = q0;
    }

    // Latency as the tools run: their default settings and budget, synonyms looked up inside the timed run.
    const timed = {
      search: (q: string) => searchGraph(db, parseQuery(q), defaults, now, model, { expansion: expansionFor(parseQuery(q)) }),
      recall: (q: string) =>
        recall(db, parseQuery(q), { budgetTokens: RECALL_TOKENS.default, kinds: [...ITEM_KINDS], now, model, expansion: expansionFor(parseQuery(q)) }),
    };
    const common = [...sets.needles, ...sets.pairs];
    const times: Record<string, number[]> = { searchCommon: [], recallCommon: [], searchMix: [], recallMix: [] };
    for (const q of [...common, ...sets.mix]) {
      timed.search(q); // warm
      timed.recall(q);
    }
    for (const q of common) {
      (times.searchCommon as number[]).push(await timePerRun(REPEAT, () => timed.search(q)));
      (times.recallCommon as number[]).push(await timePerRun(REPEAT, () => timed.recall(q)));
    }
    for (const q of sets.mix) {
      (times.searchMix as number[]).push(await timePerRun(REPEAT, () => timed.search(q)));
      (times.recallMix as number[]).push(await timePerRun(REPEAT, () => timed.recall(q)));
    }
    // How common the common words are: entities holding each, out of all.
    const shares = COMMON_WORDS.map((w) => {
      const row = db.one<{ n: number }>(
        "SELECT count(DISTINCT o.entity_id) AS n FROM search_words s JOIN observations o ON o.id = s.rowid WHERE search_words MATCH ?1 AND s.rowid > 0",
        `"${w}"`,
      );
      return (row?.n ?? 0) / SIZE;
    });
    return { quality, needles, referenceMs, times, shares, bytes: state.storage.sql.databaseSize };
  });

  // Over RPC, once per query: the object's whole call (synonyms, transaction, result copy) plus the hop. These record accesses.
  const rpc = { searchCommon: [] as number[], recallCommon: [] as number[], searchMix: [] as number[], recallMix: [] as number[] };
  const rpcTime = async (call: () => Promise<{ ok: boolean }>) => {
    await tick();
    const r0 = Date.now();
    expect((await call()).ok).toBe(true);
    return Date.now() - r0;
  };
  for (const [q, into] of [...[...sets.needles, ...sets.pairs].map((q) => [q, "Common"] as const), ...sets.mix.map((q) => [q, "Mix"] as const)]) {
    rpc[`search${into}`].push(await rpcTime(() => stub.searchNodes(q, {}, meta)));
    rpc[`recall${into}`].push(await rpcTime(() => stub.recall(q, { budgetTokens: RECALL_TOKENS.default, kinds: [...ITEM_KINDS] }, meta)));
  }

  const { quality, needles, times } = inObject;
  const byBucket = (hits: boolean[]) => {
    const found = Array.from({ length: BUCKETS }, () => 0);
    const total = Array.from({ length: BUCKETS }, () => 0);
    corpus.needles.forEach((n, i) => {
      const b = ageBucket(n.index, SIZE, BUCKETS);
      total[b] = (total[b] as number) + 1;
      if (hits[i]) found[b] = (found[b] as number) + 1;
    });
    return found.map((f, b) => `${f}/${total[b]}`).join(" · ");
  };
  const count = (xs: boolean[]) => xs.filter(Boolean).length;
  const result = {
    size: SIZE,
    seed: SEED,
    loadEntitiesPerSec: Math.round((SIZE / loadMs) * 1000),
    bytesPerEntity: Math.round(inObject.bytes / SIZE),
    commonWordShare: { min: Math.min(...inObject.shares), max: Math.max(...inObject.shares) },
    bm25NeedlesFirst: bm25First,
    needles: corpus.needles.length,
    agreement: Object.fromEntries(Object.entries(quality).map(([set, q]) => [set, { queries: q.queries, ...q.agree }])),
    needleRecall: {
      reference: count(needles.reference),
      search: count(needles.search),
      searchDefaults: count(needles.searchDefaults),
      recall: count(needles.recall),
    },
    inObject: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, summarize(v)])),
    rpc: Object.fromEntries(Object.entries(rpc).map(([k, v]) => [k, summarize(v)])),
    referenceMs: summarize(inObject.referenceMs),
  };
  const n = corpus.needles.length;
  const lines = [
    `${SIZE.toLocaleString("en-US")} entities (seed ${SEED}), ${n} needles, ${sets.pairs.length} other common-word pairs, ${sets.mix.length} mix queries; loaded at ${result.loadEntitiesPerSec.toLocaleString("en-US")} entities/s over RPC; ${result.bytesPerEntity.toLocaleString("en-US")} database bytes per entity`,
    `Common words: each in ${(100 * result.commonWordShare.min).toFixed(1)}-${(100 * result.commonWordShare.max).toFixed(1)}% of the entities. Textbook Okapi BM25 ranks ${bm25First} of ${n} needles first for their pair; the reference (engram's score, exhaustive) ranks ${result.needleRecall.reference}.`,
    "",
    `| agreement@${K} with the exhaustive reference | needle pairs (${sets.needles.length}) | other common pairs (${sets.pairs.length}) | query mix (${sets.mix.length}) |`,
    "|---|---|---|---|",
    ...(["search", "searchDefaults", "recall"] as const).map(
      (m) =>
        `| ${{ search: "search_nodes (minRelativeScore 0)", searchDefaults: "search_nodes (defaults)", recall: "recall (entities)" }[m]} | ${Object.values(quality)
          .map((q) => pct(q.agree[m], q.queries))
          .join(" | ")} |`,
    ),
    "",
    `| needle in the top ${K} (recall@${K}) | all | by fifth of the load order, oldest first |`,
    "|---|---|---|",
    `| exhaustive reference (needle first) | ${pct(result.needleRecall.reference, n)} | ${byBucket(needles.reference)} |`,
    `| search_nodes (minRelativeScore 0) | ${pct(result.needleRecall.search, n)} | ${byBucket(needles.search)} |`,
    `| search_nodes (minRelativeScore 0), top 5 | ${pct(count(needles.searchTop5), n)} | ${byBucket(needles.searchTop5)} |`,
    `| search_nodes (defaults) | ${pct(result.needleRecall.searchDefaults, n)} | ${byBucket(needles.searchDefaults)} |`,
    `| recall (entities) | ${pct(result.needleRecall.recall, n)} | ${byBucket(needles.recall)} |`,
    "",
    "| ms per call, p50 / p95 / p99 / max | common-word pairs | query mix |",
    "|---|---|---|",
    `| search_nodes in the object (defaults, synonyms) | ${cells(result.inObject.searchCommon as Summary)} | ${cells(result.inObject.searchMix as Summary)} |`,
    `| recall in the object (defaults, all kinds) | ${cells(result.inObject.recallCommon as Summary)} | ${cells(result.inObject.recallMix as Summary)} |`,
    `| search_nodes over RPC (1 ms steps) | ${cells(result.rpc.searchCommon as Summary)} | ${cells(result.rpc.searchMix as Summary)} |`,
    `| recall over RPC (1 ms steps) | ${cells(result.rpc.recallCommon as Summary)} | ${cells(result.rpc.recallMix as Summary)} |`,
    `| the exhaustive reference, once per query (1 ms steps), all queries | ${cells(result.referenceMs)} | |`,
    "",
    `Queries with synonyms: ${Object.entries(quality)
      .map(([set, q]) => `${set} ${q.expanded}`)
      .join(", ")}.`,
    `Disagreements (first 12): ${
      Object.values(quality)
        .flatMap((q) => q.misses)
        .slice(0, 12)
        .join("; ") || "none"
    }`,
    "",
    `DEPTH_RESULT ${JSON.stringify(result)}`,
  ];
  console.log(lines.join("\n"));
});
