/**
 * Okapi BM25 with a weight per query term, for the offline experiments beside
 * `npm run bench:recall` (bench/recall/expansion.mjs, wordvectors.mjs): the
 * same tokens, stemmer and constants as the baseline in ./bm25.mjs, so with
 * every weight 1 it ranks exactly as the baseline does.
 *
 *   score(d, q) = Σ_t w(t) × bm25(t, d)
 *
 * Terms are stemmed and merged by stem, keeping the larger weight, so an
 * added word that stems like a query word cannot count twice.
 */
import { STOP_WORDS, stem } from "./bm25.mjs";

const K1 = 1.2;
const B = 0.75;

/** Words of a text, lower-cased, stop words out (unstemmed: expansions look words up as written). */
export const words = (text) =>
  text
    .normalize("NFKC")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "" && !STOP_WORDS.has(w));

/**
 * An index over `docs` ([{text}]): `rank(weighted)` answers doc indexes that
 * match any term, best first (ties by index); `feedback(top, known, n, weight)`
 * the n stems of highest summed tf·idf over the docs `top`, not in `known`,
 * at `weight` (RM3-style pseudo-relevance feedback).
 */
export function weightedIndex(docs) {
  const tfs = docs.map((d) => {
    const tf = new Map();
    for (const t of words(d.text).map(stem)) tf.set(t, (tf.get(t) ?? 0) + 1);
    return tf;
  });
  const lengths = tfs.map((tf) => [...tf.values()].reduce((a, b) => a + b, 0));
  const avgdl = lengths.reduce((a, b) => a + b, 0) / docs.length;
  const df = new Map();
  for (const tf of tfs) for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t) => Math.log(1 + (docs.length - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5));
  const rank = (weighted) => {
    const w = new Map();
    for (const { term, weight } of weighted) {
      const s = stem(term);
      if (df.has(s)) w.set(s, Math.max(w.get(s) ?? 0, weight));
    }
    const scored = [];
    tfs.forEach((tf, i) => {
      let score = 0;
      for (const [t, weight] of w) {
        const f = tf.get(t);
        if (f) score += weight * ((idf(t) * f * (K1 + 1)) / (f + K1 * (1 - B + (B * lengths[i]) / avgdl)));
      }
      if (score > 0) scored.push({ i, score });
    });
    return scored.sort((a, b) => b.score - a.score || a.i - b.i).map((s) => s.i);
  };
  const feedback = (top, known, n, weight) => {
    const sum = new Map();
    for (const i of top) for (const [t, f] of tfs[i]) if (!known.has(t)) sum.set(t, (sum.get(t) ?? 0) + f * idf(t));
    return [...sum]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, n)
      .map(([term]) => ({ term, weight }));
  };
  return { rank, feedback };
}
