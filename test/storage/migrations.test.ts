import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LATEST_VERSION, MIGRATIONS, migrate, schemaVersion } from "../../src/storage/migrations";
import { Db } from "../../src/storage/sql";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { freshContext } from "../helpers/clients";

/** Drops every table so the object's database is as a fresh one at version 0. */
function wipe(db: Db) {
  const tables = db.all<{ name: string; type: string }>(
    "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
  );
  for (const t of tables) db.run(`DROP ${t.type === "view" ? "VIEW" : "TABLE"} IF EXISTS "${t.name}"`);
}

const stub = () => env.MEMORY.getByName(freshContext("mig")) as DurableObjectStub<MemoryContext>;

describe("migrations", () => {
  it("brings a new context to the latest version and records it", async () => {
    await runInDurableObject(stub(), (_instance: MemoryContext, state) => {
      expect(schemaVersion(new Db(state.storage.sql))).toBe(LATEST_VERSION);
    });
  });

  it.each(MIGRATIONS.map((m) => m.version - 1))("upgrades a database at version %i and keeps its data", async (start) => {
    await runInDurableObject(stub(), (_instance: MemoryContext, state) => {
      const db = new Db(state.storage.sql);
      const tx = <T>(fn: () => T) => state.storage.transactionSync(fn);
      wipe(db);
      migrate(db, tx, MIGRATIONS, Math.max(start, 1));
      // Data written with the foundation schema (version 1) must survive every later migration.
      db.run("INSERT INTO entities (name, entity_type, created_at, updated_at) VALUES ('kept', 'thing', 1, 1)");
      db.run("INSERT INTO observations (entity_id, content, created_at) SELECT id, 'still here', 1 FROM entities");
      expect(migrate(db, tx)).toBe(LATEST_VERSION);
      expect(db.one("SELECT e.name, o.content FROM entities e JOIN observations o ON o.entity_id = e.id")).toEqual({
        name: "kept",
        content: "still here",
      });
      expect(migrate(db, tx)).toBe(LATEST_VERSION);
      expect(db.one<{ n: number }>("SELECT COUNT(*) AS n FROM _schema_version WHERE version = ?", LATEST_VERSION)?.n).toBe(1);
    });
  });

  it("leaves the version and schema unchanged when a migration fails", async () => {
    await runInDurableObject(stub(), (_instance: MemoryContext, state) => {
      const db = new Db(state.storage.sql);
      const tx = <T>(fn: () => T) => state.storage.transactionSync(fn);
      const broken = [...MIGRATIONS, { version: LATEST_VERSION + 1, name: "broken", sql: "CREATE TABLE half_done (x); CREATE TABLE (" }];
      expect(() => migrate(db, tx, broken, LATEST_VERSION + 1)).toThrow(/SQL failed/);
      expect(schemaVersion(db)).toBe(LATEST_VERSION);
      expect(db.one("SELECT name FROM sqlite_master WHERE name = 'half_done'")).toBeUndefined();
    });
  });

  it("keeps built-in callers' old changes their own and a token's old changes no one's, so undo{} never guesses the token", async () => {
    await runInDurableObject(stub(), (instance: MemoryContext, state) => {
      const db = new Db(state.storage.sql);
      const tx = <T>(fn: () => T) => state.storage.transactionSync(fn);
      wipe(db);
      migrate(db, tx, MIGRATIONS, 10);
      // Two changes to one item as version 10 recorded them: by name only.
      db.run("INSERT INTO changes (at, caller, tool, summary) VALUES (1, 'local', 'create_entities', '+entity A'), (2, 'bob', 'add_observations', '+obs A')");
      db.run("INSERT INTO change_items (item, seq) VALUES ('entity:A', 1), ('entity:A', 2)");
      migrate(db, tx);
      expect(db.all("SELECT seq, caller, caller_id FROM changes ORDER BY seq")).toEqual([
        { seq: 1, caller: "local", caller_id: "local" },
        { seq: 2, caller: "bob", caller_id: null },
      ]);
      const bob = { caller: "bob", callerId: "tok_00000000000000b2", tool: "undo" };
      const mine = instance.undo({}, bob);
      expect(mine).toMatchObject({ ok: false, kind: "NotFound" });
      expect(!mine.ok && mine.message).toBe(
        'Nothing of yours to undo: "bob" (token tok_00000000000000b2) has no change in effect in this context. Changes by an earlier token also named "bob" are not yours. memory_history lists changes; undo{change} undoes a given one.',
      );
      // Undoing local's change by number would take the old bob change with it, which is not this bob's.
      const byNumber = instance.undo({ change: 1 }, bob);
      expect(!byNumber.ok && byNumber.message).toContain("#2 by bob [id not recorded] (add_observations: +obs A)");
      expect(db.one<{ n: number }>("SELECT COUNT(*) AS n FROM changes")?.n).toBe(2);
    });
  });

  it("moves a context's registration and read-only flag out of priority_state and keeps refusing what they refuse", async () => {
    await runInDurableObject(stub(), (instance: MemoryContext, state) => {
      const db = new Db(state.storage.sql);
      const tx = <T>(fn: () => T) => state.storage.transactionSync(fn);
      wipe(db);
      migrate(db, tx, MIGRATIONS, 19);
      // As version 19 kept them: JSON values under two priority_state keys, beside the evaluation's own state.
      db.run(
        `INSERT INTO priority_state (key, value) VALUES
           ('registration', '{"name":"gone","status":"removed"}'), ('read_only', 'true'), ('capacity', '{"total":5}')`,
      );
      migrate(db, tx);
      expect(db.all("SELECT name, status, read_only FROM registration")).toEqual([{ name: "gone", status: "removed", read_only: 1 }]);
      expect(db.all("SELECT key, value FROM priority_state")).toEqual([{ key: "capacity", value: '{"total":5}' }]);
      const write = instance.createEntities([{ name: "A", entityType: "t", observations: [] }], { caller: "local", callerId: "local", tool: "create_entities" });
      expect(!write.ok && write.message).toBe('Context "gone" was removed. list_contexts shows the contexts you can use; add_context brings it back with its data.');
    });
  });

  it("moves a read-only flag alone, and adds no registration row where priority_state held neither", async () => {
    await runInDurableObject(stub(), (_instance: MemoryContext, state) => {
      const db = new Db(state.storage.sql);
      const tx = <T>(fn: () => T) => state.storage.transactionSync(fn);
      wipe(db);
      migrate(db, tx, MIGRATIONS, 19);
      db.run("INSERT INTO priority_state (key, value) VALUES ('read_only', 'true')");
      migrate(db, tx);
      expect(db.all("SELECT name, status, read_only FROM registration")).toEqual([{ name: null, status: null, read_only: 1 }]);

      wipe(db);
      migrate(db, tx, MIGRATIONS, 19);
      migrate(db, tx);
      expect(db.all("SELECT * FROM registration")).toEqual([]);
    });
  });
});
