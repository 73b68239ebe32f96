#!/usr/bin/env node
/**
 * A/B of two checkouts of engram on the same machine, calls interleaved so
 * machine noise (2 shared cores) falls on both sides alike:
 *
 *   node bench/ab.mjs --base /path/to/other/checkout [--size 20000] [--calls 200]
 *     [--a-env NAME=value ...] [--b-env NAME=value ...]   (environment for one side's wrangler dev;
 *                                                        --base may be this checkout to A/B a setting)
 *
 * Starts `wrangler dev` in this checkout (B) and in --base (A), loads the same
 * generated graph into both (entity batches, then relation batches, alternating A, B, each timed), then runs the fixed
 * searches, open_nodes sets and a trivial tool call alternately A, B, A, B...
 * and prints p50 / mean end to end and engine (the object's RPC time, 1 ms
 * resolution) per side. `--only http,ping,trivial` compares the MCP layer:
 * GET /health, an MCP ping and the trivial call (the layer is trivial minus
 * http, as `npm run bench` reports it). Both servers are stopped at the end,
 * also on error.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startEngram } from "./lib/engram.mjs";
import { generateGraph, openNodeSets, searchQueries } from "./lib/generate.mjs";
import { RPC_MS_META, timed } from "./lib/workload.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: opts } = parseArgs({
  options: {
    base: { type: "string" },
    size: { type: "string", default: "20000" },
    calls: { type: "string", default: "200" },
    seed: { type: "string", default: "1" },
    only: { type: "string", default: "search,open,trivial" },
    "a-env": { type: "string", multiple: true, default: [] },
    "b-env": { type: "string", multiple: true, default: [] },
  },
});
if (!opts.base) throw new Error("--base <checkout> is required");
const size = Number(opts.size);
const calls = Number(opts.calls);
const log = (line) => console.error(line);

const graph = generateGraph(size, Number(opts.seed));
const names = graph.entities.map((e) => e.name);
const searches = searchQueries(names.slice(0, 1000), calls, Number(opts.seed));
const openSets = openNodeSets(names, calls, Number(opts.seed));

const sides = {};
const stopAll = async () => Promise.all(Object.values(sides).map((s) => s.server.stop()));
process.on("exit", () => {
  for (const s of Object.values(sides)) s.server.kill();
});

/** The floors: a plain GET /health and an MCP ping, timed like a tool call. */
const floors = {
  http: (side) => timed(side.server.health)(),
  ping: (side) => timed(() => side.client.ping())(),
};

async function call(client, name, args) {
  const t0 = performance.now();
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
  const ms = performance.now() - t0;
  if (result.isError) throw new Error(`${name} failed: ${result.content?.[0]?.text}`);
  return { ms, engine: result._meta?.[RPC_MS_META] };
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return `p50 ${q(0.5).toFixed(2)} p95 ${q(0.95).toFixed(2)} p99 ${q(0.99).toFixed(2)} mean ${(s.reduce((a, b) => a + b, 0) / s.length).toFixed(2)}`;
};

try {
  const envOf = (pairs) =>
    Object.fromEntries(
      pairs.map((p) => {
        if (p.indexOf("=") < 1) throw new Error(`--a-env / --b-env take NAME=value, got "${p}"`);
        return [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)];
      }),
    );
  for (const [label, dir, env] of [
    ["A", path.resolve(opts.base), envOf(opts["a-env"])],
    ["B", root, envOf(opts["b-env"])],
  ]) {
    const server = await startEngram({ root: dir, stateDir: path.join(root, "bench", "out", `ab-${label}-${process.pid}`), env, log });
    sides[label] = { server, client: await server.connect("ab") };
  }
  // Batches alternate A, B, A, B... so both loads see the same machine.
  const load = { A: { ms: 0, rpc: [] }, B: { ms: 0, rpc: [] } };
  for (let i = 0, k = 0; i < graph.entities.length; i += 1000, k++) {
    for (const label of k % 2 ? ["B", "A"] : ["A", "B"]) {
      const r = await call(sides[label].client, "create_entities", { entities: graph.entities.slice(i, i + 1000) });
      load[label].ms += r.ms;
      load[label].rpc.push(r.engine);
    }
  }
  // Relation batches alternate the same way, timed too.
  const related = { A: { ms: 0, rpc: [] }, B: { ms: 0, rpc: [] } };
  for (let i = 0, k = 0; i < graph.relations.length; i += 1000, k++) {
    for (const label of k % 2 ? ["B", "A"] : ["A", "B"]) {
      const r = await call(sides[label].client, "create_relations", { relations: graph.relations.slice(i, i + 1000) });
      related[label].ms += r.ms;
      related[label].rpc.push(r.engine);
    }
  }
  for (const label of ["A", "B"]) {
    console.log(`load ${label}: ${Math.round((graph.entities.length / load[label].ms) * 1000)} entities/s, RPC per entity batch ${stats(load[label].rpc)}`);
    console.log(
      `load ${label}: ${Math.round((graph.relations.length / related[label].ms) * 1000)} relations/s, RPC per relation batch ${stats(related[label].rpc)}`,
    );
  }
  const kinds = {
    search: (i) => ["search_nodes", { query: searches[i % searches.length] }],
    open: (i) => ["open_nodes", { names: openSets[i % openSets.length] }],
    trivial: () => ["read_graph", { limit: 1, mode: "summary" }],
  };
  for (const kind of opts.only.split(",")) {
    if (!floors[kind] && !kinds[kind]) throw new Error(`--only: unknown kind "${kind}" (search, open, trivial, http, ping)`);
    const out = { A: { e2e: [], engine: [] }, B: { e2e: [], engine: [] } };
    for (let i = 0; i < calls + 3; i++) {
      for (const label of i % 2 ? ["B", "A"] : ["A", "B"]) {
        const r = floors[kind] ? await floors[kind](sides[label]) : await call(sides[label].client, ...kinds[kind](i));
        if (i < 3) continue; // warm-up
        out[label].e2e.push(r.ms);
        if (typeof r.engine === "number") out[label].engine.push(r.engine);
      }
    }
    for (const label of ["A", "B"]) {
      const engine = out[label].engine.length > 0 ? ` | engine ${stats(out[label].engine)}` : "";
      console.log(`${kind} ${label}: e2e ${stats(out[label].e2e)}${engine}`);
    }
  }
} finally {
  await stopAll();
}
