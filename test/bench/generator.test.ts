import { describe, expect, it } from "vitest";
import { generateGraph, openNodeSets, prefix, searchQueries } from "../../bench/lib/generate.mjs";
import { LIMITS } from "../../src/limits";

// The benchmark's data must be reproducible and valid input, or its numbers mean nothing.
describe("benchmark data generator", () => {
  const graph = generateGraph(2000, 7);
  const names = graph.entities.map((e) => e.name);

  it("gives the same graph and queries for the same seed and a different graph for another seed", () => {
    expect(generateGraph(2000, 7)).toEqual(graph);
    expect(searchQueries(names, 200, 7)).toEqual(searchQueries(names, 200, 7));
    expect(generateGraph(2000, 8).entities[0]).not.toEqual(graph.entities[0]);
  });

  it("makes a smaller graph that is exactly a prefix of a larger one", () => {
    expect(prefix(graph, 500)).toEqual(generateGraph(500, 7));
  });

  it("makes unique valid names in kebab, camel and snake case, about 5 observations and 2 relations each", () => {
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) {
      expect(name.length).toBeLessThanOrEqual(LIMITS.entityName);
      expect(name).toMatch(/^[a-z0-9][a-zA-Z0-9_-]*$/);
    }
    expect(names.some((n) => n.includes("-"))).toBe(true);
    expect(names.some((n) => n.includes("_"))).toBe(true);
    expect(names.some((n) => /[a-z][A-Z]/.test(n))).toBe(true);
    const observations = graph.entities.reduce((n, e) => n + e.observations.length, 0) / graph.entities.length;
    expect(observations).toBeGreaterThan(4.5);
    expect(observations).toBeLessThan(5.5);
    for (const e of graph.entities) expect(new Set(e.observations).size).toBe(e.observations.length);
    const perEntity = graph.relations.length / graph.entities.length;
    expect(perEntity).toBeGreaterThan(1.8);
    expect(perEntity).toBeLessThan(2.2);
  });

  it("makes relations only between existing entities, without self-loops or duplicates", () => {
    const known = new Set(names);
    const keys = new Set<string>();
    for (const r of graph.relations) {
      expect(known.has(r.from) && known.has(r.to)).toBe(true);
      expect(r.from).not.toBe(r.to);
      keys.add(`${r.from}|${r.to}|${r.relationType}`);
    }
    expect(keys.size).toBe(graph.relations.length);
  });

  it("makes 200 queries of 1 to 4 terms and open_nodes sets of 1 to 4 existing names", () => {
    const queries = searchQueries(names.slice(0, 1000), 200, 7);
    expect(queries).toHaveLength(200);
    for (const q of queries) {
      const terms = q.split(" ");
      expect(terms.length).toBeGreaterThanOrEqual(1);
      expect(terms.length).toBeLessThanOrEqual(4);
    }
    expect(new Set(queries.map((q) => q.split(" ").length))).toEqual(new Set([1, 2, 3, 4]));
    const known = new Set(names);
    for (const set of openNodeSets(names, 200, 7)) {
      expect(set.length).toBeGreaterThanOrEqual(1);
      expect(set.length).toBeLessThanOrEqual(4);
      for (const n of set) expect(known.has(n)).toBe(true);
    }
  });
});
