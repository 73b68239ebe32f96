import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { Db } from "../../src/storage/sql";
import { DAY_MS, trimHistory } from "../../src/history";
import { TRIM_BATCH } from "../../src/history/retention";
import { settings, SettingsError } from "../../src/settings";
import { freshContext, workerFetch } from "../helpers/clients";
import { as, changesOf, exportText, stubOf, unwrap } from "../helpers/context";
import { withLogs } from "../helpers/logs";

const ent = (name: string) => ({ name, entityType: "t", observations: [] });

/** Sets the object's clock (its `now`), so time-based rules run without sleeping. */
const setClock = (stub: DurableObjectStub<MemoryContext>, at: number) =>
  runInDurableObject(stub, (instance: MemoryContext) => {
    instance.now = () => at;
  });

const rowCounts = (stub: DurableObjectStub<MemoryContext>) =>
  runInDurableObject(stub, (_i, state) =>
    new Db(state.storage.sql).one<{ changes: number; items: number; parts: number }>(
      `SELECT (SELECT COUNT(*) FROM changes) AS changes, (SELECT COUNT(*) FROM change_items) AS items,
              (SELECT COUNT(*) FROM change_inverse) AS parts`,
    ),
  );

describe("history retention", () => {
  it("sets the trim alarm when a change is written, and not for reads", async () => {
    const stub = stubOf(freshContext("ret"));
    unwrap(await stub.readGraph({}, as("a")));
    expect(await runInDurableObject(stub, (_i, state) => state.storage.getAlarm())).toBeNull();
    const t = Date.now();
    await setClock(stub, t);
    unwrap(await stub.createEntities([ent("A")], as("a")));
    expect(await runInDurableObject(stub, (_i, state) => state.storage.getAlarm())).toBe(t + 60 * 60 * 1000);
  });

  it("trims changes older than HISTORY_MAX_DAYS when the alarm runs, and keeps the data", async () => {
    const ctx = freshContext("ret");
    const stub = stubOf(ctx);
    const base = Date.now();
    await setClock(stub, base);
    for (const name of ["A", "B", "C"]) unwrap(await stub.createEntities([ent(name)], as("a")));
    await setClock(stub, base + 10 * DAY_MS);
    unwrap(await stub.addObservations([{ entityName: "A", contents: ["kept"] }], as("a")));
    unwrap(await stub.deleteEntities(["B"], as("a")));
    const data = await exportText(ctx);

    await setClock(stub, base + 35 * DAY_MS);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await changesOf(ctx)).map((c) => c.seq)).toEqual([5, 4]);
    expect(await rowCounts(stub)).toEqual({ changes: 2, items: 2, parts: 2 });
    expect(await exportText(ctx)).toBe(data);
    // The next run is due when the oldest remaining change comes of age.
    expect(await runInDurableObject(stub, (_i, state) => state.storage.getAlarm())).toBe(base + 40 * DAY_MS);

    const gone = await stub.undo({ change: 1 }, as("a"));
    expect(gone.ok ? "" : gone.message).toContain("#1 is not in history");
  });

  it("never reuses a sequence number, even after trimming everything", async () => {
    const ctx = freshContext("ret");
    const stub = stubOf(ctx);
    const base = Date.now();
    await setClock(stub, base);
    unwrap(await stub.createEntities([ent("A")], as("a")));
    unwrap(await stub.createEntities([ent("B")], as("a")));
    await setClock(stub, base + 31 * DAY_MS);
    await runDurableObjectAlarm(stub);
    expect(await changesOf(ctx)).toEqual([]);
    expect(await runInDurableObject(stub, (_i, state) => state.storage.getAlarm())).toBeNull();
    unwrap(await stub.createEntities([ent("C")], as("a")));
    expect((await changesOf(ctx)).map((c) => c.seq)).toEqual([3]);
  });

  it("keeps at most HISTORY_MAX_CHANGES, trimming the oldest in batches", async () => {
    const stub = stubOf(freshContext("ret"));
    const result = await runInDurableObject(stub, (instance: MemoryContext, state) => {
      for (let i = 0; i < TRIM_BATCH + 5; i++) unwrap(instance.createEntities([ent(`e${i}`)], as("a")));
      const db = new Db(state.storage.sql);
      const retention = { maxChanges: 3, maxDays: 30 };
      const first = trimHistory(db, retention, Date.now());
      const second = trimHistory(db, retention, Date.now());
      const third = trimHistory(db, retention, Date.now());
      const left = db.all<{ seq: number }>("SELECT seq FROM changes ORDER BY seq").map((r) => r.seq);
      const items = db.one<{ n: number }>("SELECT COUNT(*) AS n FROM change_items")?.n;
      return { first, second, third, left, items };
    });
    expect(result.first).toEqual({ deleted: TRIM_BATCH, more: true });
    expect(result.second).toEqual({ deleted: 2, more: false });
    expect(result.third).toEqual({ deleted: 0, more: false });
    expect(result.left).toEqual([TRIM_BATCH + 3, TRIM_BATCH + 4, TRIM_BATCH + 5]);
    expect(result.items).toBe(3);
  });
});

describe("retention settings", () => {
  it("defaults to 10,000 changes and 30 days", () => {
    const s = settings({ ...env, HISTORY_MAX_CHANGES: undefined, HISTORY_MAX_DAYS: undefined } as unknown as Env);
    expect([s.HISTORY_MAX_CHANGES, s.HISTORY_MAX_DAYS]).toEqual([10_000, 30]);
    const set = settings({ ...env, HISTORY_MAX_CHANGES: "50", HISTORY_MAX_DAYS: "7" } as unknown as Env);
    expect([set.HISTORY_MAX_CHANGES, set.HISTORY_MAX_DAYS]).toEqual([50, 7]);
  });

  it.each([
    ["HISTORY_MAX_CHANGES", "lots"],
    ["HISTORY_MAX_CHANGES", "0"],
    ["HISTORY_MAX_CHANGES", "1.5"],
    ["HISTORY_MAX_DAYS", "-1"],
  ])("rejects %s=%s, naming the variable", async (name, value) => {
    expect(() => settings({ ...env, [name]: value } as unknown as Env)).toThrow(SettingsError);
    expect(() => settings({ ...env, [name]: value } as unknown as Env)).toThrow(name);
    const { value: res, logged } = await withLogs(() => workerFetch({ [name]: value } as Partial<Env>)("http://localhost/mcp", { method: "POST", body: "{}" }));
    expect(res.status).toBe(500);
    expect(((await res.json()) as { message: string }).message).toContain(name);
    expect(logged).toEqual([{ level: "error", line: { event: "bad_settings", message: expect.stringContaining(name) } }]);
  });
});
