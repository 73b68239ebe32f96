#!/usr/bin/env node
/**
 * Where the Worker's and the objects' CPU time goes under `wrangler dev`,
 * per workload, from V8's own sampling profiler (DevTools protocol on
 * wrangler's inspector port):
 *
 *   node bench/cpu-profile.mjs [--size 20000] [--calls 300] [--only load,search,open,trivial]
 *
 * Loads a generated graph (profiling the entity load when `load` is asked
 * for), then profiles each other workload's calls separately and prints the
 * functions with the most self time, grouped by source file, plus the
 * share spent in SQLite (time under the storage API's native frames). Shares
 * of sampled time, not absolute costs: the sampler also counts time the
 * isolate waits. Writes each profile to
 * bench/out/<workload>.cpuprofile (open it in Chrome DevTools). Needs Node 22
 * (node_modules/.bin/node): it uses the built-in WebSocket.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startEngram } from "./lib/engram.mjs";
import { generateGraph, openNodeSets, searchQueries } from "./lib/generate.mjs";
import { devtools } from "./lib/devtools.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outDir = path.join(root, "bench", "out");
const { values: opts } = parseArgs({
  options: {
    size: { type: "string", default: "20000" },
    calls: { type: "string", default: "300" },
    seed: { type: "string", default: "1" },
    only: { type: "string", default: "load,search,open,trivial" },
    top: { type: "string", default: "25" },
  },
});
const log = (line) => console.error(line);

const SQL_FRAMES = new Set(["exec", "toArray", "next", "one", "raw"]);

/** Self time per function and per file, and the time under SQLite's exec; `source(scriptId)` shows each function's line. */
async function summarize(profile, top, source) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  const files = new Map();
  let total = 0;
  let sql = 0;
  let idle = 0;
  profile.samples.forEach((sample, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const node = byId.get(sample);
    const f = node.callFrame;
    total += dt;
    if (f.functionName === "(idle)" || f.functionName === "(program)") {
      idle += dt;
      return;
    }
    const file = f.url ? f.url.replace(/^.*\/(src|node_modules)\//, "$1/").split("?")[0] : "(native)";
    const key = JSON.stringify([f.functionName || "(anonymous)", file, f.lineNumber, f.columnNumber, f.scriptId]);
    self.set(key, (self.get(key) ?? 0) + dt);
    files.set(file, (files.get(file) ?? 0) + dt);
    // SQLite runs in native frames (no script URL) of the storage API: the statement in `exec`, further rows in
    // the cursor's `toArray` / `next` / `one` / `raw`. A script's own `exec` (a RegExp's) does not count.
    for (let at = sample; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at).callFrame;
      if (!frame.url && SQL_FRAMES.has(frame.functionName)) {
        sql += dt;
        break;
      }
    }
  });
  const busy = total - idle;
  const pct = (x) => `${((100 * x) / busy).toFixed(1)} %`;
  const lines = [`busy ${(busy / 1000).toFixed(0)} ms of ${(total / 1000).toFixed(0)} ms sampled; under SQL exec: ${pct(sql)}`];
  lines.push("by file:");
  for (const [k, v] of [...files].sort((a, b) => b[1] - a[1]).slice(0, 12)) lines.push(`  ${pct(v).padStart(7)}  ${k}`);
  lines.push("by function (self):");
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    const [name, file, line, column, scriptId] = JSON.parse(k);
    const text = line >= 0 && scriptId !== "0" ? ((await source(scriptId)).split("\n")[line] ?? "").slice(Math.max(0, column - 20), column + 100).trim() : "";
    lines.push(`  ${pct(v).padStart(7)}  ${name} ${file}:${line + 1}  ${text}`);
  }
  return lines.join("\n");
}

const size = Number(opts.size);
const calls = Number(opts.calls);
const only = new Set(opts.only.split(","));
const graph = generateGraph(size, Number(opts.seed));
const names = graph.entities.map((e) => e.name);
const searches = searchQueries(names.slice(0, 1000), calls, Number(opts.seed));
const openSets = openNodeSets(names, calls, Number(opts.seed));
fs.mkdirSync(outDir, { recursive: true });

const server = await startEngram({ root, stateDir: path.join(outDir, `profile-${process.pid}`), log });
process.on("exit", () => server.kill());
try {
  const client = await server.connect("profile");
  const dt = await devtools(server.inspectorPort);
  await dt.send("Debugger.enable");
  const sources = new Map();
  const source = async (scriptId) => {
    if (!sources.has(scriptId)) sources.set(scriptId, (await dt.send("Debugger.getScriptSource", { scriptId }).catch(() => ({ scriptSource: "" }))).scriptSource);
    return sources.get(scriptId);
  };
  await dt.send("Profiler.enable");
  await dt.send("Profiler.setSamplingInterval", { interval: 100 });
  const profiled = async (label, run) => {
    await dt.send("Profiler.start");
    const t0 = performance.now();
    await run();
    const wall = performance.now() - t0;
    const { profile } = await dt.send("Profiler.stop");
    fs.writeFileSync(path.join(outDir, `${label}.cpuprofile`), JSON.stringify(profile));
    console.log(`\n## ${label} (${wall.toFixed(0)} ms wall)\n${await summarize(profile, Number(opts.top), source)}`);
  };
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
    if (r.isError) throw new Error(`${name}: ${r.content?.[0]?.text}`);
  };
  const loadEntities = async () => {
    for (let i = 0; i < graph.entities.length; i += 1000) await call("create_entities", { entities: graph.entities.slice(i, i + 1000) });
  };
  if (only.has("load")) await profiled("load", loadEntities);
  else await loadEntities();
  for (let i = 0; i < graph.relations.length; i += 1000) await call("create_relations", { relations: graph.relations.slice(i, i + 1000) });
  const workloads = {
    search: (i) => ["search_nodes", { query: searches[i % searches.length] }],
    open: (i) => ["open_nodes", { names: openSets[i % openSets.length] }],
    trivial: () => ["read_graph", { limit: 1, mode: "summary" }],
  };
  for (const [label, args] of Object.entries(workloads)) {
    if (!only.has(label)) continue;
    for (let i = 0; i < 3; i++) await call(...args(i));
    await profiled(label, async () => {
      for (let i = 0; i < calls; i++) await call(...args(i));
    });
  }
  dt.close();
  await client.close();
} finally {
  await server.stop();
}
