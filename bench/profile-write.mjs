#!/usr/bin/env node
/**
 * Where a bulk write's time goes, statement by statement, outside workerd:
 *
 *   node bench/profile-write.mjs --db <a context's .sqlite> [--batches 5] [--batch 1000] [--seed 1] [--setup SQL]
 *
 * The companion of profile-search.mjs for the write path: it runs the real
 * MemoryContext (src/context, bundled with esbuild; `cloudflare:workers`
 * replaced by a bare base class) on Node's SQLite (node:sqlite, FTS5 built
 * in) over a copy of a context's database, e.g. one kept by
 * `npm run bench -- --keep-state dir`, and calls `createEntities` with the
 * benchmark's next entities (the generator's entities after the ones the
 * database already holds), then `createRelations` with theirs. It prints the
 * time per batch, in SQLite and in JavaScript, and per SQL statement shape.
 * Absolute numbers differ from workerd's (another SQLite build, no RPC); the
 * shares are what it is for. Needs Node 22 (node_modules/.bin/node).
 */
import fs from "node:fs";
import { parseArgs } from "node:util";
import { DatabaseSync } from "node:sqlite";
import { generateGraph } from "./lib/generate.mjs";
import { withKeptDb } from "./lib/kept-db.mjs";
import { nodeState } from "./lib/node-storage.mjs";

const { values: opts } = parseArgs({
  options: {
    db: { type: "string" },
    batches: { type: "string", default: "5" },
    batch: { type: "string", default: "1000" },
    seed: { type: "string", default: "1" },
    setup: { type: "string" },
  },
});

await withKeptDb(opts.db, async (copy, load) => {
  const { MemoryContext } = await load(`export { MemoryContext } from "./src/context/MemoryContext.ts";`);

  const sqlite = new DatabaseSync(copy);
  // --setup "<SQL>": run on the copy first, e.g. to try an FTS5 option ('automerge', 'pgsz').
  if (opts.setup) sqlite.exec(opts.setup);
  sqlite.exec("PRAGMA wal_autocheckpoint = 0");
  const spent = new Map(); // statement shape -> { n, ms }
  let sqlMs = 0;
  let commitMs = 0; // this batch's COMMIT (writing its pages out)
  let walPages = 0; // pages the commits appended to the WAL (checkpoints off)
  let counting = false;
  const walSize = () => (fs.existsSync(`${copy}-wal`) ? fs.statSync(`${copy}-wal`).size : 0);
  let walBefore = 0;
  const { state, ready } = nodeState(sqlite, {
    statement(query, ms) {
      if (!counting) return;
      sqlMs += ms;
      const shape = query.replace(/\s+/g, " ").trim().slice(0, 100);
      const s = spent.get(shape) ?? { n: 0, ms: 0 };
      s.n++;
      s.ms += ms;
      spent.set(shape, s);
    },
    beforeCommit() {
      if (counting) walBefore = walSize();
    },
    commit(ms) {
      if (!counting) return;
      commitMs += ms;
      walPages += (walSize() - walBefore) / 4120;
    },
  });
  const env = {
    HISTORY_MAX_CHANGES: "10000",
    HISTORY_MAX_DAYS: "30",
    ROOT_TEMPLATE: "# root\n",
    DOCUMENT_MAX_DEPTH: "16",
    COVIS_SESSION_IDLE_MINUTES: "30",
    MEMORY_COVIS_MAX_RECOMMENDATIONS: "3",
    MEMORY_EVALUATION_MINUTES: "10",
    PROMOTION_THRESHOLD: "0.2",
    SEMANTIC_CLUSTER_THRESHOLD: "3",
    SEARCH_MIN_RELATIVE_SCORE: "0.3",
    SEARCH_TOP_PER_TOKEN: "1",
    SEARCH_MAX_PATH_LENGTH: "5",
    SEARCH_MAX_TOTAL_NODES: "50",
    MEMORY_TOOLSETS: "all",
  };
  const object = new MemoryContext(state, env);
  await ready();

  const held = Number(sqlite.prepare("SELECT count(*) AS n FROM entities").get().n);
  const batch = Number(opts.batch);
  const batches = Number(opts.batches);
  const graph = generateGraph(held + batch * batches, Number(opts.seed));
  const fresh = graph.entities.slice(held);
  const names = new Set(fresh.map((e) => e.name));
  const relations = graph.relations.filter((r) => names.has(r.from) || names.has(r.to));
  const meta = { caller: "bench", callerId: "bench", tool: "create_entities" };

  const line = (label, xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(1);
    return `${label}: p50 ${q(0.5)} min ${s[0].toFixed(1)} max ${s[s.length - 1].toFixed(1)} mean ${(s.reduce((a, b) => a + b, 0) / s.length).toFixed(1)} ms`;
  };
  const phase = (label, items, call) => {
    spent.clear();
    walPages = 0;
    const times = [];
    const sqlTimes = [];
    const commitTimes = [];
    counting = true;
    for (let i = 0; i < items.length; i += batch) {
      sqlMs = 0;
      commitMs = 0;
      const t0 = performance.now();
      const outcome = call(items.slice(i, i + batch));
      times.push(performance.now() - t0);
      sqlTimes.push(sqlMs);
      commitTimes.push(commitMs);
      if (!outcome.ok) throw new Error(`${label}: ${outcome.message}`);
    }
    counting = false;
    const total = times.reduce((a, b) => a + b, 0);
    console.log(`\n${label}: ${times.length} batches of ${batch} at ${held} entities (ms per batch)`);
    console.log(line("batch", times));
    console.log(line("  in SQLite", sqlTimes));
    console.log(line("  in COMMIT", commitTimes));
    console.log(`  pages written per batch (WAL growth): ${(walPages / times.length).toFixed(0)}`);
    console.log(
      line(
        "  in JavaScript",
        times.map((t, i) => t - sqlTimes[i] - commitTimes[i]),
      ),
    );
    console.log("\n| ms per batch | share | calls per batch | statement |\n|---|---|---|---|");
    for (const [shape, s] of [...spent].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25)) {
      console.log(`| ${(s.ms / times.length).toFixed(2)} | ${((100 * s.ms) / total).toFixed(1)} % | ${(s.n / times.length).toFixed(1)} | \`${shape}\` |`);
    }
  };
  phase("create_entities", fresh, (chunk) => object.createEntities(chunk, meta));
  phase("create_relations", relations, (chunk) => object.createRelations(chunk, { ...meta, tool: "create_relations" }));
  sqlite.close();
});
