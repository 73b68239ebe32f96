#!/usr/bin/env node
/**
 * Does query expansion (src/search/expand.ts) or pseudo-relevance feedback
 * help a whole-query ranking on LoCoMo questions? Offline, in plain JS: the
 * Okapi BM25 of bench/recall/bm25.mjs over each conversation's turns (as
 * `npm run bench:recall` stores them), with each query term weighted
 * (./weighted.mjs):
 *
 * - `bm25`: the question's terms, weight 1 (the baseline of bench:recall);
 * - `+expansion`: plus expandQuery's related words at their weights;
 * - `+prf`: plus the PRF_TERMS terms with the highest summed tf·idf in the
 *   baseline's first PRF_DOCS turns, at PRF_WEIGHT (RM3-style feedback);
 * - `+both`: expansion, then feedback from that ranking.
 * Prints hit@1, hit@5 and MRR per method. src/search/expand.ts is bundled
 * with esbuild (a devDependency) for the run.
 *
 *   node bench/recall/expansion.mjs [--data DIR] [--scale 0.5]   (default ../shared/locomo-dev, scale 1)
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { stem } from "./bm25.mjs";
import { conversationFiles, firstHit, readConversation } from "./locomo.mjs";
import { weightedIndex, words } from "./weighted.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const { values } = parseArgs({
  options: { data: { type: "string", default: path.join(root, "..", "shared", "locomo-dev") }, scale: { type: "string", default: "1" } },
});
/** --scale: multiplies expandQuery's weights of added terms, to try other weights without editing it. */
const SCALE = Number(values.scale);
const PRF_DOCS = 3;
const PRF_TERMS = 5;
const PRF_WEIGHT = 0.3;

const bundled = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "expand-")), "expand.mjs");
await build({ entryPoints: [path.join(root, "src/search/expand.ts")], bundle: true, format: "esm", outfile: bundled, logLevel: "error" });
const { expandQuery } = await import(pathToFileURL(bundled).href);

const methods = ["bm25", "+expansion", "+prf", "+both"];
const ranks = Object.fromEntries(methods.map((m) => [m, []]));
for (const file of conversationFiles(values.data)) {
  const conv = readConversation(file);
  // As bench:recall's BM25 baseline: the speaker and the turn's observations.
  const docs = conv.entities.map((e) => ({ id: e.name, text: `${e.entityType} ${e.observations.join(" ")}` }));
  const { rank, feedback } = weightedIndex(docs);
  for (const q of conv.questions) {
    const literal = [...new Set(words(q.question))].map((term) => ({ term, weight: 1 }));
    const expanded = expandQuery([...new Set(words(q.question))]).map((t) => (t.weight < 1 ? { ...t, weight: t.weight * SCALE } : t));
    const withFeedback = (terms) => {
      const first = rank(terms);
      return [...terms, ...feedback(first.slice(0, PRF_DOCS), new Set(terms.map((t) => stem(t.term))), PRF_TERMS, PRF_WEIGHT)];
    };
    const lists = { bm25: literal, "+expansion": expanded, "+prf": withFeedback(literal), "+both": withFeedback(expanded) };
    for (const m of methods)
      ranks[m].push(
        firstHit(
          rank(lists[m]).map((i) => docs[i].id),
          q.evidence,
        ),
      );
  }
}

const pct = (x) => `${(100 * x).toFixed(1)} %`;
console.log(`${ranks.bm25.length} questions (LoCoMo, adversarial left out), ${values.data}`);
console.log("method       hit@1    hit@5    MRR");
for (const m of methods) {
  const r = ranks[m];
  const hit = (k) => r.filter((x) => x > 0 && x <= k).length / r.length;
  const mrr = r.reduce((a, x) => a + (x > 0 ? 1 / x : 0), 0) / r.length;
  console.log(`${m.padEnd(12)} ${pct(hit(1)).padStart(7)}  ${pct(hit(5)).padStart(7)}  ${mrr.toFixed(3)}`);
}
