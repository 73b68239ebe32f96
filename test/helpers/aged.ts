/**
 * Items written at chosen times, for the tests of files' and documents'
 * ranking at any age: a context whose clock a test sets (the object's `now`),
 * and the in-test reference a ranking is checked against, every matching
 * item of an index scored from FTS5's whole doclist (bm25() with the index's
 * weights, no LIMIT) times the JavaScript boost of the priority model.
 */
import { runInDurableObject } from "cloudflare:test";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { priorityInputOf } from "../../src/priority/columns";
import { DAY_MS, DEFAULT_MODEL, priority } from "../../src/priority/model";
import { priorityFactor, recencyFactor } from "../../src/search/score";
import { Db } from "../../src/storage/sql";
import { connectV2, freshContext, type TestClient } from "./clients";
import { stubOf } from "./context";

export const YEAR_MS = 365 * DAY_MS;

/** A fresh context over MCP whose object's clock reads `at()`; `set` moves it. */
export async function clockedContext(prefix: string, start: number): Promise<{ c: TestClient; name: string; set: (t: number) => void }> {
  const name = freshContext(prefix);
  let t = start;
  await runInDurableObject(stubOf(name), (instance: MemoryContext) => {
    instance.now = () => t;
  });
  const c = await connectV2({ url: `http://localhost/mcp/${name}` });
  return {
    c,
    name,
    set: (at) => {
      t = at;
    },
  };
}

/** Which index, and the bm25() weights it ranks with (src/files/search.ts, src/documents/search.ts). */
const INDEXES = {
  file: { fts: "files_fts", table: "files", rowid: "id", key: "path", weights: "2, 1" },
  doc: { fts: "documents_fts", table: "documents", rowid: "seq", key: "id", weights: "2, 1, 1" },
} as const;

export interface Scored {
  key: string;
  bm25: number;
  score: number;
}

interface Row extends Record<string, SqlStorageValue> {
  key: string;
  bm25: number;
  uses: number;
  created_at: number;
  updated_at: number;
  last_accessed_at: number | null;
  category: string;
  important: number;
  cluster_size: number;
  base_relevance: number;
}

/** Every item of `kind` whose index matches `match` (an FTS5 expression), scored bm25 × recency × √priorityFactor(P) in JavaScript at `now`, best first, ties by key. */
export function referenceScores(db: Db, kind: keyof typeof INDEXES, match: string, now: number): Scored[] {
  const x = INDEXES[kind];
  const rows = db.all<Row>(
    `SELECT i.${x.key} AS key, -bm25(${x.fts}, ${x.weights}) AS bm25, i.uses, i.created_at, i.updated_at, i.last_accessed_at, i.category, i.important, i.cluster_size, i.base_relevance
     FROM ${x.fts} JOIN ${x.table} i ON i.${x.rowid} = ${x.fts}.rowid WHERE ${x.fts} MATCH ?`,
    match,
  );
  return rows
    .map((r) => ({
      key: r.key,
      bm25: r.bm25,
      score: r.bm25 * (recencyFactor(now - r.updated_at) * Math.sqrt(priorityFactor(priority(priorityInputOf(r), now, DEFAULT_MODEL)))),
    }))
    .sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** referenceScores inside the context's object. */
export const referenceIn = (name: string, kind: keyof typeof INDEXES, match: string, now: number) =>
  runInDurableObject(stubOf(name), (_i, state) => referenceScores(new Db(state.storage.sql), kind, match, now));

/** The keys of `scored` by bm25() alone, best first: the order a `LIMIT` on bm25() cuts. */
export const byBm25 = (scored: readonly Scored[]) => [...scored].sort((a, b) => b.bm25 - a.bm25 || (a.key < b.key ? -1 : 1)).map((s) => s.key);
