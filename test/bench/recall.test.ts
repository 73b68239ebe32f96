import { describe, expect, it } from "vitest";
import { bm25Index, stem, tokenize } from "../../bench/recall/bm25.mjs";
import { weightedIndex, words } from "../../bench/recall/weighted.mjs";

/** The baseline `npm run bench:recall` compares search_nodes with (bench/recall/bm25.mjs). */
describe("the recall benchmark's BM25 baseline", () => {
  it("tokenizes as documented: NFKC, lower case, split on non-letters and non-digits, stop words out, plurals folded", () => {
    expect(tokenize("When did Caroline's groups go to the LGBTQ+ support-group in 2023?")).toEqual(["caroline", "group", "go", "lgbtq", "support", "group", "2023"]);
    expect(tokenize("Ｃａｆé PARTIES, glasses; bus")).toEqual(["café", "party", "glasse", "bus"]);
    expect(tokenize("what is it that you were doing?")).toEqual([]);
  });

  it("stems with Harman's S-stemmer: the first rule that applies (-ies to -y, -es to -e, -s dropped), each with its exceptions", () => {
    const words = ["ponies", "aies", "horses", "shoes", "trees", "cats", "status", "glass", "painting"];
    expect(words.map(stem)).toEqual(["pony", "aie", "horse", "shoe", "tree", "cat", "status", "glass", "painting"]);
  });

  it("scores with Okapi BM25 (k1 1.2, b 0.75), worked by hand on three documents", () => {
    const index = bm25Index([
      { id: "d1", text: "Cats, cat and a dog" }, // cat cat dog: 3 terms
      { id: "d2", text: "the dog and the bird" }, // dog bird: 2 terms
      { id: "d3", text: "a fish" }, // fish: 1 term
    ]);
    expect(index.size).toBe(3);
    expect(index.avgdl).toBe(2);
    // cat: df 1, idf ln(1 + 2.5/1.5); in d1 tf 2, |d| 3: 2 × 2.2 / (2 + 1.2 × (0.25 + 0.75 × 3/2)).
    expect(index.idf("cat")).toBeCloseTo(Math.log(8 / 3), 12);
    expect(index.search("cat?")).toEqual([{ id: "d1", score: expect.closeTo((Math.log(8 / 3) * 4.4) / 3.65, 12) }]);
    // dog: df 2, idf ln(1.6); the shorter d2 (|d| 2 = avgdl: 2.2 / 2.2) ranks above d1 (2.2 / 2.65).
    expect(index.search("Which dog?")).toEqual([
      { id: "d2", score: expect.closeTo(Math.log(1.6), 12) },
      { id: "d1", score: expect.closeTo((Math.log(1.6) * 2.2) / 2.65, 12) },
    ]);
    // A term repeated in the query counts once; terms add up; unknown terms and stop words add nothing.
    const both = index.search("dog dog fish zebra the");
    expect(both.map((r) => r.id)).toEqual(["d3", "d2", "d1"]);
    expect(both[0]?.score).toBeCloseTo(Math.log(1 + 2.5 / 1.5) * (2.2 / (1 + 1.2 * (0.25 + 0.75 / 2))), 12);
    expect(index.search("the and a")).toEqual([]);
  });

  it("cuts at k and breaks ties by the order documents were added", () => {
    const index = bm25Index([
      { id: "b", text: "red apple" },
      { id: "a", text: "red apple" },
      { id: "c", text: "green pear" },
      { id: "d", text: "red apple" },
    ]);
    expect(index.search("apple").map((r) => r.id)).toEqual(["b", "a", "d"]);
    expect(index.search("apple", 2).map((r) => r.id)).toEqual(["b", "a"]);
  });

  it("ranks with weights per term as the experiments need: every weight 1 is the baseline's order, a lower weight counts for less, a stem counts once", () => {
    const docs = [
      { id: "a", text: "we painted a sunset" },
      { id: "b", text: "a sunrise over the lake, a painting" },
      { id: "c", text: "lakes and sunsets" },
      { id: "d", text: "nothing related" },
    ];
    const index = weightedIndex(docs);
    const baseline = bm25Index(docs);
    const literal = (q: string) => [...new Set(words(q))].map((term) => ({ term, weight: 1 }));
    for (const q of ["sunset over the lake?", "painting", "sunsets lakes painted"])
      expect(index.rank(literal(q)).map((i) => docs[i]?.id)).toEqual(baseline.search(q, 10).map((r) => r.id));
    // "sunrise" at 0.1 ranks its turn below both that say "sunset"; the same word twice ("sunsets") keeps the larger weight.
    expect(
      index
        .rank([
          { term: "sunset", weight: 1 },
          { term: "sunrise", weight: 0.1 },
        ])
        .map((i) => docs[i]?.id),
    ).toEqual(["a", "c", "b"]);
    expect(
      index.rank([
        { term: "sunset", weight: 1 },
        { term: "sunsets", weight: 0.2 },
      ]),
    ).toEqual(index.rank([{ term: "sunset", weight: 1 }]));
    // Feedback: the stems of highest tf·idf in the given docs (the rarer "painting" first), not already known, at the weight asked.
    expect(index.feedback([1], new Set(["sunrise"]), 2, 0.3)).toEqual([
      { term: "painting", weight: 0.3 },
      { term: "lake", weight: 0.3 },
    ]);
  });
});
