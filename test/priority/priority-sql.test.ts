/**
 * The priority model as SQL (`prioritySql`) and the boost of files and
 * documents as SQL (`itemBoost`) give what the JavaScript functions give,
 * within 1e-12 relative, on random rows and models: never used, unknown
 * category, marked, at and around the cluster threshold, base_relevance
 * outside [0, 2], times in the future. And the time-free bound that ranking
 * reads from an index (`PRIORITY_BOUND_SQL`, `priorityBound`) is never below
 * the priority, on the same rows, models and times, and it is the index's
 * expression (migrations/0025_search_bounds.sql).
 */
import { runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CATEGORIES, type TextHit } from "../../src/items";
import { priorityInputOf } from "../../src/priority/columns";
import bounds from "../../migrations/0025_search_bounds.sql";
import { DAY_MS, DEFAULT_CATEGORY_WEIGHTS, PRIORITY_BOUND_SQL, priority, priorityBound, prioritySql, sqlReal, type ModelOptions } from "../../src/priority/model";
import { itemBoost } from "../../src/search/score";
import { Db } from "../../src/storage/sql";
import { freshContext } from "../helpers/clients";
import { stubOf } from "../helpers/context";

const NOW = Date.UTC(2026, 5, 1);
const YEAR = 365 * DAY_MS;

const row = fc.record({
  uses: fc.double({ min: -2, max: 500, noNaN: true }),
  created_at: fc.integer({ min: NOW - 5 * YEAR, max: NOW + DAY_MS }),
  updated_at: fc.integer({ min: NOW - 5 * YEAR, max: NOW + DAY_MS }),
  last_accessed_at: fc.option(fc.integer({ min: NOW - 5 * YEAR, max: NOW + DAY_MS }), { nil: null }),
  category: fc.constantFrom(...CATEGORIES, "unknown", ""),
  important: fc.constantFrom(0, 1),
  cluster_size: fc.integer({ min: 0, max: 8 }),
  base_relevance: fc.double({ min: -3, max: 5, noNaN: true }),
});
const weight = fc.double({ min: 0.1, max: 3, noNaN: true });
const model: fc.Arbitrary<ModelOptions> = fc.record({
  categoryWeights: fc.record({ personal: weight, technical: weight, project: weight, casual: weight, general: weight }),
  clusterThreshold: fc.integer({ min: 0, max: 6 }),
});
const models = fc.oneof(fc.constant<ModelOptions>({ categoryWeights: DEFAULT_CATEGORY_WEIGHTS, clusterThreshold: 3 }), model);

const close = (sql: number, js: number) => expect(Math.abs(sql - js)).toBeLessThanOrEqual(1e-12 * Math.abs(js));

describe("the priority model in SQL", () => {
  it("prioritySql and itemBoost's SQL equal priority() and itemBoost's JavaScript within 1e-12 relative", async () => {
    await runInDurableObject(stubOf(freshContext("priority-sql")), (_i, state) => {
      const db = new Db(state.storage.sql);
      fc.assert(
        fc.property(row, models, fc.integer({ min: NOW - YEAR, max: NOW + YEAR }), (r, m, now) => {
          const boost = itemBoost(now, m);
          const [got] = db.all<{ p: number; boost: number }>(
            `SELECT ${prioritySql("i", sqlReal(now), m)} AS p, ${boost.sql} AS boost
             FROM (SELECT ?1 AS uses, ?2 AS created_at, ?3 AS updated_at, ?4 AS last_accessed_at, ?5 AS category, ?6 AS important, ?7 AS cluster_size, ?8 AS base_relevance) i`,
            r.uses,
            r.created_at,
            r.updated_at,
            r.last_accessed_at,
            r.category,
            r.important,
            r.cluster_size,
            r.base_relevance,
          );
          close(got?.p ?? Number.NaN, priority(priorityInputOf(r), now, m));
          const hit: TextHit = { ...r, access_count: 0, tier: "short", lexical: 1, score: 0, snippet: "", all_terms: 0 };
          close(got?.boost ?? Number.NaN, boost.of(hit));
        }),
        { numRuns: 2000, seed: 12 },
      );
    });
  });

  it("PRIORITY_BOUND_SQL × priorityBound is never below priority(), at any time, and is what the index holds", async () => {
    expect(bounds).toContain(`ON entities (${PRIORITY_BOUND_SQL});`);
    await runInDurableObject(stubOf(freshContext("priority-bound")), (_i, state) => {
      const db = new Db(state.storage.sql);
      fc.assert(
        fc.property(row, models, fc.integer({ min: NOW - YEAR, max: NOW + YEAR }), (r, m, now) => {
          const [got] = db.all<{ b: number }>(
            `SELECT ${PRIORITY_BOUND_SQL} AS b FROM (SELECT ?1 AS uses, ?2 AS last_accessed_at, ?3 AS important, ?4 AS cluster_size, ?5 AS base_relevance)`,
            r.uses,
            r.last_accessed_at,
            r.important,
            r.cluster_size,
            r.base_relevance,
          );
          const p = priority(priorityInputOf(r), now, m);
          expect(priorityBound(got?.b ?? Number.NaN, m)).toBeGreaterThanOrEqual(p * (1 - 1e-12));
        }),
        { numRuns: 2000, seed: 13 },
      );
      const plan = db.all<{ detail: string }>(`EXPLAIN QUERY PLAN SELECT max(${PRIORITY_BOUND_SQL}) FROM entities`);
      expect(plan.map((p) => p.detail).join("; ")).toMatch(/SEARCH entities USING COVERING INDEX search_priority_bound/);
    });
  });
});
