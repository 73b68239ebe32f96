/**
 * The co-visitation tables' sizes inside a Durable Object under workerd
 * (src/covisit/), after a stream of accesses: one long keyed session over 300
 * files, and keyless callers over 2,000 entities, a new group of 8 every 500
 * accesses (the previous group goes idle), one access every 20 s, with
 * maintenance every 500 accesses and once more 31 minutes after the last:
 *
 *   npm run bench:engine -- covisit                       (10,000 accesses)
 *   ENGINE_ACCESSES=100000 npm run bench:engine -- covisit
 *
 * Prints the table sizes during the stream and after the idle sessions went;
 * it measures, it does not check. That they stay bounded is
 * test/covisit/store.test.ts's.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { covisit, maintainCovisit } from "../../src/covisit";
import { Db } from "../../src/storage/sql";
import { knob } from "./timing";

const ACCESSES = knob("ENGINE_ACCESSES", 10_000);
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

it(`co-visitation table sizes after ${ACCESSES} accesses`, { timeout: 3_600_000 }, async () => {
  const stub = env.MEMORY.getByName(`covisit-bench-${Date.now().toString(36)}`) as DurableObjectStub<MemoryContext>;
  const line = await runInDurableObject(stub, (_instance, state) => {
    const db = new Db(state.storage.sql);
    const pick = lcg(7);
    let now = 1_000_000_000_000;
    // The items exist, as they would in use (recommendations skip items that do not).
    for (let k = 0; k < 300; k++) db.run("INSERT INTO files (path, content, created_at, updated_at) VALUES (?, '', 0, 0)", `long/${k}.md`);
    for (let k = 0; k < 2000; k++) db.run("INSERT INTO entities (name, entity_type, created_at, updated_at) VALUES (?, 't', 0, 0)", `e${k}`);
    const maintain = (at: number) => {
      let next = maintainCovisit(db, at, IDLE);
      while (next === at) next = maintainCovisit(db, at, IDLE);
      return next;
    };
    let mostSessions = 0;
    for (let i = 0; i < ACCESSES; i++) {
      now += 20_000;
      const long = i % 2 === 0;
      const who = long ? { callerId: "marathon", session: "one" } : { callerId: `agent-${Math.floor(i / 500)}-${pick(8)}`, client: "cli" };
      const item = long ? `file:long/${pick(300)}.md` : `entity:e${pick(2000)}`;
      covisit(db, who, [item], [item], now, OPTS);
      if (i % 500 === 499) {
        maintain(now);
        mostSessions = Math.max(mostSessions, counts(db).sessions);
      }
    }
    const during = counts(db);
    maintain(now + 31 * MINUTE);
    const after = counts(db);
    return `after ${ACCESSES} accesses: ${JSON.stringify({ during, after, mostSessionsAlive: mostSessions })}`;
  });
  console.log(`COVISIT_RESULT ${line}`);
});
