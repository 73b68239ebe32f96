/**
 * Migrating a foundation-schema context (version 1) to the priority schema:
 * every row keeps what it had, gains category "general", base relevance 1.0
 * and no mark, and its tier follows its recorded use.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { LATEST_VERSION, MIGRATIONS, migrate } from "../../src/storage/migrations";
import { Db } from "../../src/storage/sql";
import { flushSearchIndex } from "../../src/search/indexer";
import { freshContext } from "../helpers/clients";

/** Drops every table so the object's database is as a fresh one at version 0. */
function wipe(db: Db) {
  const objects = (where: string) =>
    db.all<{ name: string }>(`SELECT name FROM sqlite_master WHERE ${where} AND name NOT LIKE '\\_cf%' ESCAPE '\\' AND name NOT LIKE 'sqlite%'`);
  for (const o of objects("type = 'trigger'")) db.run(`DROP TRIGGER ${o.name}`);
  for (const o of objects("type = 'table' AND sql LIKE 'CREATE VIRTUAL%'")) db.run(`DROP TABLE ${o.name}`);
  for (const o of objects("type = 'table'")) db.run(`DROP TABLE ${o.name}`);
}

describe("migration from the foundation schema", () => {
  it("keeps every row and its access statistics, and starts the priority columns at their defaults", async () => {
    const stub = env.MEMORY.getByName(freshContext("prmig")) as DurableObjectStub<MemoryContext>;
    await runInDurableObject(stub, (instance: MemoryContext, state) => {
      const db = new Db(state.storage.sql);
      const tx = <T>(fn: () => T) => state.storage.transactionSync(fn);
      tx(() => wipe(db));
      expect(migrate(db, tx, MIGRATIONS, 1)).toBe(1);
      tx(() => {
        const entity = (name: string, count: number, last: number | null) =>
          db.run(
            "INSERT INTO entities (name, entity_type, created_at, updated_at, last_accessed_at, access_count) VALUES (?, 'thing', 10, 20, ?, ?)",
            name,
            last,
            count,
          );
        entity("never", 0, null);
        entity("once", 1, 30);
        entity("often", 7, 40);
        db.run("INSERT INTO observations (entity_id, content, created_at) SELECT id, 'note of ' || name, 11 FROM entities");
        db.run(
          "INSERT INTO relations (from_id, to_id, relation_type, created_at) SELECT a.id, b.id, 'knows', 12 FROM entities a, entities b WHERE a.name = 'once' AND b.name = 'often'",
        );
      });

      expect(migrate(db, tx)).toBe(LATEST_VERSION);
      tx(() => flushSearchIndex(db));
      // biome-ignore format: the expected rows as a table, one row per line
      expect(
        db.all(
          "SELECT name, entity_type, created_at, updated_at, last_accessed_at, access_count, category, important, base_relevance, tier, uses, cluster_size FROM entities ORDER BY id",
        ),
      ).toEqual([
        { name: "never", entity_type: "thing", created_at: 10, updated_at: 20, last_accessed_at: null, access_count: 0, category: "general", important: 0, base_relevance: 1, tier: "short", uses: 0, cluster_size: 0 },
        { name: "once", entity_type: "thing", created_at: 10, updated_at: 20, last_accessed_at: 30, access_count: 1, category: "general", important: 0, base_relevance: 1, tier: "mid", uses: 1, cluster_size: 0 },
        { name: "often", entity_type: "thing", created_at: 10, updated_at: 20, last_accessed_at: 40, access_count: 7, category: "general", important: 0, base_relevance: 1, tier: "long", uses: 7, cluster_size: 0 },
      ]);
      expect(db.all("SELECT content FROM observations ORDER BY content").map((r) => r.content)).toEqual(["note of never", "note of often", "note of once"]);
      expect(db.one<{ n: number }>("SELECT COUNT(*) AS n FROM relations")?.n).toBe(1);

      // The migrated rows work with tracking: the next open counts on top of what they had.
      instance.now = () => 50;
      const opened = instance.openNodes(["often"], { caller: "t", callerId: "t", tool: "t" });
      expect(opened.ok).toBe(true);
      expect(db.one("SELECT access_count, uses, last_accessed_at, tier, cluster_size FROM entities WHERE name = 'often'")).toEqual({
        access_count: 8,
        uses: 8,
        last_accessed_at: 50,
        tier: "long",
        cluster_size: 1,
      });
    });
  });

  it("0007 measures the archive rows already there", async () => {
    const stub = env.MEMORY.getByName(freshContext("prmig")) as DurableObjectStub<MemoryContext>;
    await runInDurableObject(stub, (_instance: MemoryContext, state) => {
      const db = new Db(state.storage.sql);
      const tx = <T>(fn: () => T) => state.storage.transactionSync(fn);
      tx(() => wipe(db));
      expect(migrate(db, tx, MIGRATIONS, 6)).toBe(6);
      const payload = JSON.stringify({ kind: "file", id: 1, path: "é.md", content: "naïve ✓", createdAt: 1, updatedAt: 1 });
      db.run("INSERT INTO archive (item, payload, priority, reason, archived_at) VALUES ('file:é.md', ?, 0.1, 'test', 1)", payload);
      expect(migrate(db, tx)).toBe(LATEST_VERSION);
      expect(db.one("SELECT bytes FROM archive")).toEqual({ bytes: new TextEncoder().encode(payload).length });
    });
  });
});
