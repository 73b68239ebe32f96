/**
 * The baseline of `npm run bench:recall`: textbook Okapi BM25 over the same
 * turns the benchmark stores in engram, in plain JS, in memory.
 *
 * ## Tokenization
 * NFKC-normalise, lower-case, split on every run of characters that are not
 * letters or digits (so "Caroline's" is "caroline" + "s", "LGBTQ+" is
 * "lgbtq"), drop English stop words (STOP_WORDS: the NLTK list, the same
 * words as src/search/stopwords.ts, plus the single letters an apostrophe
 * leaves behind), then a light stemmer: Harman's S-stemmer (1991), which only
 * folds plurals ("-ies" to "-y", "-es" to "-e", "-s" dropped, with its
 * exceptions), so "groups" meets "group" but "painting" stays apart from "paint".
 *
 * ## Score
 *   score(d, q) = Σ_t∈q idf(t) × tf(t,d) × (k1 + 1) / (tf(t,d) + k1 × (1 − b + b × |d| / avgdl))
 *   idf(t)      = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
 * with k1 = 1.2, b = 0.75, |d| the document's token count after stop words,
 * a query term counted once however often the question repeats it. Ties are
 * broken by the order the documents were added, so a ranking is deterministic.
 */

/** The NLTK English stop words (as src/search/stopwords.ts), and the single letters left by "'s", "'t", "'d", "'m". */
export const STOP_WORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both but by
  can could did do does doing down during each few for from further had has have having he her here hers herself him
  himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other
  our ours ourselves out over own same she should so some such than that the their theirs them themselves then there
  these they this those through to too under until up very was we were what when where which while who whom why will
  with would you your yours yourself yourselves s t d m ll re ve`.split(/\s+/),
);

/** Harman's S-stemmer: the first rule that applies, in order. */
export function stem(word) {
  if (word.endsWith("ies") && !word.endsWith("eies") && !word.endsWith("aies")) return `${word.slice(0, -3)}y`;
  if (word.endsWith("es") && !word.endsWith("aes") && !word.endsWith("ees") && !word.endsWith("oes")) return word.slice(0, -1);
  if (word.endsWith("s") && !word.endsWith("us") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

/** Text to index terms, as the header says. */
export function tokenize(text) {
  const out = [];
  for (const word of text
    .normalize("NFKC")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)) {
    if (word === "" || STOP_WORDS.has(word)) continue;
    out.push(stem(word));
  }
  return out;
}

/**
 * An index over `docs` ([{id, text}]); `search(query, k)` answers the best k
 * as [{id, score}], best first, documents that share no term left out.
 */
export function bm25Index(docs, { k1 = 1.2, b = 0.75 } = {}) {
  const termFreqs = [];
  const lengths = [];
  const df = new Map();
  for (const doc of docs) {
    const tf = new Map();
    const terms = tokenize(doc.text);
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    termFreqs.push(tf);
    lengths.push(terms.length);
  }
  const n = docs.length;
  const avgdl = n ? lengths.reduce((a, l) => a + l, 0) / n : 0;
  const idf = (t) => {
    const f = df.get(t) ?? 0;
    return Math.log(1 + (n - f + 0.5) / (f + 0.5));
  };
  return {
    size: n,
    avgdl,
    idf,
    search(query, k = 10) {
      const terms = [...new Set(tokenize(query))].filter((t) => df.has(t));
      const scored = [];
      for (let i = 0; i < n; i++) {
        const tf = termFreqs[i];
        let score = 0;
        for (const t of terms) {
          const f = tf.get(t);
          if (!f) continue;
          score += (idf(t) * f * (k1 + 1)) / (f + k1 * (1 - b + (b * lengths[i]) / avgdl));
        }
        if (score > 0) scored.push({ i, score });
      }
      scored.sort((x, y) => y.score - x.score || x.i - y.i);
      return scored.slice(0, k).map(({ i, score }) => ({ id: docs[i].id, score }));
    },
  };
}
