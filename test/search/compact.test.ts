import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { Db } from "../../src/storage/sql";
import { COMPACT_QUIET_MS } from "../../src/context/upkeep";
import { searchGraph, searchParams } from "../../src/search";
import { COMPACT_MIN_PAGES, compacting, compactionStep, indexShape, SEARCH_INDEXES } from "../../src/search/compact";
import { parseQuery } from "../../src/search/query";
import { settings } from "../../src/settings";
import { freshContext, workerFetch } from "../helpers/clients";
import { as, registered, stubOf, unwrap } from "../helpers/context";
import { withLogs } from "../helpers/logs";

type Stub = DurableObjectStub<MemoryContext>;

const WORDS = ["kafka", "oauth", "zoom", "ledger", "billing", "cache", "schema", "deploy", "webhook", "timeline", "quota", "retry"];
/** `n` entities from `from` on, three observations each over a small shared vocabulary; 4 documents each. */
const batch = (from: number, n: number) =>
  Array.from({ length: n }, (_, k) => {
    const i = from + k;
    const w = (j: number) => WORDS[(i * 7 + j * 5) % WORDS.length] as string;
    return {
      name: `${w(0)}-${w(1)}-node-${i}`,
      entityType: "component",
      observations: [`handles ${w(2)} for ${w(3)}`, `owned by team ${i % 13}`, `talks to ${w(4)} via ${w(5)}Client`],
    };
  });

/** The name of entity `i` of `batch`. */
const nameAt = (i: number) => (batch(i, 1)[0] as { name: string }).name;

const setClock = (stub: Stub, at: number) =>
  runInDurableObject(stub, (instance: MemoryContext) => {
    instance.now = () => at;
  });

/** Segments per index and whether a compaction is under way. */
const shape = (stub: Stub) =>
  runInDurableObject(stub, (_i, state) => {
    const db = new Db(state.storage.sql);
    return { segments: SEARCH_INDEXES.map((index) => indexShape(db, index).segments), compacting: compacting(db) };
  });

/** Leaf pages per index. */
const pages = (stub: Stub) =>
  runInDurableObject(stub, (_i, state) => {
    const db = new Db(state.storage.sql);
    return SEARCH_INDEXES.map((index) => {
      const s = indexShape(db, index);
      return s.largest + s.rest;
    });
  });

const alarmAt = (stub: Stub) => runInDurableObject(stub, (_i, state) => state.storage.getAlarm());

const QUERIES = ["kafka oauth", "zoom timeline", "ledgerClient", "webhook retry quota", "team 7", "chedu", "node-1200"];

/** Every query's whole result at a fixed time, without recording hits (searchGraph itself). */
const results = (stub: Stub, now: number) =>
  runInDurableObject(stub, (_i, state) => {
    const db = new Db(state.storage.sql);
    const params = searchParams({}, settings(env));
    return QUERIES.map((q) => searchGraph(db, parseQuery(q), params, now));
  });

/**
 * Loads 1,600 entities in seven calls (6,400 search documents) at `t`, then
 * runs the merge slices the writes asked for (src/search/segments.ts): the
 * first four calls' segments merge into one, the last three's stay, so each
 * index holds segments of different levels, as after any bulk load.
 */
async function bulkLoad(stub: Stub, t: number): Promise<void> {
  await setClock(stub, t);
  for (let call = 0; call < 7; call++) {
    const from = call * 229;
    unwrap(await stub.createEntities(batch(from, Math.min(229, 1600 - from)), as("a")));
    if (call === 3) await drainMerges(stub, t);
  }
  unwrap(await stub.createRelations([{ from: nameAt(0), to: nameAt(1200), relationType: "uses" }], as("a")));
}

/**
 * Runs the alarm while it is set before the compaction's quiet time: the
 * merge slices writes ask for at once (storage keeps a time already past as
 * the present; the test runtime may run them first).
 */
async function drainMerges(stub: Stub, t: number): Promise<void> {
  for (let run = 0; run < 20; run++) {
    const at = await alarmAt(stub);
    if (at === null || at >= t + COMPACT_QUIET_MS) return;
    await runDurableObjectAlarm(stub);
  }
  throw new Error("the merge slices did not settle in 20 alarm runs");
}

describe("search index compaction", () => {
  it("merges each index into one segment once writes pause, one bounded step per alarm, and every search finds the same", async () => {
    const context = freshContext("compact");
    const stub = stubOf(context);
    const t = Date.now();
    await bulkLoad(stub, t);
    const before = await shape(stub);
    expect(before.segments.every((n) => n > 1)).toBe(true);
    expect(before.compacting).toBe(false);
    // Large enough to be compacted at all.
    expect(Math.min(...(await pages(stub)))).toBeGreaterThanOrEqual(COMPACT_MIN_PAGES);
    const found = await results(stub, t);
    expect(found.some((r) => r.entities.length > 0)).toBe(true);
    // A bulk write asks for a run once writes have paused, before the hourly history trim.
    expect(await alarmAt(stub)).toBe(t + COMPACT_QUIET_MS);

    await setClock(stub, t + COMPACT_QUIET_MS);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    // One step merges one index at a time: the word index first, the trigram index still waits.
    const mid = await shape(stub);
    expect(mid).toEqual({ segments: [1, before.segments[1]], compacting: true });
    expect(await alarmAt(stub)).toBe(t + COMPACT_QUIET_MS);
    expect(await results(stub, t)).toEqual(found);

    for (let run = 0; run < 20 && (await shape(stub)).compacting; run++) await runDurableObjectAlarm(stub);
    expect(await shape(stub)).toEqual({ segments: [1, 1], compacting: false });
    expect(await results(stub, t)).toEqual(found);

    // The stats route reports it, for people and the benchmark.
    const res = await workerFetch()(`http://localhost/api/contexts/${await registered(context)}/stats`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { counts: { searchIndex: unknown } };
    expect(body.counts.searchIndex).toEqual({ segments: 2, compacting: false });
  });

  it("leaves a small index in its few segments", async () => {
    const stub = stubOf(freshContext("compact"));
    const t = Date.now();
    await setClock(stub, t);
    // Three writes: fewer segments than make a level due for a merge slice (SEGMENTS_PER_LEVEL).
    for (let from = 0; from < 30; from += 10) unwrap(await stub.createEntities(batch(from, 10), as("a")));
    expect((await shape(stub)).segments).toEqual([3, 3]);
    await setClock(stub, t + 2 * COMPACT_QUIET_MS);
    await runDurableObjectAlarm(stub);
    expect(await shape(stub)).toEqual({ segments: [3, 3], compacting: false });
  });

  it("waits while writes continue, and starts once they have paused", async () => {
    const stub = stubOf(freshContext("compact"));
    const t = Date.now();
    await bulkLoad(stub, t);
    const before = await shape(stub);
    await setClock(stub, t + 4_000);
    unwrap(await stub.addObservations([{ entityName: nameAt(5), contents: ["one more note"] }], as("a")));

    await setClock(stub, t + COMPACT_QUIET_MS);
    await runDurableObjectAlarm(stub);
    // The fourth write since the load asked for a merge slice: it runs (and re-arms until one finds no work), no compaction.
    await drainMerges(stub, t + 4_000);
    const waiting = await shape(stub);
    expect(waiting.compacting).toBe(false);
    // Not compacted: the run merged at most a level (the slice the fourth write since the load asked for).
    expect(before.segments.every((n) => n > 1)).toBe(true);
    expect(waiting.segments.some((n) => n > 1)).toBe(true);
    expect(await alarmAt(stub)).toBe(t + 4_000 + COMPACT_QUIET_MS);

    await setClock(stub, t + 4_000 + COMPACT_QUIET_MS);
    await runDurableObjectAlarm(stub);
    expect((await shape(stub)).compacting).toBe(true);
  });

  it("leaves a compacted index alone after a small write: no large rewrite for a few new documents", async () => {
    const stub = stubOf(freshContext("compact"));
    const t = Date.now();
    await bulkLoad(stub, t);
    await setClock(stub, t + COMPACT_QUIET_MS);
    for (let run = 0; run < 20; run++) {
      await runDurableObjectAlarm(stub);
      if (!(await shape(stub)).compacting) break;
    }
    expect(await shape(stub)).toEqual({ segments: [1, 1], compacting: false });

    await setClock(stub, t + 2 * COMPACT_QUIET_MS);
    unwrap(await stub.createEntities([{ name: "late-arrival", entityType: "component", observations: ["added after the load"] }], as("a")));
    expect(await shape(stub)).toEqual({ segments: [2, 2], compacting: false });
    await setClock(stub, t + 4 * COMPACT_QUIET_MS);
    await runDurableObjectAlarm(stub);
    expect(await shape(stub)).toEqual({ segments: [2, 2], compacting: false });
    const found = await results(stub, t + 4 * COMPACT_QUIET_MS);
    expect(found).toHaveLength(QUERIES.length);
    const late = unwrap(await stub.searchNodes("late arrival", {}, as("a")));
    expect(late.entities.map((e) => e.name)).toEqual(["late-arrival"]);
  });

  it("ends a compaction whose step merges nothing, instead of setting the alarm again and again", async () => {
    const stub = stubOf(freshContext("compact"));
    await bulkLoad(stub, Date.now());
    // Ending it is logged as a warning naming the index that would not shrink: that line is part of what is checked.
    const { value: out, logged } = await withLogs(() =>
      runInDurableObject(stub, (_i, state) => {
        const db = new Db(state.storage.sql);
        const merges: string[] = [];
        const more = state.storage.transactionSync(() => compactionStep(db, (_db, index) => void merges.push(index)));
        return { more, merges, compacting: compacting(db) };
      }),
    );
    expect(out).toEqual({ more: false, merges: ["search_words"], compacting: false });
    expect(logged).toEqual([{ level: "warn", line: { event: "compaction_stalled", index: "search_words", segments: expect.any(Number) } }]);
  });

  it("keeps every search's result through a compaction after deletes and new observations", async () => {
    const stub = stubOf(freshContext("compact"));
    const t = Date.now();
    await bulkLoad(stub, t);
    unwrap(
      await stub.deleteEntities(
        Array.from({ length: 200 }, (_, i) => nameAt(i * 7)),
        as("a"),
      ),
    );
    unwrap(
      await stub.addObservations(
        Array.from({ length: 100 }, (_, i) => ({ entityName: nameAt(i * 7 + 3), contents: [`zoom timeline note ${i}`] })),
        as("a"),
      ),
    );
    // The deletes' tombstones sit in the older segments (FTS5 may already have merged some); more entities make a
    // compaction due again, so it rewrites segments holding deleted documents.
    for (let from = 1600; from < 2400; from += 400) unwrap(await stub.createEntities(batch(from, 400), as("a")));
    expect((await shape(stub)).segments[0]).toBeGreaterThan(1);
    const found = await results(stub, t);
    await setClock(stub, t + COMPACT_QUIET_MS);
    for (let run = 0; run < 20; run++) {
      await runDurableObjectAlarm(stub);
      if (!(await shape(stub)).compacting) break;
    }
    expect(await shape(stub)).toEqual({ segments: [1, 1], compacting: false });
    expect(await results(stub, t)).toEqual(found);
    const gone = unwrap(await stub.searchNodes(nameAt(7), {}, as("a")));
    expect(gone.entities.map((e) => e.name)).not.toContain(nameAt(7));
  });
});
