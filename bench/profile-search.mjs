#!/usr/bin/env node
/**
 * Where a search's time goes, statement by statement, outside workerd:
 *
 *   node bench/profile-search.mjs --db <a context's .sqlite> [--queries 200] [--seed 1] [--runs 3] [--slowest 10]
 *
 * Inside a Durable Object the clock stands still during synchronous code, so
 * the object cannot time its own statements. This runs the real search code
 * (src/search, bundled with esbuild) on Node's SQLite (node:sqlite, FTS5
 * built in) over a copy of a context's database, e.g. one kept by
 * `npm run bench -- --keep-state dir` (the files are under
 * dir/v3/do/engram-MemoryContext/), with the benchmark's fixed queries, and
 * prints the time per query and per SQL statement shape. Absolute numbers
 * differ from workerd's (another SQLite build, no RPC, no access tracking);
 * the shares are what it is for. `--slowest N` lists the N slowest queries
 * (their best run) with the statement shapes that took most of each: where
 * the tail goes. Needs Node 22 (node_modules/.bin/node).
 */
import { parseArgs } from "node:util";
import { DatabaseSync } from "node:sqlite";
import { searchQueries } from "./lib/generate.mjs";
import { withKeptDb } from "./lib/kept-db.mjs";

const { values: opts } = parseArgs({
  options: {
    db: { type: "string" },
    queries: { type: "string", default: "200" },
    seed: { type: "string", default: "1" },
    runs: { type: "string", default: "3" },
    slowest: { type: "string", default: "0" },
  },
});

await withKeptDb(opts.db, async (copy, load) => {
  const { searchGraph, searchParams, parseQuery, Db } = await load(
    `export { searchGraph, searchParams } from "./src/search/index.ts"; export { parseQuery } from "./src/search/query.ts"; export { Db } from "./src/storage/sql.ts";`,
  );

  const sqlite = new DatabaseSync(copy);
  if (process.env.CACHE) sqlite.exec(`PRAGMA cache_size = ${process.env.CACHE}`);
  const statements = new Map();
  const spent = new Map(); // statement shape -> { n, ms }
  let sqlMs = 0; // this query's time in SQLite
  let perQuery = new Map(); // this query's statement shape -> { n, ms }
  /** The slice of SqlStorage that Db uses, over node:sqlite, timing every statement. */
  const storage = {
    exec(query, ...params) {
      let st = statements.get(query);
      if (!st) statements.set(query, (st = sqlite.prepare(query)));
      const t0 = performance.now();
      const rows = st.all(...params);
      const ms = performance.now() - t0;
      sqlMs += ms;
      const shape = query.replace(/\s+/g, " ").slice(0, 90);
      for (const into of [spent, perQuery]) {
        const s = into.get(shape) ?? { n: 0, ms: 0 };
        s.n++;
        s.ms += ms;
        into.set(shape, s);
      }
      return { toArray: () => rows, one: () => rows[0], [Symbol.iterator]: () => rows[Symbol.iterator](), rowsWritten: 0 };
    },
  };
  const db = new Db(storage);
  const names = sqlite
    .prepare("SELECT name FROM entities ORDER BY id LIMIT 1000")
    .all()
    .map((r) => r.name);
  const queries = searchQueries(names, Number(opts.queries), Number(opts.seed));
  const settings = {
    SEARCH_MIN_RELATIVE_SCORE: 0.3,
    SEARCH_TOP_PER_TOKEN: 1,
    SEARCH_MAX_PATH_LENGTH: 5,
    SEARCH_MAX_TOTAL_NODES: 50,
  };
  const params = searchParams({}, settings);
  const now = Date.now();
  const times = [];
  const sqlTimes = [];
  const best = new Map(); // query -> its fastest run { ms, sqlMs, shapes }
  for (let run = 0; run < Number(opts.runs); run++) {
    if (run === 1) spent.clear(); // the first run warms the page cache and the statement cache
    for (const q of queries) {
      sqlMs = 0;
      perQuery = new Map();
      const t0 = performance.now();
      searchGraph(db, parseQuery(q), params, now);
      if (run > 0) {
        const ms = performance.now() - t0;
        times.push(ms);
        sqlTimes.push(sqlMs);
        const b = best.get(q);
        if (!b || ms < b.ms) best.set(q, { ms, sqlMs, shapes: perQuery });
      }
    }
  }
  const total = times.reduce((a, b) => a + b, 0);
  const line = (label, xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(2);
    return `${label}: p50 ${q(0.5)} p95 ${q(0.95)} p99 ${q(0.99)} mean ${(s.reduce((a, b) => a + b, 0) / s.length).toFixed(2)} ms`;
  };
  console.log(`${sqlite.prepare("SELECT count(*) AS n FROM entities").get().n} entities, ${times.length} searches (ms per search)`);
  console.log(line("search", times));
  console.log(line("  in SQLite", sqlTimes));
  console.log(
    line(
      "  in JavaScript",
      times.map((t, i) => t - sqlTimes[i]),
    ),
  );
  console.log("\n| ms per search | share | calls per search | statement |\n|---|---|---|---|");
  const calls = times.length;
  for (const [shape, s] of [...spent].sort((a, b) => b[1].ms - a[1].ms)) {
    console.log(`| ${(s.ms / calls).toFixed(3)} | ${((100 * s.ms) / total).toFixed(1)} % | ${(s.n / calls).toFixed(1)} | \`${shape}\` |`);
  }
  const slowest = [...best].sort((a, b) => b[1].ms - a[1].ms).slice(0, Number(opts.slowest));
  if (slowest.length > 0) console.log(`\nSlowest ${slowest.length} queries (their fastest run), with the statements that took most of each:`);
  for (const [q, b] of slowest) {
    console.log(`\n${b.ms.toFixed(2)} ms (${b.sqlMs.toFixed(2)} in SQLite): \`${q}\``);
    for (const [shape, s] of [...b.shapes].sort((x, y) => y[1].ms - x[1].ms).slice(0, 4)) console.log(`  ${s.ms.toFixed(2)} ms, ${s.n} calls: \`${shape}\``);
  }
  sqlite.close();
});
