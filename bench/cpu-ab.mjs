#!/usr/bin/env node
/**
 * CPU per call of two checkouts of engram, in alternating blocks of
 * back-to-back calls:
 *
 *   node bench/cpu-ab.mjs --base /path/to/other/checkout [--size 20000] [--blocks 10] [--per 50]
 *
 * Starts `wrangler dev` in --base (A) and in this checkout (B), loads the same
 * generated graph into both, then runs blocks of --per searches followed by
 * --per trivial tool calls, A B B A A B..., each block back to back on one
 * server, as `npm run bench` calls it. Prints per side the p50 end to end and
 * the CPU time per call of wrangler's processes (the Node proxy and workerd:
 * the Worker and its objects) from /proc, with what a call left running
 * afterwards (deferred writes, timers) counted in its block: the block ends
 * DRAIN_MS after its last call. Unlike bench/ab.mjs, which interleaves single
 * calls, it keeps a server's back-to-back pattern (and so its deferred work)
 * within a block, and CPU time is less sensitive to the machine's speed than
 * latency. Linux only (/proc).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startEngram } from "./lib/engram.mjs";
import { descendants } from "./lib/proc.mjs";
import { generateGraph, searchQueries } from "./lib/generate.mjs";
import { percentile } from "./lib/stats.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: opts } = parseArgs({
  options: {
    base: { type: "string" },
    size: { type: "string", default: "20000" },
    blocks: { type: "string", default: "10" },
    per: { type: "string", default: "50" },
    seed: { type: "string", default: "1" },
  },
});
if (!opts.base) throw new Error("--base <checkout> is required");
const log = (line) => console.error(line);
/** Deferred work of a block's calls (a search's hits wait at most 1 s) lands before the block's CPU is read. */
const DRAIN_MS = 1200;
/** clock ticks per second in /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS = 100;
const TRIVIAL = { name: "read_graph", arguments: { limit: 1, mode: "summary" } };

/** CPU milliseconds used so far by `pid` and its descendants, or only those whose command is `only`. */
function cpuMs(pid, only) {
  let ticks = 0;
  for (const p of descendants(pid)) {
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${p}/stat`, "utf8");
    } catch {
      continue; // exited
    }
    const close = stat.lastIndexOf(")");
    if (only && stat.slice(stat.indexOf("(") + 1, close) !== only) continue;
    const fields = stat.slice(close + 2).split(" ");
    ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
  }
  return (ticks * 1000) / TICKS;
}

const graph = generateGraph(Number(opts.size), Number(opts.seed));
const queries = searchQueries(
  graph.entities.slice(0, 1000).map((e) => e.name),
  1000,
  Number(opts.seed),
);
const per = Number(opts.per);
const sides = {};
process.on("exit", () => {
  for (const s of Object.values(sides)) s.server.kill();
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function call(client, request) {
  const t0 = performance.now();
  const result = await client.callTool(request, undefined, { timeout: 600_000 });
  if (result.isError) throw new Error(`${request.name} failed: ${result.content?.[0]?.text}`);
  return performance.now() - t0;
}

/** Runs `requests` back to back on one side; adds their latencies and CPU to `into`. */
async function block(side, requests, into) {
  await sleep(DRAIN_MS);
  const all0 = cpuMs(side.server.pid);
  const w0 = cpuMs(side.server.pid, "workerd");
  for (const request of requests) into.ms.push(await call(side.client, request));
  await sleep(DRAIN_MS);
  into.cpu += cpuMs(side.server.pid) - all0;
  into.workerd += cpuMs(side.server.pid, "workerd") - w0;
}

try {
  for (const [label, dir] of [
    ["A", path.resolve(opts.base)],
    ["B", root],
  ]) {
    const server = await startEngram({ root: dir, stateDir: path.join(root, "bench", "out", `cpu-ab-${label}-${process.pid}`), log });
    const client = await server.connect("cpu-ab");
    sides[label] = { server, client, search: { ms: [], cpu: 0, workerd: 0 }, trivial: { ms: [], cpu: 0, workerd: 0 } };
    for (let i = 0; i < graph.entities.length; i += 1000)
      await call(client, { name: "create_entities", arguments: { entities: graph.entities.slice(i, i + 1000) } });
    for (let i = 0; i < graph.relations.length; i += 1000)
      await call(client, { name: "create_relations", arguments: { relations: graph.relations.slice(i, i + 1000) } });
    log(`${label}: loaded ${graph.entities.length} entities`);
  }
  for (let b = 0; b < Number(opts.blocks); b++) {
    const searches = Array.from({ length: per }, (_, i) => ({ name: "search_nodes", arguments: { query: queries[(b * per + i) % queries.length] } }));
    for (const label of b % 2 ? ["B", "A"] : ["A", "B"]) {
      await block(sides[label], searches, sides[label].search);
      await block(sides[label], Array(per).fill(TRIVIAL), sides[label].trivial);
    }
  }
  const p50 = (xs) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  for (const [label, side] of Object.entries(sides)) {
    const s = side.search;
    const t = side.trivial;
    console.log(
      `${label}: search p50 ${p50(s.ms).toFixed(2)} ms, trivial p50 ${p50(t.ms).toFixed(2)} ms (ratio ${(p50(s.ms) / p50(t.ms)).toFixed(2)}); ` +
        `CPU per call: search ${(s.cpu / s.ms.length).toFixed(2)} ms (workerd ${(s.workerd / s.ms.length).toFixed(2)}), ` +
        `trivial ${(t.cpu / t.ms.length).toFixed(2)} ms (workerd ${(t.workerd / t.ms.length).toFixed(2)})`,
    );
  }
} finally {
  await Promise.all(Object.values(sides).map((s) => s.server.stop()));
}
