#!/usr/bin/env node
/**
 * `npm run bench`: engram under `wrangler dev` and the official
 * @modelcontextprotocol/server-memory over stdio, side by side in one run, on
 * the same generated graph and the same queries.
 *
 *   npm run bench                               # 1k, 10k and 100k entities
 *   npm run bench -- --sizes 1000,10000         # chosen sizes
 *   npm run bench -- --no-official              # engram only
 *   npm run bench -- --render bench/out/x.json  # re-print a results file
 *   npm run bench -- --depth 20000              # also the depth bench (bench/engine/depth.bench.ts)
 *
 * Prints Markdown tables and writes bench/out/bench-<time>.json. Everything
 * runs on loopback; wrangler and the official server are stopped at the end,
 * also on error or Ctrl-C.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startEngram, stopWithProcess } from "./lib/engram.mjs";
import { generateGraph, openNodeSets, prefix, searchQueries } from "./lib/generate.mjs";
import { startOfficial } from "./lib/official.mjs";
import { load as loadAverage, machine } from "./lib/proc.mjs";
import { ms, registryLine, renderMachine, renderTables } from "./lib/report.mjs";
import { load, queries, registryRate, registryWatch, warmFloors } from "./lib/workload.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outDir = path.join(root, "bench", "out");

const { values: opts } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000,100000" },
    queries: { type: "string", default: "200" },
    "floor-warmup": { type: "string", default: "300" },
    seed: { type: "string", default: "1" },
    batch: { type: "string", default: "1000" },
    "no-official": { type: "boolean", default: false },
    "load-budget": { type: "string", default: "600" },
    "query-budget": { type: "string", default: "180" },
    "slow-search": { type: "string", default: "10" },
    timeout: { type: "string", default: "300" },
    render: { type: "string" },
    "keep-state": { type: "string" },
    "no-engine": { type: "boolean", default: false },
    "no-load-warmup": { type: "boolean", default: false },
    depth: { type: "string" },
    help: { type: "boolean", default: false },
  },
});

if (opts.help) {
  console.log(`npm run bench -- [--sizes 1000,10000,100000] [--queries 200] [--floor-warmup 300] [--seed 1] [--batch 1000] [--no-official]
  [--load-budget 600] [--query-budget 180] [--slow-search 10] [--timeout 300] [--render file.json]
  [--keep-state dir] [--no-engine] [--no-load-warmup] [--depth 5000,20000]
--floor-warmup runs the floors (GET /health, its POST, ping, the trivial call) this many untimed rounds before each
size's timed calls, so they measure a warmed-up server; searches and open_nodes get 3 warm-up calls either way.
--no-load-warmup skips engram's first load (the smallest size's entities and relations into a context of its own,
reported in a note, not as a row), which otherwise lets every size's load run in a process past its JIT warm-up.
--no-engine skips the search timed inside the object (npm run bench:engine, run for the same sizes after the rest).
--depth also runs the depth bench (npm run bench:depth) at these sizes in the engine phase: agreement@10 with an
exhaustive scorer and recall@10 of best matches planted at every age, on a context of very common words.
--keep-state keeps wrangler's state (each size's SQLite file) in dir instead of deleting it, for profiling.
Budgets are seconds per server and size. A load past --load-budget stops (engram then skips that size's queries;
the official server gets the rest of the graph written into its memory.jsonl, so its queries still compare, and
is skipped at larger sizes). A query phase past --query-budget stops after 20 calls. The official server is also
skipped at larger sizes once its search p50 passes --slow-search seconds.`);
  process.exit(0);
}
if (opts.render) {
  console.log(renderTables(JSON.parse(fs.readFileSync(opts.render, "utf8"))));
  process.exit(0);
}

const positive = (name) => {
  const v = Number(opts[name]);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number, got "${opts[name]}"`);
  return v;
};
const nonNegative = (name) => {
  const v = Number(opts[name]);
  if (!Number.isSafeInteger(v) || v < 0) throw new Error(`--${name} must be a whole number, 0 or more, got "${opts[name]}"`);
  return v;
};
const sizes = opts.sizes.split(",").map((s) => Number(s.trim()));
if (sizes.some((s) => !Number.isSafeInteger(s) || s < 1)) throw new Error(`--sizes must be positive integers, got "${opts.sizes}"`);
if (opts.depth !== undefined && !/^[1-9]\d*(,[1-9]\d*)*$/.test(opts.depth))
  throw new Error(`--depth must be positive integers separated by commas, got "${opts.depth}"`);
if (opts.depth !== undefined && opts["no-engine"]) throw new Error("--depth runs in the engine phase, which --no-engine skips");
sizes.sort((a, b) => a - b);
const config = {
  sizes,
  queries: positive("queries"),
  floorWarmup: nonNegative("floor-warmup"),
  seed: positive("seed"),
  batch: positive("batch"),
  official: !opts["no-official"],
  loadWarmup: !opts["no-load-warmup"],
  loadBudgetMs: positive("load-budget") * 1000,
  queryBudgetMs: positive("query-budget") * 1000,
  slowSearchMs: positive("slow-search") * 1000,
  timeoutMs: positive("timeout") * 1000,
};

const log = (line) => console.error(line);
const results = { machine: machine(), startedAt: new Date().toISOString(), config, sizes: [], notes: [] };
console.log(renderMachine(results.machine));

fs.mkdirSync(outDir, { recursive: true });
let t0 = performance.now();
const graph = generateGraph(sizes[sizes.length - 1], config.seed);
const searches = searchQueries(
  graph.entities.slice(0, 1000).map((e) => e.name),
  config.queries,
  config.seed,
);
log(`generated ${graph.entities.length} entities and ${graph.relations.length} relations in ${ms(performance.now() - t0)} ms`);

const engram = await startEngram({
  root,
  stateDir: opts["keep-state"] ? path.resolve(opts["keep-state"]) : path.join(outDir, `state-${process.pid}`),
  keepState: Boolean(opts["keep-state"]),
  log,
});
stopWithProcess(engram, log);

/**
 * Waits until the context is as a context's searches find it once writes
 * pause: the alarm compacts the search index COMPACT_QUIET_MS (10 s) after
 * the last bulk write (docs/search.md#indexes-and-guarantees), usually while
 * the relations load, and counts the clusters the load queued
 * (docs/scale.md, "Cluster counts after bulk writes") once writes have
 * paused for 2 s. Returns the FTS5 segments right after the load and when
 * the queries start, the cluster counts queued right after the load, how
 * long until none was left (null if the wait ended first) and how long it
 * waited in all (at most 60 s for the index, 10 minutes for the clusters; a
 * small index that is not due for compaction is left as it is after 15 s).
 */
async function settle(engram, context) {
  const started = performance.now();
  const first = await engram.stats(context);
  let now = first;
  let clustersMs = first.clustersPending === 0 ? 0 : null;
  for (;;) {
    const waited = performance.now() - started;
    if (clustersMs === null && now.clustersPending === 0) clustersMs = waited;
    const indexSettled = (!now.searchIndex.compacting && (now.searchIndex.segments <= 2 || waited > 15_000)) || waited > 60_000;
    if (indexSettled && (clustersMs !== null || waited > 600_000)) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
    now = await engram.stats(context);
  }
  return {
    before: first.searchIndex.segments,
    after: now.searchIndex.segments,
    compacting: now.searchIndex.compacting,
    clustersQueued: first.clustersPending,
    clustersMs,
    waitedMs: performance.now() - started,
  };
}

const quantity = (data) => data.entities.reduce((n, e) => n + e.observations.length, 0);

/**
 * Engram's first load in the fresh process, into a context no size uses: a
 * `wrangler dev` started seconds before runs its first 1,000-entity call at
 * 3,600-3,900 entities/s and every later one into a new context at
 * 5,200-6,800 (docs/performance.md, "Load"), so without it the smallest
 * size's row would time the process's JIT warm-up rather than a load. Its
 * numbers are kept and printed as a note.
 */
async function warmLoad(size) {
  const client = await engram.connect("bench-warmup");
  try {
    const data = prefix(graph, size);
    const l = await load(client, data, { batch: config.batch, budgetMs: config.loadBudgetMs, timeoutMs: config.timeoutMs, log });
    const count = (n) => n.toLocaleString("en-US");
    const line = `engram's first load in this wrangler dev process (context bench-warmup, ${count(size)} entities and ${count(data.relations.length)} relations, not a row above): ${count(l.entitiesPerSec)} entities/s (RPC p50 per batch ${ms(l.entityEngineMs?.p50)} ms), ${count(l.relationsPerSec)} relations/s`;
    log(line);
    results.notes.push(line);
    results.firstLoad = { size, ...l };
  } finally {
    await client.close();
  }
}

try {
  let officialSkip;
  if (config.loadWarmup) await warmLoad(sizes[0]);
  for (const size of sizes) {
    const data = prefix(graph, size);
    const openSets = openNodeSets(
      data.entities.map((e) => e.name),
      config.queries,
      config.seed,
    );
    const row = { size, loadAverage: loadAverage(), observations: quantity(data), relations: data.relations.length, engram: {}, official: undefined };
    log(`\n== ${size} entities, ${row.observations} observations, ${row.relations} relations`);
    const plan = { searches, openSets, floorCalls: config.queries, floorWarmup: config.floorWarmup, budgetMs: config.queryBudgetMs, timeoutMs: config.timeoutMs };

    const context = `bench-${size}`;
    const client = await engram.connect(context);
    t0 = performance.now();
    row.engram.load = await load(client, data, { batch: config.batch, budgetMs: config.loadBudgetMs, timeoutMs: config.timeoutMs, log });
    log(`engram: loaded in ${ms(performance.now() - t0)} ms (${row.engram.load.entitiesPerSec} entities/s)`);
    row.engram.compaction = await settle(engram, context);
    log(
      `engram: search index ${row.engram.compaction.before} segments after the load, ${row.engram.compaction.after} when queried (${ms(row.engram.compaction.waitedMs)} ms later)`,
    );
    const { clustersQueued, clustersMs } = row.engram.compaction;
    log(
      clustersMs === null
        ? `engram: cluster counts queued by the load: ${clustersQueued.toLocaleString("en-US")}, not all counted after 10 minutes`
        : `engram: cluster counts queued by the load: ${clustersQueued.toLocaleString("en-US")}, all counted ${ms(clustersMs)} ms after the load` +
            (row.engram.load.relationLoadMs > 0
              ? ` (relations/s with that wait counted in: ${Math.round((row.engram.load.relations / (row.engram.load.relationLoadMs + clustersMs)) * 1000).toLocaleString("en-US")})`
              : ""),
    );
    row.engram.stats = await engram.stats(context);
    if (!row.engram.load.aborted) {
      const target = { client, health: engram.health, postFloor: engram.postFloor };
      // The Registry's own count, read after the warm-up, after every round and at the end: a warm tool call should make none.
      const registry = registryWatch(() => engram.registryCalls());
      const engramPlan = {
        ...plan,
        afterWarmup: registry.read,
        afterRound: registry.read,
        trivial: { name: "read_graph", args: { limit: 1, mode: "summary" } },
      };
      await warmFloors(target, engramPlan);
      // Resident memory just before and after the query phase: a query that read the whole graph would grow it with the size.
      row.engram.memoryBeforeQueries = engram.memory();
      row.engram.queries = await queries(target, engramPlan);
      row.engram.registry = registryRate(registry.count(), row.engram.queries);
      log(`engram: search p50 ${ms(row.engram.queries.search.e2e?.p50)} ms end to end, ${ms(row.engram.queries.search.engine?.p50)} ms engine`);
      log(`engram: ${registryLine(row)}`);
    }
    row.engram.memory = engram.memory();
    await client.close();

    if (config.official && officialSkip) row.official = { skipped: officialSkip };
    else if (config.official) {
      const official = await startOfficial({ root, file: path.join(outDir, `official-${process.pid}-${size}.jsonl`) });
      try {
        t0 = performance.now();
        row.official = { load: await load(official.client, data, { batch: config.batch, budgetMs: config.loadBudgetMs, timeoutMs: config.timeoutMs, log }) };
        log(`official: loaded in ${ms(performance.now() - t0)} ms (${row.official.load.entitiesPerSec} entities/s)`);
        row.official.fileBytes = official.fileBytes();
        if (row.official.load.aborted) {
          // Its load is quadratic; finish the same graph through its own file format so the queries still compare.
          official.writeGraph(data);
          row.official.completedByFile = true;
          row.official.fileBytes = official.fileBytes();
          officialSkip = `skipped: its load passed the ${config.loadBudgetMs / 1000} s budget at ${size} entities`;
          log("official: load budget spent; wrote the rest of the graph into its memory.jsonl directly");
        }
        await warmFloors({ client: official.client }, plan);
        row.official.queries = await queries({ client: official.client }, plan);
        const p50 = row.official.queries.search.e2e?.p50;
        log(`official: search p50 ${ms(p50)} ms end to end`);
        if (p50 > config.slowSearchMs) officialSkip = `skipped: its search p50 passed ${config.slowSearchMs / 1000} s at ${size} entities`;
        row.official.memory = official.memory();
      } finally {
        await official.close();
      }
    }
    results.sizes.push(row);
  }

  const clocks = results.sizes.flatMap((r) =>
    Object.values(r.engram.queries ?? {})
      .map((m) => m.engineClock)
      .filter(Boolean),
  );
  if (clocks.length) {
    const steps = clocks.map((c) => c.smallestStepMs).filter((v) => v !== null);
    results.engineClock = {
      fractional: clocks.some((c) => c.fractional),
      smallestStepMs: steps.length ? Math.min(...steps) : null,
      zeros: clocks.reduce((n, c) => n + c.zeros, 0),
    };
    results.notes.push(
      `Engine clock (performance.now() in the Worker around the RPC): smallest step between samples ${results.engineClock.smallestStepMs} ms, ` +
        `sub-millisecond values ${results.engineClock.fractional ? "seen" : "never seen"}, ${results.engineClock.zeros} samples read exactly 0.`,
    );
  }
} catch (error) {
  log(`\nwrangler dev's last output:\n${engram.output()}`);
  throw error;
} finally {
  await engram.stop();
}

if (!opts["no-engine"]) {
  // The search timed inside the object (bench/engine/search.bench.ts), in its own workerd under vitest,
  // after wrangler dev has stopped so the two do not compete for the CPU.
  log(`\n== search inside the object (npm run bench:engine) at ${sizes.join(", ")} entities`);
  const run = spawnSync(
    process.execPath,
    [path.join(root, "node_modules", "vitest", "vitest.mjs"), "run", "--config", path.join(root, "bench", "engine", "vitest.config.ts")],
    {
      cwd: root,
      encoding: "utf8",
      maxBuffer: 64 * 2 ** 20,
      timeout: 3_600_000,
      env: {
        ...process.env,
        ENGINE_SIZES: sizes.join(","),
        ENGINE_QUERIES: String(config.queries),
        ENGINE_SEED: String(config.seed),
        ...(opts.depth ? { ENGINE_DEPTH: opts.depth } : {}),
      },
    },
  );
  const found = (run.stdout ?? "").split("\n").flatMap((line) => {
    const at = line.indexOf("ENGINE_RESULT ");
    if (at < 0) return [];
    try {
      return [JSON.parse(line.slice(at + "ENGINE_RESULT ".length))];
    } catch {
      return []; // a garbled line counts as a missing size below; the run's other results are kept
    }
  });
  for (const r of found) {
    const row = results.sizes.find((s) => s.size === r.size);
    if (row) row.engram.inObject = r;
    log(`engram: search inside the object at ${r.size}: p50 ${ms(r.inObject.p50)} ms, p99 ${ms(r.inObject.p99)} ms`);
  }
  // The depth bench's tables, as it printed them, from its first line to its DEPTH_RESULT.
  // vitest colours its output: the escapes go.
  const out = (run.stdout ?? "").replace(/\x1b\[[0-9;]*m/g, "");
  results.depth = [];
  for (const m of out.matchAll(/^([\d,]+ entities \(seed[^\n]*\n[\s\S]*?)^DEPTH_RESULT (.*)$/gm)) {
    try {
      results.depth.push({ ...JSON.parse(m[2]), tables: m[1].trimEnd() });
    } catch {
      results.notes.push("Depth: a garbled DEPTH_RESULT line was left out.");
    }
  }
  if (opts.depth && results.depth.length < opts.depth.split(",").length)
    results.notes.push(`Depth: measured at ${results.depth.length} of the sizes ${opts.depth}.`);
  if (found.length < sizes.length) {
    results.notes.push(
      `Search inside the object: measured at ${found.length} of ${sizes.length} sizes (vitest exit ${run.status}${run.error ? `, ${run.error.message}` : ""}).`,
    );
    log(`npm run bench:engine output:\n${(run.stdout ?? "").slice(-4000)}\n${(run.stderr ?? "").slice(-4000)}`);
  }
}

const file = path.join(outDir, `bench-${results.startedAt.replace(/[:.]/g, "-")}.json`);
fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
const depth = (results.depth ?? []).map((d) => `\n\nDepth at ${d.size.toLocaleString("en-US")} entities (npm run bench:depth):\n\n${d.tables}`).join("");
console.log(`\n${renderTables(results)}${depth}\n\nResults: ${path.relative(root, file)}`);
