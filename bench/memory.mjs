#!/usr/bin/env node
/**
 * Does workerd's memory grow with the number of calls, and is it garbage or
 * retained? Under `wrangler dev`, one kind of call at a time:
 *
 *   node bench/memory.mjs [--size 10000] [--calls 3000] [--every 500]
 *     [--only search,open,write,trivial,ping,http]
 *
 * Loads a generated graph, then for each kind runs `--calls` calls one at a
 * time and, every `--every` calls, prints workerd's resident memory (all of
 * wrangler's workerd processes, then each: wrangler's proxy, which forwards
 * every request, and the one that runs the Worker and its objects) and the
 * isolate's JS heap (DevTools protocol on wrangler's inspector port: V8's
 * used heap as it stands, then after a forced full GC). A heap that grows
 * after a forced GC is retained by something; RSS that grows while the
 * post-GC heap stays flat is memory outside the JS heap (docs/scale.md says
 * what this measured). Needs Node 22 (node_modules/.bin/node): it uses the
 * built-in WebSocket.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startEngram, stopWithProcess } from "./lib/engram.mjs";
import { memoryEach } from "./lib/proc.mjs";
import { devtools } from "./lib/devtools.mjs";
import { generateGraph, openNodeSets, searchQueries } from "./lib/generate.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: opts } = parseArgs({
  options: {
    size: { type: "string", default: "10000" },
    calls: { type: "string", default: "3000" },
    every: { type: "string", default: "500" },
    seed: { type: "string", default: "1" },
    only: { type: "string", default: "search,open,write,trivial,ping,http" },
  },
});
const log = (line) => console.error(line);
const size = Number(opts.size);
const calls = Number(opts.calls);
const every = Number(opts.every);
for (const [name, value] of [
  ["size", size],
  ["calls", calls],
  ["every", every],
]) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer, got "${opts[name]}"`);
}

const graph = generateGraph(size, Number(opts.seed));
const names = graph.entities.map((e) => e.name);
const searches = searchQueries(names.slice(0, 1000), 1000, Number(opts.seed));
const openSets = openNodeSets(names, 1000, Number(opts.seed));

const server = await startEngram({ root, stateDir: path.join(root, "bench", "out", `memory-${process.pid}`), log });
stopWithProcess(server, log);
try {
  const client = await server.connect("memory");
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
    if (r.isError) throw new Error(`${name}: ${r.content?.[0]?.text}`);
  };
  for (let i = 0; i < graph.entities.length; i += 1000) await call("create_entities", { entities: graph.entities.slice(i, i + 1000) });
  for (let i = 0; i < graph.relations.length; i += 1000) await call("create_relations", { relations: graph.relations.slice(i, i + 1000) });
  const dt = await devtools(server.inspectorPort);
  const mib = (bytes) => (bytes / 2 ** 20).toFixed(1);
  const sample = async (done) => {
    const rss = server.memory()?.rssMiB;
    const each = memoryEach(server.pid, "workerd").map((p) => Math.round(p.rssKiB / 1024));
    const before = await dt.send("Runtime.getHeapUsage");
    // workerd never answers this command, and runs the collection when the isolate is next entered: a GET /health.
    dt.post("HeapProfiler.collectGarbage");
    await server.health();
    const after = await dt.send("Runtime.getHeapUsage");
    const rssAfter = server.memory()?.rssMiB;
    console.log(
      `${String(done).padStart(7)}  ${String(rss).padStart(5)}  ${String(rssAfter).padStart(5)}  ${mib(before.usedSize).padStart(7)}  ${mib(after.usedSize).padStart(7)}  ${each.join(" ")}`,
    );
    return { rss, rssAfter, heapAfter: after.usedSize };
  };
  let written = 0;
  const kinds = {
    search: (i) => call("search_nodes", { query: searches[i % searches.length] }),
    open: (i) => call("open_nodes", { names: openSets[i % openSets.length] }),
    write: (i) => call("add_observations", { observations: [{ entityName: openSets[i % openSets.length][0], contents: [`memory write ${++written}`] }] }),
    trivial: () => call("read_graph", { limit: 1, mode: "summary" }),
    ping: () => client.ping(),
    http: () => server.health(),
  };
  for (const kind of opts.only.split(",")) {
    const run = kinds[kind];
    if (!run) throw new Error(`--only: unknown kind "${kind}" (${Object.keys(kinds).join(", ")})`);
    console.log(`\n## ${kind}: ${calls} calls at ${size} entities`);
    console.log("  calls  RSS MiB  (after GC)  heap MiB  (after GC)  each workerd MiB");
    const first = await sample(0);
    let last = first;
    for (let i = 0; i < calls; i++) {
      await run(i);
      if ((i + 1) % every === 0 || i + 1 === calls) last = await sample(i + 1);
    }
    const per1000 = (a, b) => (((b - a) / calls) * 1000).toFixed(1);
    console.log(
      `${kind}: per 1,000 calls RSS ${per1000(first.rssAfter, last.rssAfter)} MiB, JS heap after GC ${per1000(first.heapAfter / 2 ** 20, last.heapAfter / 2 ** 20)} MiB`,
    );
  }
  dt.close();
  await client.close();
} finally {
  await server.stop();
}
