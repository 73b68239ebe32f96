import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { itemSink } from "../../src/context/access";
import { Db } from "../../src/storage/sql";
import { migrate, MIGRATIONS } from "../../src/storage/migrations";
import { addObservations, createEntities, deleteEntities, deleteObservations } from "../../src/graph/store";
import { searchGraph } from "../../src/search";
import { settings } from "../../src/settings";
import { flushSearchIndex } from "../../src/search/indexer";
import { parseQuery } from "../../src/search/query";
import { DAY_MS } from "../../src/search/score";
import { CLIENTS, freshContext, json } from "../helpers/clients";
import { registered } from "../helpers/context";

const meta = { caller: "test", callerId: "test", tool: "test" };
const params = { minRelativeScore: 0.3, topPerToken: 1, maxPathLength: 5, maxTotalNodes: 50 };
/** A write scope for calling graph store functions directly; nothing is recorded in history. */
const scope = (db: Db, now: number) => ({ db, now, rec: { note: () => {} }, items: itemSink(db) });
const stubFor = () => env.MEMORY.getByName(freshContext("index"));
/** Index rows whose words match `word` (contentless tables still answer MATCH with rowids). */
const indexed = (db: Db, word: string) => db.all<{ doc: number }>("SELECT rowid AS doc FROM search_words WHERE search_words MATCH ?", `"${word}"`).map((r) => r.doc);

describe("search index consistency", () => {
  it("leaves no index rows behind when the transaction that wrote them rolls back", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      const db = new Db(state.storage.sql);
      expect(() =>
        state.storage.transactionSync(() => {
          createEntities(scope(db, 1), [{ name: "quokka-notes", entityType: "doc", observations: ["the quokka smiles"] }]);
          flushSearchIndex(db);
          expect(indexed(db, "quokka")).toHaveLength(2);
          throw new Error("fails part-way");
        }),
      ).toThrow("fails part-way");
      expect(indexed(db, "quokka")).toEqual([]);
      expect(db.all("SELECT doc FROM search_dirty")).toEqual([]);
      const r = await instance.searchNodes("quokka", {}, meta);
      expect(r.ok && r.value.entities).toEqual([]);
    });
  });

  it("indexes an entity in the same call that creates it, and forgets it when deleted", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      const db = new Db(state.storage.sql);
      instance.createEntities([{ name: "wombat", entityType: "animal", observations: ["digs burrows", "eats grass"] }], meta);
      expect(db.all("SELECT doc FROM search_dirty")).toEqual([]);
      expect(indexed(db, "burrow")).toHaveLength(1);
      instance.addObservations([{ entityName: "wombat", contents: ["cube-shaped droppings"] }], meta);
      expect(indexed(db, "cubeshaped")).toHaveLength(1);
      instance.deleteObservations([{ entityName: "wombat", observations: ["digs burrows"] }], meta);
      expect(indexed(db, "burrow")).toEqual([]);
      instance.deleteEntities(["wombat"], meta);
      expect(indexed(db, "wombat")).toEqual([]);
      expect(indexed(db, "grass")).toEqual([]);
      expect(indexed(db, "cube")).toEqual([]);
      const gone = await instance.searchNodes("wombat grass", {}, meta);
      expect(gone.ok && gone.value.entities).toEqual([]);
    });
  });

  it("re-indexes rows changed by any write path, such as a rename written in SQL", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      const db = new Db(state.storage.sql);
      instance.createEntities([{ name: "old-name", entityType: "thing", observations: ["first text"] }], meta);
      state.storage.transactionSync(() => {
        db.run("UPDATE entities SET name = 'platypus' WHERE name = 'old-name'");
        db.run("UPDATE observations SET content = 'second text'");
        flushSearchIndex(db);
      });
      const found = await instance.searchNodes("platypus second", {}, meta);
      expect(found.ok && found.value.entities.map((e) => e.name)).toEqual(["platypus"]);
      expect(indexed(db, "old")).toEqual([]);
      expect(indexed(db, "first")).toEqual([]);
    });
  });

  it("writes a call's documents to each index in one statement, and a call larger than one statement's parameter in several, all found", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      const db = new Db(state.storage.sql);
      // FTS5's own shadow table: one row per leaf page that starts a term, by segment.
      const segments = () => ["search_words", "search_grams"].map((t) => db.one<{ n: number }>(`SELECT count(DISTINCT segid) AS n FROM ${t}_idx`)?.n);
      instance.createEntities([{ name: "first-batch", entityType: "thing", observations: ["one", "two", "three"] }], meta);
      // FTS5 writes a segment per statement: one for the names and observations together, one for the trigrams.
      expect(segments()).toEqual([1, 1]);
      // 80 observations of 5,000 CJK characters (15 KB each, with their bigrams ~60 KB of JSON by the byte
      // estimate) do not fit one 2 MB-capped parameter: the word index takes several statements, the names one.
      const filler = "会議室の予約を確認する".repeat(455).slice(0, 5000);
      const big = Array.from({ length: 80 }, (_, i) => ({ name: `big-${i}`, entityType: "note", observations: [`marker${i} ${filler}`] }));
      const out = instance.createEntities(big, meta);
      expect(out.ok).toBe(true);
      const [words, grams] = segments();
      expect(grams).toBe(2);
      expect(words).toBeGreaterThanOrEqual(3);
      for (const i of [0, 39, 40, 79]) expect(indexed(db, `marker${i}`)).toHaveLength(1);
      const found = await instance.searchNodes("marker79", {}, meta);
      expect(found.ok && found.value.entities.map((e) => e.name)).toEqual(["big-79"]);
    });
  });

  it("reads back a flush's documents in pages that stay under SQLite's value limit, even text JSON escapes to twice its size", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      const db = new Db(state.storage.sql);
      instance.createEntities([{ name: "holder", entityType: "thing", observations: [] }], meta);
      // 400 observations of 16,000 quotes: 6.4 MB of text, 12.8 MB as one JSON text, past even workerd's local limit.
      const quotes = '"'.repeat(16_000);
      state.storage.transactionSync(() => {
        const id = db.one<{ id: number }>("SELECT id FROM entities WHERE name = 'holder'")?.id as number;
        for (let i = 0; i < 400; i++) db.run("INSERT INTO observations (entity_id, content, created_at) VALUES (?, ?, 0)", id, `${quotes} mark${i}`);
        flushSearchIndex(db);
      });
      for (const i of [0, 199, 399]) expect(indexed(db, `mark${i}`)).toHaveLength(1);
    });
  });

  it("keeps each entity's observation count, degree and last update in step with every write", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      const db = new Db(state.storage.sql);
      const check = () => {
        const drift = db.all(
          `SELECT e.id FROM entities e LEFT JOIN search_entity_stats s ON s.entity_id = e.id
           WHERE s.entity_id IS NULL OR s.updated_at != e.updated_at
              OR s.observations != (SELECT count(*) FROM observations o WHERE o.entity_id = e.id)
              OR s.degree != (SELECT count(*) FROM relations r WHERE r.from_id = e.id) + (SELECT count(*) FROM relations r WHERE r.to_id = e.id)`,
        );
        expect(drift).toEqual([]);
        expect(db.one<{ n: number }>("SELECT count(*) AS n FROM search_entity_stats")?.n).toBe(db.one<{ n: number }>("SELECT count(*) AS n FROM entities")?.n);
      };
      let t = 1000;
      instance.now = () => (t += 1000);
      instance.createEntities(
        [
          { name: "a", entityType: "x", observations: ["1", "2"] },
          { name: "b", entityType: "x", observations: [] },
          { name: "c", entityType: "x", observations: ["3"] },
        ],
        meta,
      );
      instance.createRelations(
        [
          { from: "a", to: "b", relationType: "r" },
          { from: "b", to: "c", relationType: "r" },
          { from: "c", to: "c", relationType: "self" },
        ],
        meta,
      );
      check();
      instance.addObservations([{ entityName: "b", contents: ["4", "5"] }], meta);
      instance.deleteObservations([{ entityName: "a", observations: ["1"] }], meta);
      instance.deleteRelations([{ from: "a", to: "b", relationType: "r" }], meta);
      check();
      instance.deleteEntities(["c"], meta);
      check();
      expect(db.all("SELECT entity_id, observations, degree FROM search_entity_stats ORDER BY entity_id")).toEqual([
        { entity_id: 1, observations: 1, degree: 0 },
        { entity_id: 2, observations: 2, degree: 0 },
      ]);
    });
  });

  it("indexes a row that reuses the id of a deleted highest row, in a later call or the same transaction", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      // The index's own words only: a synonym ("bird" for "parrot") would find other rows on purpose.
      instance.config = () => ({ ...settings(env), SEARCH_EXPANSION: false });
      const db = new Db(state.storage.sql);
      const ids = () => db.all<{ id: number; name: string }>("SELECT id, name FROM entities ORDER BY id");
      const found = async (q: string) => {
        const r = await instance.searchNodes(q, { topPerToken: 5, minRelativeScore: 0 }, meta);
        return r.ok ? r.value.entities.map((e) => e.name).sort() : [];
      };
      instance.createEntities(
        [
          { name: "kiwi", entityType: "bird", observations: ["flightless"] },
          { name: "kea", entityType: "bird", observations: ["alpine parrot"] },
        ],
        meta,
      );
      instance.createRelations([{ from: "kiwi", to: "kea", relationType: "knows" }], meta);
      instance.deleteEntities(["kea"], meta);
      instance.createEntities([{ name: "tui", entityType: "bird", observations: ["sings"] }], meta);
      expect(ids()).toEqual([
        { id: 1, name: "kiwi" },
        { id: 2, name: "tui" },
      ]);
      expect(await found("bird")).toEqual(["kiwi", "tui"]);
      expect(await found("parrot alpine kea")).toEqual([]);
      expect(await found("sings")).toEqual(["tui"]);
      state.storage.transactionSync(() => {
        instance.deleteEntities(["tui"], meta);
        instance.createEntities([{ name: "weka", entityType: "bird", observations: ["curious"] }], meta);
        instance.addObservations([{ entityName: "kiwi", contents: ["nocturnal"] }], meta);
        instance.deleteObservations([{ entityName: "kiwi", observations: ["nocturnal"] }], meta);
        instance.addObservations([{ entityName: "kiwi", contents: ["lays huge eggs"] }], meta);
      });
      expect(ids().map((r) => r.id)).toEqual([1, 2]);
      expect(await found("bird")).toEqual(["kiwi", "weka"]);
      expect(await found("sings nocturnal")).toEqual([]);
      expect(await found("curious eggs")).toEqual(["kiwi", "weka"]);
      expect(db.all("SELECT entity_id, observations, degree FROM search_entity_stats ORDER BY entity_id")).toEqual([
        { entity_id: 1, observations: 2, degree: 0 },
        { entity_id: 2, observations: 1, degree: 0 },
      ]);
      // The same again with a single flush at the end of one transaction.
      state.storage.transactionSync(() => {
        const w = scope(db, 9);
        deleteEntities(w, ["weka"]);
        createEntities(w, [{ name: "takahe", entityType: "bird", observations: ["purple"] }]);
        addObservations(w, [{ entityName: "kiwi", contents: ["brown"] }]);
        deleteObservations(w, [{ entityName: "kiwi", observations: ["brown"] }]);
        addObservations(w, [{ entityName: "kiwi", contents: ["long beak"] }]);
        flushSearchIndex(db);
      });
      expect(ids().map((r) => r.id)).toEqual([1, 2]);
      expect(await found("curious brown")).toEqual([]);
      expect(await found("purple beak")).toEqual(["kiwi", "takahe"]);
      expect(db.all("SELECT entity_id, observations, degree FROM search_entity_stats ORDER BY entity_id")).toEqual([
        { entity_id: 1, observations: 3, degree: 0 },
        { entity_id: 2, observations: 1, degree: 0 },
      ]);
    });
  });

  it("finds again what undo brings back under its old ids, with its counts", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      // The index's own words only: a synonym ("bird" for "parrot") would find other rows on purpose.
      instance.config = () => ({ ...settings(env), SEARCH_EXPANSION: false });
      const db = new Db(state.storage.sql);
      const names = async (q: string) => {
        const r = await instance.searchNodes(q, { topPerToken: 5, minRelativeScore: 0 }, meta);
        return r.ok ? r.value.entities.map((e) => e.name).sort() : [];
      };
      instance.createEntities(
        [
          { name: "moa", entityType: "bird", observations: ["extinct giant", "ate shrubs"] },
          { name: "kakapo", entityType: "bird", observations: ["heavy parrot"] },
        ],
        meta,
      );
      instance.createRelations([{ from: "kakapo", to: "moa", relationType: "outlived" }], meta);
      instance.deleteEntities(["moa"], meta);
      instance.deleteObservations([{ entityName: "kakapo", observations: ["heavy parrot"] }], meta);
      expect(await names("giant parrot")).toEqual([]);
      const undone = instance.undo({ count: 2 }, meta);
      expect(undone.ok).toBe(true);
      expect(db.all("SELECT id, name FROM entities ORDER BY id")).toEqual([
        { id: 1, name: "moa" },
        { id: 2, name: "kakapo" },
      ]);
      expect(await names("giant")).toEqual(["moa"]);
      expect(await names("parrot")).toEqual(["kakapo"]);
      expect(db.all("SELECT entity_id, observations, degree FROM search_entity_stats ORDER BY entity_id")).toEqual([
        { entity_id: 1, observations: 2, degree: 1 },
        { entity_id: 2, observations: 1, degree: 1 },
      ]);
    });
  });

  it("applies the search migration to a database that already has later migrations, and indexes its graph", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      const db = new Db(state.storage.sql);
      const tx = <T>(fn: () => T) => state.storage.transactionSync(fn);
      instance.createEntities([{ name: "tuatara", entityType: "reptile", observations: ["third eye"] }], meta);
      // As if this database had reached the latest version before 0003 existed.
      tx(() => {
        for (const t of db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'search%'")) db.run(`DROP TRIGGER ${t.name}`);
        for (const t of ["search_words", "search_grams", "search_state", "search_dirty", "search_entity_stats"]) db.run(`DROP TABLE ${t}`);
        db.run("DROP INDEX search_relations_by_to");
        db.run("DELETE FROM _schema_version WHERE version = 3");
      });
      expect(migrate(db, tx)).toBe(MIGRATIONS.at(-1)?.version);
      expect(db.all("SELECT version FROM _schema_version WHERE version = 3")).toHaveLength(1);
      instance.addObservations([{ entityName: "tuatara", contents: ["lives long"] }], meta);
      const r = await instance.searchNodes("third eye lives", {}, meta);
      expect(r.ok && r.value.entities.map((e) => e.name)).toEqual(["tuatara"]);
      expect(db.all("SELECT observations FROM search_entity_stats")).toEqual([{ observations: 2 }]);
    });
  });

  it("backfills the indexes for a context created before search existed", async () => {
    await runInDurableObject(stubFor(), async (_instance, state) => {
      const db = new Db(state.storage.sql);
      const tx = <T>(fn: () => T) => state.storage.transactionSync(fn);
      // Rewind this fresh object to schema version 1 and fill it the old way.
      const objects = (where: string) =>
        db.all<{ name: string }>(`SELECT name FROM sqlite_master WHERE ${where} AND name NOT LIKE '\\_cf%' ESCAPE '\\' AND name NOT LIKE 'sqlite%'`);
      tx(() => {
        for (const o of objects("type = 'trigger'")) db.run(`DROP TRIGGER ${o.name}`);
        // Virtual tables first: dropping one drops its shadow tables.
        for (const o of objects("type = 'table' AND sql LIKE 'CREATE VIRTUAL%'")) db.run(`DROP TABLE ${o.name}`);
        for (const o of objects("type = 'table'")) db.run(`DROP TABLE ${o.name}`);
      });
      expect(objects("type IN ('table', 'trigger')")).toEqual([]);
      expect(migrate(db, tx, MIGRATIONS, 1)).toBe(1);
      // Raw rows: today's store writes columns that version 1 does not have.
      tx(() => {
        for (const [name, observation] of [
          ["echidna", "lays eggs"],
          ["numbat", "eats termites"],
        ] as const) {
          db.run("INSERT INTO entities (name, entity_type, created_at, updated_at) VALUES (?, 'animal', 1, 1)", name);
          db.run("INSERT INTO observations (entity_id, content, created_at) SELECT id, ?, 1 FROM entities WHERE name = ?", observation, name);
        }
      });
      expect(migrate(db, tx)).toBe(MIGRATIONS.at(-1)?.version);
      tx(() => flushSearchIndex(db));
      const found = searchGraph(db, parseQuery("termites eggs"), params, 2);
      expect(found.entities.map((e) => e.name).sort()).toEqual(["echidna", "numbat"]);
    });
  });
});

describe("search ranking", () => {
  it("prefers recently updated knowledge, yet still finds old knowledge", async () => {
    await runInDurableObject(stubFor(), async (instance) => {
      const t0 = Date.UTC(2026, 0, 1);
      instance.now = () => t0;
      instance.createEntities([{ name: "report-2025", entityType: "doc", observations: ["quarterly report", "archived"] }], meta);
      instance.now = () => t0 + 200 * DAY_MS;
      instance.createEntities([{ name: "report-2026", entityType: "doc", observations: ["quarterly report", "current"] }], meta);
      const recent = await instance.searchNodes("quarterly report", { topPerToken: 2, minRelativeScore: 0 }, meta);
      expect(recent.ok && recent.value.entities.map((e) => e.name)).toEqual(["report-2026", "report-2025"]);
      const old = await instance.searchNodes("archived", {}, meta);
      expect(old.ok && old.value.entities.map((e) => e.name)).toEqual(["report-2025"]);
      // Adding an observation refreshes the old entity, though not past report-2026: report-2025 has been used
      // little for its 200 days, so its priority factor is lower.
      const scoreOf = (r: typeof recent) => (r.ok ? r.value.entities.find((e) => e.name === "report-2025")?.score : undefined) ?? 0;
      const before = scoreOf(await instance.searchNodes("quarterly", { topPerToken: 2, minRelativeScore: 0 }, meta));
      instance.addObservations([{ entityName: "report-2025", contents: ["reopened"] }], meta);
      const refreshed = await instance.searchNodes("quarterly", { topPerToken: 2, minRelativeScore: 0 }, meta);
      expect(scoreOf(refreshed)).toBeGreaterThan(2 * before);
    });
  });

  it("ranks an entity with more observations and relations above an otherwise equal one", async () => {
    await runInDurableObject(stubFor(), async (instance) => {
      instance.createEntities(
        [
          { name: "lone", entityType: "service", observations: ["handles kafka events"] },
          { name: "central", entityType: "service", observations: ["handles kafka events", "owned by platform", "on call weekly"] },
          { name: "peer", entityType: "service", observations: ["x"] },
        ],
        meta,
      );
      instance.createRelations([{ from: "central", to: "peer", relationType: "calls" }], meta);
      const r = await instance.searchNodes("kafka", {}, meta);
      expect(r.ok && r.value.entities.map((e) => e.name)).toEqual(["central", "lone"]);
    });
  });
});

describe.each(CLIENTS)("search index through tools with %s client", (_label, connect) => {
  it("writes nothing to the index when a create_entities batch is rejected", async () => {
    const client = await connect({ url: `http://localhost/mcp/${await registered(freshContext("index"))}` });
    const r = await client.call("create_entities", {
      entities: [
        { name: "capybara", entityType: "animal", observations: ["very calm"] },
        { name: "", entityType: "animal", observations: [] },
      ],
    });
    expect(r.isError).toBe(true);
    const found = json<{ entities: unknown[] }>(await client.call("search_nodes", { query: "capybara calm" }));
    expect(found.entities).toEqual([]);
    await client.close();
  });
});
