/**
 * Items written at chosen times, for the tests of files' and documents'
 * ranking at any age: a context whose clock a test sets (the object's `now`),
 * and the in-test reference a ranking is checked against, every item of an
 * index that holds a query word scored from scratch (docs/search.md, "Files
 * and documents: the same BM25F") times the JavaScript boost of the
 * priority model.
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

/** Which index, its label column (weighing 2 contents) and its content column (src/files/search.ts, src/documents/search.ts). */
const INDEXES = {
  file: { fts: "files_fts", table: "files", rowid: "id", key: "path", label: "path" },
  doc: { fts: "documents_fts", table: "documents", rowid: "seq", key: "id", label: "title" },
} as const;
const LABEL_WEIGHT = 2;

export interface Scored {
  key: string;
  /** The BM25F sum with the phrase bonus, before the boost. */
  lexical: number;
  score: number;
  /** Whether the item holds every word. */
  all: boolean;
}

interface Row extends Record<string, SqlStorageValue> {
  r: number;
  key: string;
  label_length: number;
  content_length: number;
  uses: number;
  created_at: number;
  updated_at: number;
  last_accessed_at: number | null;
  category: string;
  important: number;
  cluster_size: number;
  base_relevance: number;
}

const count = (db: Db, sql: string, ...params: string[]) => db.one<{ n: number | null }>(sql, ...params)?.n ?? 0;
const quoted = (w: string) => `"${w}"`;

/**
 * Every item of `kind` holding one of `words` (plain words, no expansion), scored from scratch at `now`: BM25F over
 * its label and content (presence per field, lengths against the averages of the kind's newest 500), Lucene's idf over the whole
 * context (entity names and observations, files, documents), k1 0.9, b 0.4, the phrase bonus of adjacent words
 * within 3 words, × recency × √priorityFactor(P); best first (every-word items first when `allFirst`), ties by key.
 */
export function referenceScores(db: Db, kind: keyof typeof INDEXES, words: readonly string[], now: number, allFirst = false): Scored[] {
  const x = INDEXES[kind];
  const n =
    count(db, "SELECT (SELECT max(id) FROM observations) + 0 AS n") +
    count(db, "SELECT (SELECT max(id) FROM entities) + 0 AS n") +
    count(db, "SELECT count(*) AS n FROM files") +
    count(db, "SELECT count(*) AS n FROM documents");
  const df = (w: string) =>
    count(db, "SELECT count(*) AS n FROM search_words WHERE search_words MATCH ?", quoted(w)) +
    count(db, "SELECT count(*) AS n FROM files_fts WHERE files_fts MATCH ?", quoted(w)) +
    count(db, "SELECT count(*) AS n FROM documents_fts WHERE documents_fts MATCH ?", `{title content} : ${quoted(w)}`);
  const idf = words.map((w) => Math.log(1 + (n - df(w) + 0.5) / (df(w) + 0.5)));
  const holding = (match: string) => new Set(db.all<{ r: number }>(`SELECT rowid AS r FROM ${x.fts} WHERE ${x.fts} MATCH ?`, match).map((h) => h.r));
  const inLabel = words.map((w) => holding(`{${x.label}} : ${quoted(w)}`));
  const inContent = words.map((w) => holding(`{content} : ${quoted(w)}`));
  const near = words.slice(1).map((w, i) => holding(`{${x.label} content} : NEAR(${quoted(words[i] as string)} ${quoted(w)}, 3)`));
  const avg = db.one<{ label: number; content: number }>(
    `SELECT avg(length(${x.label})) AS label, avg(octet_length(content)) AS content FROM (SELECT * FROM ${x.table} ORDER BY ${x.rowid} DESC LIMIT 500)`,
  );
  const rows = db.all<Row>(
    `SELECT ${x.rowid} AS r, ${x.key} AS key, length(${x.label}) AS label_length, octet_length(content) AS content_length,
            uses, created_at, updated_at, last_accessed_at, category, important, cluster_size, base_relevance FROM ${x.table}`,
  );
  const out: Scored[] = [];
  for (const r of rows) {
    const held = words.map((_, t) => inLabel[t]?.has(r.r) || inContent[t]?.has(r.r));
    if (!held.some(Boolean)) continue;
    const label = LABEL_WEIGHT / (0.6 + (0.4 * r.label_length) / (avg?.label as number));
    const content = 1 / (0.6 + (0.4 * r.content_length) / (avg?.content as number));
    let lexical = 0;
    words.forEach((_, t) => {
      const tf = (inLabel[t]?.has(r.r) ? label : 0) + (inContent[t]?.has(r.r) ? content : 0);
      if (tf > 0) lexical += ((idf[t] as number) * tf * 1.9) / (0.9 + tf);
    });
    near.forEach((pair, k) => {
      if (pair.has(r.r)) lexical += ((idf[k] as number) + (idf[k + 1] as number)) / 2;
    });
    const boost = recencyFactor(now - r.updated_at) * Math.sqrt(priorityFactor(priority(priorityInputOf(r), now, DEFAULT_MODEL)));
    out.push({ key: r.key, lexical, score: lexical * boost, all: held.every(Boolean) });
  }
  return out.sort((a, b) => (allFirst ? Number(b.all) - Number(a.all) : 0) || b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** referenceScores inside the context's object. */
export const referenceIn = (name: string, kind: keyof typeof INDEXES, words: readonly string[], now: number, allFirst = false) =>
  runInDurableObject(stubOf(name), (_i, state) => referenceScores(new Db(state.storage.sql), kind, words, now, allFirst));

/** The keys of `scored` by their text alone (no boost), best first: the order a cut before the boost would keep. */
export const byLexical = (scored: readonly Scored[]) => [...scored].sort((a, b) => b.lexical - a.lexical || (a.key < b.key ? -1 : 1)).map((s) => s.key);
