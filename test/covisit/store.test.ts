/**
 * The co-visitation index inside the object: storage stays bounded however
 * many accesses arrive, the alarm drops idle sessions, weak associations are
 * pruned, and the settings are validated.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { Db } from "../../src/storage/sql";
import { covisit, maintainCovisit, MAX_ASSOCIATIONS_PER_ITEM, PAIR_WINDOW, SESSION_MAX_ITEMS } from "../../src/covisit";
import { DAY_MS } from "../../src/history";
import { settings, SettingsError } from "../../src/settings";
import { freshContext } from "../helpers/clients";

const stub = () => env.MEMORY.getByName(freshContext("covs")) as DurableObjectStub<MemoryContext>;
const IDLE = { COVIS_SESSION_IDLE_MINUTES: 30 };
const OPTS = { sessionIdleMs: 30 * 60_000, maxRelated: 3 };
const MINUTE = 60_000;

function counts(db: Db) {
  const n = (table: string) => db.one<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`)?.n ?? 0;
  const widest = (table: string, column: string) =>
    db.one<{ n: number | null }>(`SELECT MAX(n) AS n FROM (SELECT COUNT(*) AS n FROM ${table} GROUP BY ${column})`)?.n ?? 0;
  return {
    sessions: n("covisit_sessions"),
    sessionItems: n("covisit_session_items"),
    pairs: n("covisit_pairs"),
    largestSession: widest("covisit_session_items", "session_id"),
    mostAssociations: widest("covisit_pairs", "item"),
  };
}

/** A small deterministic generator, so the access pattern is the same on every run. */
function lcg(seed: number) {
  let x = seed;
  return (n: number) => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x % n;
  };
}

describe("co-visitation storage", () => {
  it("stays bounded after 10,000 accesses: sessions keep their last 100 items, idle ones go, associations are capped", async () => {
    await runInDurableObject(stub(), (_i: MemoryContext, state) => {
      const db = new Db(state.storage.sql);
      const pick = lcg(7);
      let now = 1_000_000_000_000;
      // The items exist, as they would in use (recommendations skip items that do not).
      for (let k = 0; k < 300; k++) db.run("INSERT INTO files (path, content, created_at, updated_at) VALUES (?, '', 0, 0)", `long/${k}.md`);
      for (let k = 0; k < 2000; k++) db.run("INSERT INTO entities (name, entity_type, created_at, updated_at) VALUES (?, 't', 0, 0)", `e${k}`);
      /** Runs maintenance until it has nothing left to do at `now`. */
      const maintain = (at: number) => {
        let next = maintainCovisit(db, at, IDLE);
        while (next === at) next = maintainCovisit(db, at, IDLE);
        return next;
      };
      let maxSessionsAlive = 0;
      // 10,000 accesses, one every 20 s: one long session over 300 files, and agents without a
      // session key, a new group of 8 every 500 accesses (the previous group goes idle).
      for (let i = 0; i < 10_000; i++) {
        now += 20_000;
        const long = i % 2 === 0;
        const who = long ? { callerId: "marathon", session: "one" } : { callerId: `agent-${Math.floor(i / 500)}-${pick(8)}`, client: "cli" };
        const item = long ? `file:long/${pick(300)}.md` : `entity:e${pick(2000)}`;
        covisit(db, who, [item], [item], now, OPTS);
        if (i % 500 === 499) {
          maintain(now);
          maxSessionsAlive = Math.max(maxSessionsAlive, counts(db).sessions);
        }
      }
      const during = counts(db);
      expect(during.largestSession).toBe(SESSION_MAX_ITEMS);
      expect(during.sessionItems).toBeLessThanOrEqual(during.sessions * SESSION_MAX_ITEMS);
      expect(maxSessionsAlive).toBeLessThanOrEqual(9);
      expect(during.mostAssociations).toBeLessThanOrEqual(MAX_ASSOCIATIONS_PER_ITEM);

      const next = maintain(now + 31 * MINUTE);
      const after = counts(db);
      expect(after.sessions).toBe(0);
      expect(after.sessionItems).toBe(0);
      expect(next).toBeNull();
      expect(after.pairs).toBeGreaterThan(0);
    });
  }, 120_000); // a generous ceiling for a busy machine, not a speed check

  it("drops a session idle past the gap when the alarm runs, and keeps a live one", async () => {
    const s = stub();
    const start = Date.now();
    let t = start;
    await runInDurableObject(s, (instance: MemoryContext) => {
      instance.now = () => t;
      instance.createFile("a.md", "a", false, { caller: "x", callerId: "x", tool: "create", session: "old" });
      t += 20 * MINUTE;
      instance.createFile("b.md", "b", false, { caller: "x", callerId: "x", tool: "create", session: "live" });
      t += 11 * MINUTE; // "old" is 31 minutes idle, "live" 11
    });
    expect(await runDurableObjectAlarm(s)).toBe(true);
    await runInDurableObject(s, (_i: MemoryContext, state) => {
      const keys = new Db(state.storage.sql).all<{ key: string }>("SELECT key FROM covisit_sessions").map((r) => r.key);
      expect(keys).toEqual([JSON.stringify(["key", "x", "live"])]);
    });
    t += 31 * MINUTE;
    expect(await runDurableObjectAlarm(s)).toBe(true);
    await runInDurableObject(s, (_i: MemoryContext, state) => {
      expect(counts(new Db(state.storage.sql)).sessions).toBe(0);
    });
    // Nothing left for co-visitation to watch: the one alarm left is history's, for when the first change comes of age.
    const retention = settings(env).HISTORY_MAX_DAYS * DAY_MS;
    expect(await runInDurableObject(s, (_i: MemoryContext, state) => state.storage.getAlarm())).toBe(start + retention);
  });

  it("keeps an item's strongest associations when it has too many", async () => {
    await runInDurableObject(stub(), (_i: MemoryContext, state) => {
      const db = new Db(state.storage.sql);
      const extra = 50;
      for (let k = 1; k <= MAX_ASSOCIATIONS_PER_ITEM + extra; k++) {
        db.run("INSERT INTO covisit_pairs (item, other, count, updated_at) VALUES ('file:hub.md', ?, ?, 0)", `file:n${k}.md`, k);
      }
      expect(maintainCovisit(db, 0, IDLE)).toBeNull();
      const kept = db.all<{ count: number }>("SELECT count FROM covisit_pairs WHERE item = 'file:hub.md' ORDER BY count");
      expect(kept).toHaveLength(MAX_ASSOCIATIONS_PER_ITEM);
      expect(kept[0]?.count).toBe(extra + 1);
    });
  });
});

describe("co-visitation settings", () => {
  it("defaults to a 30-minute idle gap and 3 recommendations", () => {
    const s = settings({ ...env, COVIS_SESSION_IDLE_MINUTES: undefined, MEMORY_COVIS_MAX_RECOMMENDATIONS: undefined } as unknown as Env);
    expect([s.COVIS_SESSION_IDLE_MINUTES, s.MEMORY_COVIS_MAX_RECOMMENDATIONS]).toEqual([30, 3]);
    const custom = settings({ ...env, COVIS_SESSION_IDLE_MINUTES: "5", MEMORY_COVIS_MAX_RECOMMENDATIONS: "0" } as unknown as Env);
    expect([custom.COVIS_SESSION_IDLE_MINUTES, custom.MEMORY_COVIS_MAX_RECOMMENDATIONS]).toEqual([5, 0]);
  });

  it.each([
    ["COVIS_SESSION_IDLE_MINUTES", "0"],
    ["COVIS_SESSION_IDLE_MINUTES", "half an hour"],
    ["MEMORY_COVIS_MAX_RECOMMENDATIONS", "-1"],
    ["MEMORY_COVIS_MAX_RECOMMENDATIONS", "2.5"],
  ])("rejects %s = %s, naming the variable", (name, value) => {
    expect(() => settings({ ...env, [name]: value } as unknown as Env)).toThrow(SettingsError);
    expect(() => settings({ ...env, [name]: value } as unknown as Env)).toThrow(name);
  });
});

describe("co-visitation recording in one call", () => {
  it("counts a call's items as if used one at a time: new items pair with what the session held and with earlier new ones", async () => {
    await runInDurableObject(stub(), (_i: MemoryContext, state) => {
      const db = new Db(state.storage.sql);
      const who = { callerId: "c", session: "s" };
      const now = 1_000_000_000_000;
      covisit(db, who, ["file:b", "file:d"], [], now, OPTS);
      // b is already held: it only becomes the latest; a and c are new, a before c; a repeated name counts once.
      covisit(db, who, ["file:a", "file:b", "file:c", "file:a"], [], now + 1, OPTS);
      const pairs = db
        .all<{ item: string; other: string; count: number }>("SELECT item, other, count FROM covisit_pairs ORDER BY item, other")
        .map((r) => `${r.item.slice(5)}${r.other.slice(5)}${r.count}`);
      expect(pairs).toEqual(["ab1", "ac1", "ad1", "ba1", "bc1", "bd1", "ca1", "cb1", "cd1", "db1", "dc1", "da1"].sort());
      const items = db.all<{ item: string; seq: number }>("SELECT item, seq FROM covisit_session_items ORDER BY seq").map((r) => `${r.item.slice(5)}${r.seq}`);
      expect(items).toEqual(["d2", "a3", "b4", "c5"]);
    });
  });

  it("pairs a new item with the session's PAIR_WINDOW most recent items only, and still learns what goes with it", async () => {
    await runInDurableObject(stub(), (_i: MemoryContext, state) => {
      const db = new Db(state.storage.sql);
      for (let k = 0; k < PAIR_WINDOW + 6; k++) db.run("INSERT INTO files (path, content, created_at, updated_at) VALUES (?, '', 0, 0)", `w${k}`);
      db.run("INSERT INTO files (path, content, created_at, updated_at) VALUES ('x', '', 0, 0)");
      const who = { callerId: "c", session: "window" };
      let now = 1_000_000_000_000;
      // w0 .. w29 one at a time, then w0 again (it becomes the most recent), then x.
      for (let k = 0; k < PAIR_WINDOW + 6; k++) covisit(db, who, [`file:w${k}`], [], (now += 1000), OPTS);
      covisit(db, who, ["file:w0"], [], (now += 1000), OPTS);
      covisit(db, who, ["file:x"], [], (now += 1000), OPTS);
      const partners = db.all<{ other: string }>("SELECT other FROM covisit_pairs WHERE item = 'file:x' ORDER BY other").map((r) => r.other.slice(5));
      // The window: w0 (used again last) and the newest PAIR_WINDOW - 1 of the rest, w7 .. w29.
      const expected = ["w0", ...Array.from({ length: PAIR_WINDOW - 1 }, (_, k) => `w${k + 7}`)].sort();
      expect(partners).toEqual(expected);
      expect(partners).not.toContain("w6");
      // Both directions, counted once: x is related to w29, and w6 (outside the window) is not related to x.
      expect(db.one<{ count: number }>("SELECT count FROM covisit_pairs WHERE item = 'file:w29' AND other = 'file:x'")?.count).toBe(1);
      expect(db.one("SELECT 1 AS hit FROM covisit_pairs WHERE item = 'file:w6' AND other = 'file:x'")).toBeUndefined();
      // What a later session is told when it opens x: the strongest of x's recent neighbours.
      covisit(db, { callerId: "c", session: "second" }, ["file:w29", "file:x"], [], (now += 1000), OPTS);
      expect(covisit(db, { callerId: "c", session: "third" }, ["file:x"], ["file:x"], (now += 1000), OPTS)).toEqual([
        { item: "file:w29", count: 2 },
        { item: "file:w0", count: 1 },
        { item: "file:w10", count: 1 },
      ]);
    });
  });
});
