/**
 * The ranking of files and documents (src/items/text-rank.ts) is exact top k
 * under BM25F × recency × √priority: on random corpora (common and rare words,
 * items of every age and statistics, exact duplicates that tie), random
 * queries and limits, `rankFiles` returns what an in-test exhaustive scorer
 * returns (the files holding every word first), ties broken by key, with the
 * same scores.
 */
import { runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rankFiles } from "../../src/files/search";
import { CATEGORIES } from "../../src/items";
import { DEFAULT_MODEL } from "../../src/priority/model";
import { parseQuery } from "../../src/search/query";
import { textQuery } from "../../src/search/rank";
import { itemBoost } from "../../src/search/score";
import { queryTerms } from "../../src/search/terms";
import { Db } from "../../src/storage/sql";
import { referenceScores, YEAR_MS } from "../helpers/aged";
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
});

type Question = typeof question extends fc.Arbitrary<infer T> ? T : never;

/** Writes `files` as the only files, each copy under its own path. */
function load(db: Db, files: CorpusFile[]): void {
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
}

/** The exhaustive top k: every match scored from scratch (the reference), every-word matches first, ties by key. */
function exhaustive(db: Db, q: Question): { key: string; score: number }[] {
  return referenceScores(db, "file", q.words, NOW, true)
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
          load(db, files);
          for (const q of questions) {
            const query = textQuery(queryTerms(db, parseQuery(q.words.join(" ")), []));
            const got = rankFiles(db, query, q.limit, { boost });
            const want = exhaustive(db, q);
            expect(got.map((h) => h.path)).toEqual(want.map((w) => w.key));
            for (const [i, h] of got.entries()) expect(Math.abs(h.score - (want[i]?.score ?? 0))).toBeLessThanOrEqual(1e-12 * h.score);
          }
        }),
        { numRuns: 60, seed: 34 },
      );
    });
  });
});
