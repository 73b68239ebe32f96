#!/usr/bin/env node
/**
 * Does a word repeated within one observation deserve to count more? Ranks the LoCoMo questions of
 * ../shared/locomo-dev/ (or --data DIR) in process with Okapi BM25 over each turn's fields (speaker, text,
 * session date), once with each occurrence counted and once with a word counted once per field, as the
 * engine counts it (docs/search.md, "Term frequency"), at the engine's k1 0.9 / b 0.4 and the textbook
 * 1.2 / 0.75. Prints hit@1, hit@5 and MRR per variant, and how often a question word occurs more than once
 * in one observation of an evidence turn.
 *
 *   npm run bench:tf -- --data ../shared/locomo-dev
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { tokenize } from "./bm25.mjs";
import { conversationFiles, firstHit, readConversation } from "./locomo.mjs";

const { values } = parseArgs({ options: { data: { type: "string", default: path.resolve("..", "shared", "locomo-dev") } } });

function rank(turns, question, { k1, b, once }) {
  const fields = turns.map((t) => [t.entityType, ...t.observations].map(tokenize));
  const lengths = fields.map((f) => f.reduce((n, toks) => n + toks.length, 0));
  const avgdl = lengths.reduce((a, l) => a + l, 0) / turns.length;
  const df = new Map();
  for (const f of fields) for (const t of new Set(f.flat())) df.set(t, (df.get(t) ?? 0) + 1);
  const n = turns.length;
  const terms = [...new Set(tokenize(question))].filter((t) => df.has(t));
  const scored = fields.map((f, i) => {
    let score = 0;
    for (const t of terms) {
      const tf = f.reduce((s, toks) => s + (once ? (toks.includes(t) ? 1 : 0) : toks.filter((x) => x === t).length), 0);
      if (tf === 0) continue;
      const d = df.get(t) ?? 0;
      score += (Math.log(1 + (n - d + 0.5) / (d + 0.5)) * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * lengths[i]) / avgdl));
    }
    return { name: turns[i].name, score, i };
  });
  return scored
    .filter((s) => s.score > 0)
    .sort((x, y) => y.score - x.score || x.i - y.i)
    .map((s) => s.name);
}

const variants = [
  { label: "k1 0.9, b 0.4, each occurrence", k1: 0.9, b: 0.4, once: false },
  { label: "k1 0.9, b 0.4, once per observation", k1: 0.9, b: 0.4, once: true },
  { label: "k1 1.2, b 0.75, each occurrence", k1: 1.2, b: 0.75, once: false },
  { label: "k1 1.2, b 0.75, once per observation", k1: 1.2, b: 0.75, once: true },
];
const totals = variants.map(() => ({ h1: 0, h5: 0, rr: 0 }));
let questions = 0;
let pairs = 0;
let repeated = 0;
for (const file of conversationFiles(values.data)) {
  const conv = readConversation(file);
  const byName = new Map(conv.entities.map((e) => [e.name, e]));
  for (const q of conv.questions) {
    questions++;
    for (const [v, opts] of variants.entries()) {
      const at = firstHit(rank(conv.entities, q.question, opts), q.evidence);
      const t = totals[v];
      if (at === 1) t.h1++;
      if (at >= 1 && at <= 5) t.h5++;
      if (at >= 1) t.rr += 1 / at;
    }
    const words = new Set(tokenize(q.question));
    for (const e of q.evidence) {
      for (const o of byName.get(e)?.observations ?? []) {
        const toks = tokenize(o);
        for (const w of words) {
          const c = toks.filter((x) => x === w).length;
          if (c > 0) pairs++;
          if (c > 1) repeated++;
        }
      }
    }
  }
}
const pct = (x) => `${((100 * x) / questions).toFixed(1)}%`;
console.log(`| variant (${questions} questions) | hit@1 | hit@5 | MRR |\n|---|---|---|---|`);
for (const [v, { label }] of variants.entries()) {
  const t = totals[v];
  console.log(`| ${label} | ${pct(t.h1)} | ${pct(t.h5)} | ${(t.rr / questions).toFixed(3)} |`);
}
console.log(`question words found in an evidence turn's observation: ${pairs}; more than once in it: ${repeated}`);
