/**
 * FTS5 merging off the write path (src/search/segments.ts): a write never
 * merges segments; the alarm does, one bounded slice per run, re-arming at
 * once while slices find work. The clock is a day ahead of real time, so the
 * alarms the writes set wait for runDurableObjectAlarm instead of firing by
 * themselves.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { searchGraph, searchParams } from "../../src/search";
import { indexShape, SEARCH_INDEXES } from "../../src/search/compact";
import { applySegmentPolicy, SEGMENTS_PER_LEVEL, SEGMENT_SLICE_PAGES, mergeSegments } from "../../src/search/segments";
import { parseQuery } from "../../src/search/query";
import { settings } from "../../src/settings";
import { Db } from "../../src/storage/sql";
import { freshContext } from "../helpers/clients";
import { as, stubOf, unwrap } from "../helpers/context";

type Stub = DurableObjectStub<MemoryContext>;

const DAY = 86_400_000;
const WORDS = ["kafka", "oauth", "zoom", "ledger", "billing", "cache", "schema", "deploy", "webhook", "timeline", "quota", "retry"];
const entities = (from: number, n: number) =>
  Array.from({ length: n }, (_, k) => {
    const i = from + k;
    const w = (j: number) => WORDS[(i * 7 + j * 5) % WORDS.length] as string;
    return { name: `${w(0)}-${w(1)}-part-${i}`, entityType: "component", observations: [`handles ${w(2)} for ${w(3)}`, `owned by team ${i % 13}`] };
  });

const setClock = (stub: Stub, at: number) =>
  runInDurableObject(stub, (instance: MemoryContext) => {
    instance.now = () => at;
  });
const segments = (stub: Stub) =>
  runInDurableObject(stub, (_i, state) => {
    const db = new Db(state.storage.sql);
    return SEARCH_INDEXES.map((index) => indexShape(db, index).segments);
  });
/** Leaf pages of the word index (the larger). */
const leafPages = (stub: Stub) =>
  runInDurableObject(stub, (_i, state) => {
    const s = indexShape(new Db(state.storage.sql), "search_words");
    return s.largest + s.rest;
  });
const alarmAt = (stub: Stub) => runInDurableObject(stub, (_i, state) => state.storage.getAlarm());
const QUERIES = ["kafka oauth", "zoom timeline", "team 7", "chedu", "part-120"];
const results = (stub: Stub, now: number) =>
  runInDurableObject(stub, (_i, state) => {
    const db = new Db(state.storage.sql);
    const params = searchParams({}, settings(env));
    return QUERIES.map((q) => searchGraph(db, parseQuery(q), params, now));
  });

describe("FTS5 merging off the write path", () => {
  it("adds one segment per write and never merges inside one, well past the level's merge point (FTS5's automerge would have)", async () => {
    const stub = stubOf(freshContext("merge"));
    const t = Date.now() + DAY;
    await setClock(stub, t);
    const writes = 12;
    for (let w = 1; w <= writes; w++) {
      unwrap(await stub.createEntities(entities(w * 1000, 300), as("a")));
      expect(await segments(stub)).toEqual([w, w]);
    }
    // The writes asked the alarm for a slice at once.
    expect(await alarmAt(stub)).toBe(t);
  });

  it("merges a small level in one alarm run, and asks for no other", async () => {
    const stub = stubOf(freshContext("merge"));
    const t = Date.now() + DAY;
    await setClock(stub, t);
    for (let w = 1; w <= SEGMENTS_PER_LEVEL; w++) unwrap(await stub.createEntities(entities(w * 100, 40), as("a")));
    const found = await results(stub, t);
    expect(found.some((r) => r.entities.length > 0)).toBe(true);
    expect(await segments(stub)).toEqual([SEGMENTS_PER_LEVEL, SEGMENTS_PER_LEVEL]);

    expect(await alarmAt(stub)).toBe(t);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await segments(stub)).toEqual([1, 1]);
    // The slice finished under its budget: the next run is the hourly history trim, not another slice.
    expect(await alarmAt(stub)).toBeGreaterThan(t);
    expect(await results(stub, t)).toEqual(found);
  });

  it("re-arms the alarm at once while a slice was cut short by its budget, until the merge is done", async () => {
    const stub = stubOf(freshContext("merge"));
    const t = Date.now() + DAY;
    await setClock(stub, t);
    for (let w = 1; w <= SEGMENTS_PER_LEVEL; w++) unwrap(await stub.createEntities(entities(w * 10_000, 1500), as("a")));
    const found = await results(stub, t);
    // Large enough that one slice cannot merge it (the index's pages, those that start a term at least).
    expect(await leafPages(stub)).toBeGreaterThan(SEGMENT_SLICE_PAGES / 2);
    let runs = 0;
    while ((await alarmAt(stub)) === t) {
      await runDurableObjectAlarm(stub);
      runs++;
      if (runs > 50) throw new Error("the merge did not finish in 50 alarm runs");
    }
    expect(runs).toBeGreaterThan(1);
    expect(await segments(stub)).toEqual([1, 1]);
    expect(await results(stub, t)).toEqual(found);
  });

  it("bounds a slice's work by its page budget: a large merge takes several slices, each leaving the searches whole", async () => {
    const stub = stubOf(freshContext("merge"));
    const t = Date.now() + DAY;
    await setClock(stub, t);
    for (let w = 1; w <= SEGMENTS_PER_LEVEL; w++) unwrap(await stub.createEntities(entities(w * 1000, 300), as("a")));
    const found = await results(stub, t);
    const slices = await runInDurableObject(stub, (_i, state) => {
      const db = new Db(state.storage.sql);
      const shapes: number[][] = [];
      let n = 0;
      // Two pages per slice: each does a little of the merge and says more may remain.
      while (state.storage.transactionSync(() => mergeSegments(db, 2))) {
        n++;
        shapes.push(SEARCH_INDEXES.map((index) => indexShape(db, index).segments));
        if (n > 500) throw new Error("the merge did not finish in 500 two-page slices");
      }
      return { n, first: shapes[0], last: shapes[shapes.length - 1] };
    });
    expect(slices.n).toBeGreaterThan(2);
    // Part-way, the word index still holds its four input segments (and the output being built).
    expect(slices.first?.[0]).toBeGreaterThanOrEqual(SEGMENTS_PER_LEVEL);
    expect(slices.last).toEqual([1, 1]);
    expect(await results(stub, t)).toEqual(found);
  });

  it("sets the policy on an index that holds FTS5's defaults, and leaves a set one alone", async () => {
    const stub = stubOf(freshContext("merge"));
    const out = await runInDurableObject(stub, (_i, state) => {
      const db = new Db(state.storage.sql);
      const config = () => db.all<{ k: string; v: number }>("SELECT k, v FROM search_words_config WHERE k IN ('automerge', 'usermerge') ORDER BY k");
      const atStart = config();
      // As a context created before the policy existed holds it: FTS5's default automerge.
      state.storage.transactionSync(() => db.run("INSERT INTO search_words (search_words, rank) VALUES ('automerge', 4)"));
      const first = state.storage.transactionSync(() => applySegmentPolicy(db));
      const again = state.storage.transactionSync(() => applySegmentPolicy(db));
      return { atStart, first, again, after: config() };
    });
    const policy = [
      { k: "automerge", v: 0 },
      { k: "usermerge", v: SEGMENTS_PER_LEVEL },
    ];
    expect(out.atStart).toEqual(policy);
    expect(out).toMatchObject({ first: 1, again: 0, after: policy });
  });
});
