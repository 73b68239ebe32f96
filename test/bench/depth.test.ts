import { describe, expect, it } from "vitest";
import { ageBucket, COMMON_WORDS, depthCorpus } from "../../bench/lib/depth.mjs";
import { bm25Index } from "../../bench/recall/bm25.mjs";

// The depth bench (bench/engine/depth.bench.ts) means something only if its needles are the best matches, at every age.
describe("depth bench corpus", () => {
  const size = 1200;
  const corpus = depthCorpus(size, 3, { needles: 10, mix: 5 });

  it("is the same for the same seed and puts each common word in about half of the entities", () => {
    expect(depthCorpus(size, 3, { needles: 10, mix: 5 })).toEqual(corpus);
    for (const word of COMMON_WORDS) {
      const share = corpus.entities.filter((e) => e.observations.some((o) => o.includes(word))).length / size;
      expect(share).toBeGreaterThan(0.4);
      expect(share).toBeLessThan(0.6);
    }
  });

  it("spreads the needles over the load order, each holding its own pair in all four observations and no other common word", () => {
    expect(corpus.needles.map((n) => ageBucket(n.index, size, 5))).toEqual([0, 0, 1, 1, 2, 2, 3, 3, 4, 4]);
    expect(new Set(corpus.needles.map((n) => n.query)).size).toBe(10);
    for (const n of corpus.needles) {
      const text = corpus.entities[n.index]?.observations ?? [];
      expect(text).toHaveLength(4);
      for (const o of text) for (const w of n.words) expect(o).toContain(w);
      const others = COMMON_WORDS.filter((w) => !n.words.includes(w));
      expect(others.some((w) => text.join(" ").includes(w))).toBe(false);
    }
  });

  it("makes every needle its pair's best match under a textbook Okapi BM25 over all the entities", () => {
    const index = bm25Index(corpus.entities.map((e) => ({ id: e.name, text: [e.name, e.entityType, ...e.observations].join(" ") })));
    for (const n of corpus.needles) expect(index.search(n.query, 1)[0]?.id).toBe(n.name);
  });
});
