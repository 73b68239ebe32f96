import { describe, expect, it } from "vitest";
import { expandQuery, HYPERNYM_WEIGHT, MAX_ADDED, MAX_PER_TERM, SYNONYM_WEIGHT } from "../../src/search/expand";
import { STOP_WORDS } from "../../src/search/stopwords";
import { tokenize } from "../../src/search/tokenize";

const added = (terms: string[]) => expandQuery(terms).filter((t) => t.weight < 1);
const words = (terms: string[]) => added(terms).map((t) => t.term);

describe("expandQuery", () => {
  it("finds the common word for a formal one, and back", () => {
    expect(words(["automobile"])).toContain("car");
    expect(words(["car"])).toContain("automobile");
    expect(words(["physician"])).toContain("doctor");
    expect(words(["doctor"])).toContain("physician");
  });

  it("keeps the literal terms first at weight 1, in order, and weighs every added term below them", () => {
    const out = expandQuery(["physician", "automobile"]);
    expect(out.slice(0, 2)).toEqual([
      { term: "physician", weight: 1 },
      { term: "automobile", weight: 1 },
    ]);
    for (const t of out.slice(2)) expect(t.weight).toBeLessThan(1);
    expect(out.find((t) => t.term === "doctor")?.weight).toBe(SYNONYM_WEIGHT);
  });

  it("adds broader words at a lower weight than synonyms, after them, marked broader", () => {
    const out = added(["wedding"]);
    expect(out).toContainEqual({ term: "marriage", weight: SYNONYM_WEIGHT, of: "wedding" });
    expect(out).toContainEqual({ term: "ceremony", weight: HYPERNYM_WEIGHT, of: "wedding", broader: true });
    expect(out.map((t) => t.weight)).toEqual([...out.map((t) => t.weight)].sort((a, b) => b - a));
  });

  it("looks up inflected words by their base form", () => {
    expect(words(["automobiles"])).toContain("car");
    expect(words(["physicians"])).toContain("doctor");
    expect(words(["married"])).toContain("wed");
  });

  it("leaves rare senses out: a dog is not a chase", () => {
    expect(words(["dog"])).not.toContain("chase");
  });

  it("never adds a query term, a stop word or a duplicate, and adds nothing for an unknown word", () => {
    const out = expandQuery(["car", "automobile", "car"]);
    const terms = out.map((t) => t.term);
    expect(new Set(terms).size).toBe(terms.length);
    expect(terms.filter((t) => t === "car" || t === "automobile")).toHaveLength(2);
    for (const t of terms) expect(STOP_WORDS.has(t)).toBe(false);
    expect(expandQuery(["zxqvw"])).toEqual([{ term: "zxqvw", weight: 1 }]);
    expect(expandQuery([])).toEqual([]);
  });

  it("adds plain words a single-word query term would be, so they meet the index through the same stemming", () => {
    for (const t of added(["automobile", "physician", "wedding", "purchase", "child", "job"])) {
      expect(tokenize(t.term).map((q) => q.key)).toEqual([t.term]);
    }
  });

  it("bounds the added terms per query term and in all", () => {
    const many = ["child", "job", "person", "car", "marry", "wedding", "purchase", "painting", "camping", "adopt", "doctor"];
    const out = added(many);
    expect(out.length).toBeLessThanOrEqual(MAX_ADDED);
    for (const term of many) expect(added([term]).length).toBeLessThanOrEqual(MAX_PER_TERM);
  });
});
