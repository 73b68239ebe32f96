/**
 * Semantic search's storage and model plumbing: the Workers AI embedder over
 * a fake `AI` binding (the real loading code, 8-dimensional vectors), the
 * embedding queue caught up by the object's alarm, vectors kept right through
 * delete, rename, undo and import, and the mode memory_stats reports.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { catchUp, configureEmbedding, embeddingStatus, nearestToQuery, readVector, WorkersAiEmbedder, type AiBinding } from "../../src/search/semantic";
import { foldAppends } from "../../src/search/semantic/queue";
import { MAX_BATCH } from "../../src/search/semantic/embedder";
import { Db } from "../../src/storage/sql";
import { as, stubOf, unwrap } from "../helpers/context";
import { withLogs } from "../helpers/logs";

const DIMS = 8;
const MODEL = "@cf/test/fake-embedder";

/** A fake `AI` binding: each word of a text adds one to a bucket chosen by its letters, so texts sharing words point alike. */
class FakeAi implements AiBinding {
  calls: { model: string; texts: string[] }[] = [];
  /** While set, a call waits for it (to write during a model call). */
  gate: Promise<void> | undefined;
  fail = false;

  async run(model: string, inputs: Record<string, unknown>): Promise<unknown> {
    const texts = inputs.text as string[];
    this.calls.push({ model, texts });
    if (this.gate) await this.gate;
    if (this.fail) throw new Error("model unavailable");
    return { shape: [texts.length, DIMS], data: texts.map(bagOfWords) };
  }
}

function bagOfWords(text: string): number[] {
  const v = new Array<number>(DIMS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    let h = 0;
    for (const c of word) h = (h * 31 + c.charCodeAt(0)) % 1_000_003;
    v[h % DIMS] = (v[h % DIMS] as number) + 1;
  }
  return v;
}

type Stub = DurableObjectStub<MemoryContext>;
let n = 0;
const fresh = (): Stub => stubOf(`semantic-${Date.now()}-${n++}`);

/** Gives the context an embedder over a fake binding; returns the binding. */
async function withFakeAi(stub: Stub): Promise<FakeAi> {
  const ai = new FakeAi();
  await runInDurableObject(stub, (instance: MemoryContext) => instance.useEmbedder(new WorkersAiEmbedder(ai, MODEL)));
  return ai;
}

const sql = <T extends Record<string, SqlStorageValue>>(stub: Stub, query: string) =>
  runInDurableObject(stub, (_i, state) => new Db(state.storage.sql).all<T>(query));
/** What waits to be embedded: the queue, after new rows above the watermarks are folded into it (as memory_stats does). */
const queued = (stub: Stub) =>
  runInDurableObject(stub, (_i, state) => {
    const db = new Db(state.storage.sql);
    state.storage.transactionSync(() => foldAppends(db));
    return db.all<{ key: string }>("SELECT key FROM embed_queue ORDER BY key").map((r) => r.key);
  });
const vectorKeys = async (stub: Stub) => (await sql<{ key: string }>(stub, "SELECT key FROM embeddings ORDER BY key")).map((r) => r.key);
const vectorOf = (stub: Stub, key: string) => runInDurableObject(stub, (_i, state) => readVector(new Db(state.storage.sql), key));

/** Runs the alarm until the queue is empty (each run embeds one batch). */
async function drain(stub: Stub): Promise<void> {
  for (let i = 0; i < 20 && (await queued(stub)).length > 0; i++) await runDurableObjectAlarm(stub);
}

const write = (stub: Stub, name: string, observations: string[], entityType = "thing") => stub.createEntities([{ name, entityType, observations }], as("writer"));

describe("WorkersAiEmbedder", () => {
  it("embeds through the AI binding in batches, one unit vector per text, in order", async () => {
    const ai = new FakeAi();
    const embedder = new WorkersAiEmbedder(ai, MODEL);
    const texts = Array.from({ length: MAX_BATCH + 3 }, (_, i) => `text number ${i} ${"word ".repeat(i % 5)}`);
    const vectors = await embedder.embed(texts);
    expect(ai.calls.map((c) => c.texts.length)).toEqual([MAX_BATCH, 3]);
    expect(ai.calls.every((c) => c.model === MODEL)).toBe(true);
    expect(vectors).toHaveLength(texts.length);
    expect(embedder.dimensions).toBe(DIMS);
    for (const [i, v] of vectors.entries()) {
      expect(Math.hypot(...v)).toBeCloseTo(1, 5);
      const raw = bagOfWords(texts[i] as string);
      expect(v[raw.indexOf(Math.max(...raw))]).toBeCloseTo(Math.max(...raw) / Math.hypot(...raw), 5);
    }
  });

  it("asks BGE models for cls pooling and leaves other models their default", async () => {
    const ai = new FakeAi();
    const seen: Record<string, unknown>[] = [];
    const spy: AiBinding = {
      run: (model, inputs) => {
        seen.push(inputs);
        return ai.run(model, inputs);
      },
    };
    await new WorkersAiEmbedder(spy, "@cf/baai/bge-small-en-v1.5").embed(["a"]);
    await new WorkersAiEmbedder(spy, MODEL).embed(["a"]);
    expect(seen).toEqual([{ text: ["a"], pooling: "cls" }, { text: ["a"] }]);
  });

  it("rejects an answer that is not one vector of numbers per text, naming the model", async () => {
    const answering = (answer: unknown): AiBinding => ({ run: async () => answer });
    await expect(new WorkersAiEmbedder(answering({}), MODEL).embed(["a"])).rejects.toThrow(`${MODEL} returned no vectors`);
    await expect(new WorkersAiEmbedder(answering({ data: [[1, 2]] }), MODEL).embed(["a", "b"])).rejects.toThrow("1 vectors for 2 texts");
    await expect(new WorkersAiEmbedder(answering({ data: [["x"]] }), MODEL).embed(["a"])).rejects.toThrow("not a list of numbers");
    await expect(new WorkersAiEmbedder(answering({ data: [[1, 2], [1]] }), MODEL).embed(["a", "b"])).rejects.toThrow("1 numbers, expected 2");
  });
});

describe("the embedding queue", () => {
  it("a write queues its item and returns without calling the model; the alarm embeds it after", async () => {
    const stub = fresh();
    const ai = await withFakeAi(stub);
    unwrap(await write(stub, "Caroline", ["went to the support group"]));
    expect(ai.calls).toEqual([]);
    expect(await queued(stub)).toEqual(["entity:Caroline"]);
    await drain(stub);
    expect(ai.calls.flatMap((c) => c.texts)).toEqual(["Caroline (thing)\nwent to the support group"]);
    expect(await queued(stub)).toEqual([]);
    const stored = await vectorOf(stub, "entity:Caroline");
    expect(stored?.model).toBe(MODEL);
    const expected = bagOfWords("Caroline (thing)\nwent to the support group");
    const norm = Math.hypot(...expected);
    expect([...(stored?.vector ?? [])].map((x) => Math.round(x * 10))).toEqual(expected.map((x) => Math.round((x / norm) * 10)));
  });

  it("re-embeds an entity whose observations changed, and files and documents too", async () => {
    const stub = fresh();
    await withFakeAi(stub);
    unwrap(await write(stub, "A", ["one"]));
    unwrap(await stub.createFile("notes/a.md", "about cars", false, as("writer")));
    unwrap(await stub.updateDocument("root", "# root\nabout doctors", as("writer")));
    await drain(stub);
    expect(await vectorKeys(stub)).toEqual(["doc:root", "entity:A", "file:notes/a.md"]);
    const before = await vectorOf(stub, "entity:A");
    unwrap(await stub.addObservations([{ entityName: "A", contents: ["two three four"] }], as("writer")));
    expect(await queued(stub)).toEqual(["entity:A"]);
    await drain(stub);
    expect((await vectorOf(stub, "entity:A"))?.vector).not.toEqual(before?.vector);
  });

  it("catches up a backlog in batches, one per alarm run, the next run at once", async () => {
    const stub = fresh();
    const ai = await withFakeAi(stub);
    const names = Array.from({ length: 120 }, (_, i) => `item-${i}`);
    unwrap(
      await stub.createEntities(
        names.map((name) => ({ name, entityType: "t", observations: [`note ${name}`] })),
        as("writer"),
      ),
    );
    expect(await queued(stub)).toHaveLength(120);
    await runDurableObjectAlarm(stub);
    expect(await queued(stub)).toHaveLength(70);
    const alarm = await runInDurableObject(stub, (_i, state) => state.storage.getAlarm());
    expect(alarm).not.toBeNull();
    await drain(stub);
    expect(await vectorKeys(stub)).toHaveLength(120);
    expect(ai.calls.map((c) => c.texts.length)).toEqual([50, 50, 20]);
  });

  it("embeds again an item written while the model embedded it, and stores nothing for one deleted meanwhile", async () => {
    const stub = fresh();
    const ai = await withFakeAi(stub);
    unwrap(await write(stub, "Moving", ["first text"]));
    unwrap(await write(stub, "Going", ["soon gone"]));
    let open = () => {};
    ai.gate = new Promise((resolve) => {
      open = resolve;
    });
    const result = await runInDurableObject(stub, async (instance: MemoryContext, state) => {
      const db = new Db(state.storage.sql);
      const running = catchUp(
        db,
        (fn) => state.storage.transactionSync(fn),
        new WorkersAiEmbedder(ai, MODEL),
        () => Date.now(),
      );
      unwrap(instance.addObservations([{ entityName: "Moving", contents: ["second text"] }], as("writer")));
      unwrap(instance.deleteEntities(["Going"], as("writer")));
      open();
      return running;
    });
    // The vector of the text it read is stored; the observation added meanwhile queues it again.
    expect(result).toMatchObject({ taken: 2, embedded: 1 });
    expect(await vectorKeys(stub)).toEqual(["entity:Moving"]);
    expect(await queued(stub)).toEqual(["entity:Moving"]);
    ai.gate = undefined;
    await drain(stub);
    expect(ai.calls.at(-1)?.texts).toEqual(["Moving (thing)\nfirst text\nsecond text"]);
    expect(await queued(stub)).toEqual([]);
    expect(await vectorKeys(stub)).toEqual(["entity:Moving"]);
  });

  it("keeps an item queued when its entity changes while the model embeds it (the older vector is not stored)", async () => {
    const stub = fresh();
    const ai = await withFakeAi(stub);
    unwrap(await write(stub, "Doc", ["text"]));
    await drain(stub);
    unwrap(await stub.deleteObservations([{ entityName: "Doc", observations: ["text"] }], as("writer")));
    let open = () => {};
    ai.gate = new Promise((resolve) => {
      open = resolve;
    });
    const result = await runInDurableObject(stub, async (instance: MemoryContext, state) => {
      const db = new Db(state.storage.sql);
      const running = catchUp(
        db,
        (fn) => state.storage.transactionSync(fn),
        new WorkersAiEmbedder(ai, MODEL),
        () => Date.now(),
      );
      unwrap(instance.deleteObservations([{ entityName: "Doc", observations: ["gone"] }], as("writer")));
      unwrap(instance.addObservations([{ entityName: "Doc", contents: ["old"] }], as("writer")));
      unwrap(instance.deleteObservations([{ entityName: "Doc", observations: ["old"] }], as("writer")));
      open();
      return running;
    });
    expect(result).toMatchObject({ taken: 1, embedded: 0, remaining: 1 });
    ai.gate = undefined;
    await drain(stub);
    expect(ai.calls.at(-1)?.texts).toEqual(["Doc (thing)"]);
  });

  it("leaves the queue as it was when the model fails, and tries again later", async () => {
    const stub = fresh();
    const ai = await withFakeAi(stub);
    unwrap(await write(stub, "A", ["x"]));
    ai.fail = true;
    const { logged } = await withLogs(() => runDurableObjectAlarm(stub));
    expect(logged).toEqual([{ level: "error", line: { event: "embedding_failed", model: MODEL, error: "Error: model unavailable" } }]);
    expect(await queued(stub)).toEqual(["entity:A"]);
    const retryAt = await runInDurableObject(stub, (_i, state) => state.storage.getAlarm());
    expect(retryAt).toBeGreaterThan(Date.now() + 30_000);
    ai.fail = false;
    await drain(stub);
    expect(await vectorKeys(stub)).toEqual(["entity:A"]);
  });

  it("queues nothing in lexical mode, and queues every item once a model is set; a new model re-embeds all", async () => {
    const stub = fresh();
    unwrap(await write(stub, "Early", ["before any model"]));
    unwrap(await stub.createFile("f.txt", "text", false, as("writer")));
    expect(await queued(stub)).toEqual([]);
    await withFakeAi(stub);
    expect(await queued(stub)).toEqual(["entity:Early", "file:f.txt"]);
    await drain(stub);
    expect(await vectorKeys(stub)).toEqual(["entity:Early", "file:f.txt"]);
    const other = new FakeAi();
    await runInDurableObject(stub, (instance: MemoryContext) => instance.useEmbedder(new WorkersAiEmbedder(other, "@cf/test/other")));
    expect(await vectorKeys(stub)).toEqual([]);
    expect(await queued(stub)).toEqual(["entity:Early", "file:f.txt"]);
    await drain(stub);
    expect(other.calls).toHaveLength(1);
    await runInDurableObject(stub, (instance: MemoryContext) => instance.useEmbedder(null));
    expect(await vectorKeys(stub)).toEqual([]);
    unwrap(await write(stub, "Later", ["lexical again"]));
    expect(await queued(stub)).toEqual([]);
  });
});

describe("vectors follow the data", () => {
  it("deleting an entity, file or document drops its vector in the same call", async () => {
    const stub = fresh();
    await withFakeAi(stub);
    unwrap(await write(stub, "A", ["x"]));
    unwrap(await stub.createFile("f.txt", "text", false, as("writer")));
    await drain(stub);
    unwrap(await stub.deleteEntities(["A"], as("writer")));
    unwrap(await stub.deletePath("f.txt", as("writer")));
    expect(await vectorKeys(stub)).toEqual([]);
    expect(await queued(stub)).toEqual([]);
  });

  it("renaming a file moves its vector to the new key and queues it", async () => {
    const stub = fresh();
    await withFakeAi(stub);
    unwrap(await stub.createFile("old.txt", "the text", false, as("writer")));
    await drain(stub);
    const before = await vectorOf(stub, "file:old.txt");
    unwrap(await stub.renamePath("old.txt", "new.txt", as("writer")));
    expect(await vectorKeys(stub)).toEqual(["file:new.txt"]);
    expect((await vectorOf(stub, "file:new.txt"))?.vector).toEqual(before?.vector);
    expect(await queued(stub)).toEqual(["file:new.txt"]);
  });

  it("renaming an entity moves its vector to the new name and queues it; a rename over a stale vector replaces it", async () => {
    const stub = fresh();
    await withFakeAi(stub);
    unwrap(await write(stub, "Old", ["text"]));
    await drain(stub);
    const before = await vectorOf(stub, "entity:Old");
    // No tool renames entities yet; the trigger covers any path that does (undo, a later merge).
    await runInDurableObject(stub, (_i, state) => {
      const db = new Db(state.storage.sql);
      db.run("INSERT INTO embeddings (key, model, scale, vec, updated_at) VALUES ('entity:New', ?, 1, x'00', 0)", MODEL);
      db.run("UPDATE entities SET name = 'New' WHERE name = 'Old'");
    });
    expect(await vectorKeys(stub)).toEqual(["entity:New"]);
    expect((await vectorOf(stub, "entity:New"))?.vector).toEqual(before?.vector);
    expect(await queued(stub)).toEqual(["entity:New"]);
  });

  it("undo of a delete queues the item again, undo of a create drops its vector, undo of a rename moves it back", async () => {
    const stub = fresh();
    await withFakeAi(stub);
    unwrap(await write(stub, "A", ["x"]));
    unwrap(await stub.createFile("a.txt", "text", false, as("writer")));
    await drain(stub);
    unwrap(await stub.deleteEntities(["A"], as("writer")));
    unwrap(await stub.undo({ count: 1 }, as("writer", "undo")));
    expect(await queued(stub)).toEqual(["entity:A"]);
    await drain(stub);
    expect(await vectorKeys(stub)).toEqual(["entity:A", "file:a.txt"]);
    unwrap(await stub.renamePath("a.txt", "b.txt", as("writer")));
    unwrap(await stub.undo({ count: 1 }, as("writer", "undo")));
    expect(await vectorKeys(stub)).toEqual(["entity:A", "file:a.txt"]);
    unwrap(await write(stub, "B", ["y"]));
    await drain(stub);
    unwrap(await stub.undo({ count: 1 }, as("writer", "undo")));
    expect(await vectorKeys(stub)).toEqual(["entity:A", "file:a.txt"]);
    expect(await queued(stub)).toEqual([]);
  });

  it("an import queues what it wrote, and the alarm embeds it", async () => {
    const stub = fresh();
    await withFakeAi(stub);
    const { report } = await stub.importBatch(
      [
        { line: 1, type: "entity", entity: { name: "x", entityType: "t", observations: ["o"] } },
        { line: 2, type: "entity", entity: { name: "y", entityType: "t", observations: ["p"] } },
      ],
      as("importer", "api:import"),
    );
    expect(report.entitiesCreated).toBe(2);
    expect(await queued(stub)).toEqual(["entity:x", "entity:y"]);
    await drain(stub);
    expect(await vectorKeys(stub)).toEqual(["entity:x", "entity:y"]);
  });
});

describe("nearestToQuery", () => {
  it("embeds the query with the context's model and returns the items nearest in meaning, best first", async () => {
    const stub = fresh();
    const ai = await withFakeAi(stub);
    unwrap(await write(stub, "Trip", ["went hiking in the mountains"]));
    unwrap(await write(stub, "Food", ["cooked pasta for dinner"]));
    await drain(stub);
    const found = await runInDurableObject(stub, (_i, state) =>
      nearestToQuery(new Db(state.storage.sql), new WorkersAiEmbedder(ai, MODEL), "Trip (thing) went hiking in the mountains", 2),
    );
    expect(found?.map((f) => f.key)).toEqual(["entity:Trip", "entity:Food"]);
    expect(found?.[0]?.similarity).toBeCloseTo(1, 1);
  });

  it("answers null and logs when the model fails, so the caller ranks by words", async () => {
    const stub = fresh();
    const ai = await withFakeAi(stub);
    ai.fail = true;
    const { value, logged } = await withLogs(() =>
      runInDurableObject(stub, (_i, state) => nearestToQuery(new Db(state.storage.sql), new WorkersAiEmbedder(ai, MODEL), "anything", 5)),
    );
    expect(value).toBeNull();
    expect(logged).toEqual([{ level: "error", line: { event: "query_embedding_failed", model: MODEL, error: "Error: model unavailable" } }]);
  });
});

describe("the search mode", () => {
  it("memory_stats says lexical without a model, hybrid with one, and how many items wait", async () => {
    const stub = fresh();
    unwrap(await write(stub, "A", ["x"]));
    expect(unwrap(await stub.memoryStats(as("reader"))).search).toEqual({ mode: "lexical", model: null, embedded: 0, queued: 0, oldestQueuedMs: 0 });
    await withFakeAi(stub);
    const waiting = unwrap(await stub.memoryStats(as("reader"))).search;
    expect(waiting).toMatchObject({ mode: "hybrid", model: MODEL, embedded: 0, queued: 1 });
    await drain(stub);
    expect(unwrap(await stub.searchStatus())).toMatchObject({ mode: "hybrid", embedded: 1, queued: 0, oldestQueuedMs: 0 });
  });

  it("reports the oldest queued item's age by the object's clock", async () => {
    const stub = fresh();
    await runInDurableObject(stub, (_i, state) => {
      const db = new Db(state.storage.sql);
      state.storage.transactionSync(() => configureEmbedding(db, MODEL, 1_000));
      // A new entity waits from when it was written (its row's time, the object's clock).
      db.run("INSERT INTO entities (name, entity_type, created_at, updated_at) VALUES ('A', 't', 1000, 1000)");
      expect(state.storage.transactionSync(() => embeddingStatus(db, 61_000))).toMatchObject({ queued: 1, oldestQueuedMs: 60_000 });
    });
  });
});
