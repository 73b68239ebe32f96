/**
 * The ranking of files and documents (src/items/text-index.ts) is exact top k
 * under bm25 × recency × √priority: on random corpora (common and rare words,
 * items of every age and statistics, exact duplicates that tie), random
 * queries, limits and skipped keys, `rankFiles` returns what an in-test
 * exhaustive scorer returns, ties broken by key, with the same scores.
 */
import { runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rankFiles } from "../../src/files/search";
import { CATEGORIES, type TextBoost } from "../../src/items";
import { DEFAULT_MODEL } from "../../src/priority/model";
import { itemBoost } from "../../src/search/score";
import { tokenize } from "../../src/search/tokenize";
import { Db } from "../../src/storage/sql";
import { referenceScores, YEAR_MS, type Scored } from "../helpers/aged";
import { freshContext } from "../helpers/clients";
import { stubOf } from "../helpers/context";

const NOW = Date.UTC(2026, 5, 1);
/** Common words first: a file draws its words mostly from the start of the list. */
const WORDS = ["kafka", "outage", "deploy", "broker", "lag", "redis", "quota", "saga", "zebra"];

const stats = fc.record({
  age: fc.integer({ min: 0, max: 3 * YEAR_MS }),
  sinceUpdate: fc.double({ min: 0, max: 1, noNaN: true }),
  uses: fc.double({ min: 0, max: 60, noNaN: true }),
  lastAccess: fc.option(fc.integer({ min: 0, max: 2 * YEAR_MS }), { nil: null }),
  category: fc.constantFrom(...CATEGORIES, "unknown"),
  important: fc.boolean(),
  cluster: fc.integer({ min: 0, max: 6 }),
  base: fc.double({ min: -1, max: 3, noNaN: true }),
});
const file = fc.record({
  words: fc.array(
    fc.integer({ min: 0, max: WORDS.length - 1 }).map((i) => WORDS[Math.floor((i * i) / WORDS.length)] as string),
    { minLength: 1, maxLength: 9 },
  ),
  stats,
  copies: fc.integer({ min: 1, max: 12 }),
});
type CorpusFile = typeof file extends fc.Arbitrary<infer T> ? T : never;
const corpus = fc.array(file, { minLength: 1, maxLength: 40 });
const question = fc.record({
  words: fc.uniqueArray(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }),
  limit: fc.integer({ min: 1, max: 20 }),
  allFirst: fc.boolean(),
  skip: fc.array(fc.nat(), { maxLength: 5 }),
});

type Question = typeof question extends fc.Arbitrary<infer T> ? T : never;

/** Writes `files` as the only files, each copy under its own path; returns how many there are. */
function load(db: Db, files: CorpusFile[]): number {
  db.run("DELETE FROM files");
  let n = 0;
  for (const f of files) {
    const s = f.stats;
    const created = NOW - s.age;
    // Copies are exact duplicates but for the path: their scores tie, and the key decides.
    for (let c = 0; c < f.copies; c++) {
      db.run(
        `INSERT INTO files (path, content, created_at, updated_at, uses, last_accessed_at, category, important, cluster_size, base_relevance)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        `f${n++}.md`,
        f.words.join(" "),
        created,
        created + Math.floor(s.age * s.sinceUpdate),
        s.uses,
        s.lastAccess === null ? null : NOW - s.lastAccess,
        s.category,
        s.important ? 1 : 0,
        s.cluster,
        s.base,
      );
    }
  }
  return n;
}

/** The exhaustive top k: every match scored (`score` of the reference's row), every-word matches first when asked, ties by key. */
function exhaustive(db: Db, q: Question, skip: readonly string[], score: (r: Scored) => number): { key: string; score: number }[] {
  const quoted = q.words.map((w) => `"${w}"`);
  const complete = q.allFirst && q.words.length > 1 ? new Set(referenceScores(db, "file", quoted.join(" AND "), NOW).map((r) => r.key)) : new Set<string>();
  return referenceScores(db, "file", quoted.join(" OR "), NOW)
    .filter((r) => !skip.includes(r.key))
    .map((r) => ({ key: r.key, score: score(r), all: complete.has(r.key) ? 1 : 0 }))
    .sort((a, b) => b.all - a.all || b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, q.limit)
    .map(({ key, score }) => ({ key, score }));
}

describe("files ranked exactly", () => {
  it("returns the exhaustive scorer's top k, ties by key, whatever the items' ages and statistics", async () => {
    await runInDurableObject(stubOf(freshContext("text-rank")), (_i, state) => {
      const db = new Db(state.storage.sql);
      const boost = itemBoost(NOW, DEFAULT_MODEL);
      fc.assert(
        fc.property(corpus, fc.array(question, { minLength: 1, maxLength: 4 }), (files, questions) => {
          const n = load(db, files);
          for (const q of questions) {
            const skip = q.skip.map((i) => `f${i % n}.md`);
            const got = rankFiles(db, tokenize(q.words.join(" ")), q.limit, { allFirst: q.allFirst, boost, skip });
            expect(got.map((h) => ({ key: h.path, score: h.score }))).toEqual(exhaustive(db, q, skip, (r) => r.score));
          }
        }),
        { numRuns: 60, seed: 34 },
      );
    });
  });

  it("decides near-ties at the cut in JavaScript when SQLite's value of the boost differs in the last bits", async () => {
    await runInDurableObject(stubOf(freshContext("text-rank")), (_i, state) => {
      const db = new Db(state.storage.sql);
      // SQLite sees each file a few parts in 10^13 better or worse than JavaScript does, so its order of equal scores is off.
      const drifted: TextBoost = { sql: "(1.0 + (i.id % 7 - 3) * 1e-13)", of: () => 1 };
      fc.assert(
        fc.property(corpus, fc.array(question, { minLength: 1, maxLength: 4 }), (files, questions) => {
          const n = load(db, files);
          for (const q of questions) {
            const skip = q.skip.map((i) => `f${i % n}.md`);
            const got = rankFiles(db, tokenize(q.words.join(" ")), q.limit, { allFirst: q.allFirst, boost: drifted, skip });
            expect(got.map((h) => ({ key: h.path, score: h.score }))).toEqual(exhaustive(db, q, skip, (r) => r.bm25));
          }
        }),
        { numRuns: 60, seed: 35 },
      );
    });
  });
});
