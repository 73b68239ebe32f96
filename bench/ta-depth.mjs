#!/usr/bin/env node
/**
 * How deep a threshold algorithm over per-word impact-ordered lists would
 * have to read to return the exact top k, on the depth bench's corpus
 * (bench/lib/depth.mjs): the question docs/design/exact-top-k.md's plan asks
 * first, before any such structure is built.
 *
 *   node bench/ta-depth.mjs [--entities 100000] [--k 10] [--queries 20] [--seed 1]
 *
 * Loads the corpus with the real MemoryContext (src/context, bundled with
 * esbuild) into a scratch database on Node's SQLite, then for each pair of
 * common words ranks every matching entity exactly (src/search/rank.ts with
 * no limit) and splits each score into its parts: word a's share, word b's,
 * and the phrase bonus, each × the entity's factor. It then runs Fagin's
 * threshold algorithm over three lists sorted by those parts, ideal lists
 * whose impacts are the exact values (a real structure would store upper
 * bounds, so it could only read deeper): read next from the list whose next
 * value is largest, score each entity the first time it is seen, and stop
 * when the k-th best seen score reaches the sum of the lists' next values.
 * It prints the sorted reads and the entities scored, against the matches,
 * and how many entities an oracle that knew each entity's a + b would have
 * to score (a + b + the largest bonus ≥ the k-th best score). Needs Node 22
 * (node_modules/.bin/node).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { DatabaseSync } from "node:sqlite";
import { depthCorpus } from "./lib/depth.mjs";
import { withKeptDb } from "./lib/kept-db.mjs";
import { nodeState } from "./lib/node-storage.mjs";
import { summarize } from "./lib/stats.mjs";

const { values: opts } = parseArgs({
  options: {
    entities: { type: "string", default: "100000" },
    k: { type: "string", default: "10" },
    queries: { type: "string", default: "20" },
    seed: { type: "string", default: "1" },
  },
});
for (const name of ["entities", "k", "queries", "seed"]) {
  if (!/^[1-9]\d*$/.test(opts[name])) throw new Error(`--${name} must be a positive whole number, got "${opts[name]}"`);
}
const SIZE = Number(opts.entities);
const K = Number(opts.k);

// withKeptDb copies a database; an empty file is one.
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "engram-ta-"));
const empty = path.join(scratch, "empty.sqlite");
new DatabaseSync(empty).close();
try {
  await withKeptDb(empty, async (file, load) => {
    const m = await load(
      `export { MemoryContext } from "./src/context/MemoryContext.ts"; export { parseQuery } from "./src/search/query.ts"; export { Db } from "./src/storage/sql.ts"; export { rankQuery } from "./src/search/rank.ts";`,
    );
    const { state, ready } = nodeState(new DatabaseSync(file));
    const object = new m.MemoryContext(state, { HISTORY_MAX_CHANGES: "10000", HISTORY_MAX_DAYS: "30", MEMORY_TOOLSETS: "all" });
    await ready();

    const corpus = depthCorpus(SIZE, Number(opts.seed), { mix: 1 });
    const t0 = performance.now();
    for (let i = 0; i < corpus.entities.length; i += 1000) {
      const r = object.createEntities(corpus.entities.slice(i, i + 1000), { caller: "bench", callerId: "bench", tool: "create_entities" });
      if (!r.ok) throw new Error(r.message);
    }
    console.log(`loaded ${SIZE} entities in ${((performance.now() - t0) / 1000).toFixed(0)} s; k = ${K}`);

    const db = new m.Db(state.storage.sql);
    const now = Date.now();
    const rows = [];
    for (const text of [...corpus.queries.needles, ...corpus.queries.pairs].slice(0, Number(opts.queries))) {
      const ranked = m.rankQuery(db, m.parseQuery(text), { now, top: SIZE + 1 }).entities;
      const parts = ranked.map((e) => {
        const a = e.perTerm.get(0) ?? 0;
        const b = e.perTerm.get(1) ?? 0;
        return { id: e.id, score: e.score, a, b, n: Math.max(0, e.score - a - b) };
      });
      const lists = ["a", "b", "n"].map((key) => parts.filter((p) => p[key] > 0).sort((x, y) => y[key] - x[key] || x.id - y.id));
      const at = [0, 0, 0];
      const next = () => lists.map((l, i) => l[at[i]]?.[["a", "b", "n"][i]] ?? 0);
      const seen = new Map();
      const best = []; // the K best seen scores, descending
      let reads = 0;
      for (;;) {
        const values = next();
        const tau = values.reduce((s, v) => s + v, 0);
        if ((best.length >= K && best[K - 1] >= tau) || tau === 0) break;
        const i = values.indexOf(Math.max(...values));
        const e = lists[i][at[i]++];
        reads++;
        if (seen.has(e.id)) continue;
        seen.set(e.id, e);
        best.push(e.score);
        best.sort((x, y) => y - x);
        if (best.length > K) best.length = K;
      }
      const theta = [...parts].sort((x, y) => y.score - x.score)[K - 1]?.score ?? 0;
      const bonus = parts.reduce((m, p) => Math.max(m, p.n), 0);
      rows.push({ text, matches: parts.length, reads, scored: seen.size, oracle: parts.filter((p) => p.a + p.b + bonus >= theta).length });
    }
    const line = (key) => {
      const s = summarize(rows.map((r) => r[key]));
      return `${key}: p50 ${s.p50} p95 ${s.p95} max ${s.max}`;
    };
    console.log(`${rows.length} queries of two common words; ${line("matches")}`);
    console.log(`threshold algorithm over ideal per-word lists: sorted ${line("reads")}; entities ${line("scored")}`);
    console.log(`entities an oracle knowing each entity's a + b would score: ${line("oracle")}`);
    const shares = rows.map((r) => r.scored / r.matches).sort((x, y) => x - y);
    console.log(`entities scored / matches: median ${(100 * (shares[Math.floor(shares.length / 2)] ?? 0)).toFixed(1)} %`);
  });
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
