/**
 * search_documents and recall (files and documents only) over many items
 * holding a common word, inside a Durable Object under workerd:
 *
 *   npm run bench:engine -- items                         (5,000 documents and 5,000 files)
 *   ENGINE_SIZES=20000 npm run bench:engine -- items      (ENGINE_REPEAT, ENGINE_SEED too)
 *
 * The items are written straight into their tables (the indexes' triggers
 * index them), with ages spread over two years and varied statistics;
 * "kafka" is in about half of them, "outage" in a fifth, "saga" in a few.
 * Each query is timed in the object (ENGINE_REPEAT calls of the context's
 * own method between two zero-delay timers, divided by the count) and over
 * RPC (the object's whole call, 1 ms steps). It measures, it does not check.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { Db } from "../../src/storage/sql";
import { knob, sizesFrom, tick, timePerRun } from "./timing";

const SIZES = sizesFrom("5000");
const REPEAT = knob("ENGINE_REPEAT", 20);
const SEED = knob("ENGINE_SEED", 1);
const DAY = 24 * 3600_000;
const FILLER = "team roadmap budget review plan service database deploy queue broker cache latency error alert owner release".split(" ");
const QUERIES = ["kafka", "kafka outage", "who handled the kafka outage last year", "saga"];

function random(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

function text(rand: () => number): string {
  const words = Array.from({ length: 20 + Math.floor(rand() * 40) }, () => FILLER[Math.floor(rand() * FILLER.length)] as string);
  if (rand() < 0.5) words.splice(Math.floor(rand() * words.length), 0, "kafka");
  if (rand() < 0.2) words.splice(Math.floor(rand() * words.length), 0, "outage");
  if (rand() < 0.005) words.splice(Math.floor(rand() * words.length), 0, "saga");
  return words.join(" ");
}

it.each(SIZES)("search_documents and recall over %i documents and as many files", { timeout: 3_600_000 }, async (SIZE) => {
  const stub = env.MEMORY.getByName(`items-bench-${SIZE}-${SEED}`) as DurableObjectStub<MemoryContext>;
  const meta = { caller: "bench", callerId: "bench", tool: "bench" };
  const now = Date.now();
  await runInDurableObject(stub, (_i, state) => {
    const db = new Db(state.storage.sql);
    const rand = random(SEED);
    for (let i = 0; i < SIZE; i++) {
      const updated = now - Math.floor(rand() * 730 * DAY);
      const stats = [Math.floor(rand() * 20), rand() < 0.5 ? null : updated, rand() < 0.1 ? 1 : 0] as const;
      db.run(
        "INSERT INTO documents (id, parent_id, title, content, created_at, updated_at, uses, last_accessed_at, important) VALUES (?, NULL, ?, ?, ?, ?, ?, ?, ?)",
        `d${i}`,
        `Note ${i}`,
        text(rand),
        updated,
        updated,
        ...stats,
      );
      db.run(
        "INSERT INTO files (path, content, created_at, updated_at, uses, last_accessed_at, important) VALUES (?, ?, ?, ?, ?, ?, ?)",
        `notes/f${i}.md`,
        text(rand),
        updated,
        updated,
        ...stats,
      );
    }
    db.run("INSERT INTO documents_fts (documents_fts) VALUES ('optimize')");
    db.run("INSERT INTO files_fts (files_fts) VALUES ('optimize')");
  });
  const kinds: ("file" | "doc")[] = ["file", "doc"];
  const lines: string[] = [];
  for (const q of QUERIES) {
    const inObject = await runInDurableObject(stub, async (instance: MemoryContext) => ({
      documents: await timePerRun(REPEAT, () => instance.searchDocuments(q, 20, meta)),
      recall: await timePerRun(REPEAT, () => instance.recall(q, { budgetTokens: 2000, kinds }, meta)),
    }));
    await tick();
    let t0 = Date.now();
    await stub.searchDocuments(q, 20, meta);
    const documentsRpc = Date.now() - t0;
    t0 = Date.now();
    await stub.recall(q, { budgetTokens: 2000, kinds }, meta);
    const recallRpc = Date.now() - t0;
    lines.push(`| ${q} | ${inObject.documents.toFixed(2)} | ${inObject.recall.toFixed(2)} | ${documentsRpc} | ${recallRpc} |`);
  }
  console.log(
    [
      `items bench: ${SIZE} documents and ${SIZE} files, ms per call`,
      "| query | search_documents in the object | recall (files, documents) in the object | search_documents over RPC | recall over RPC |",
      "|---|---|---|---|---|",
      ...lines,
    ].join("\n"),
  );
});
