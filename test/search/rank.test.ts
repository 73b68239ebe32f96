import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { reciprocalRankFusion, RRF_K } from "../../src/search/fuse";
import { expression } from "../../src/search/match";
import { expansionFor } from "../../src/search/meaning";
import { parseQuery } from "../../src/search/query";
import { MAX_QUERY_TERMS } from "../../src/search/tokenize";
import { HUBS_INDEXED_ABOVE, rankQuery, reachBound } from "../../src/search/rank";
import { connectionFactor } from "../../src/search/score";
import { Db } from "../../src/storage/sql";
import { freshContext } from "../helpers/clients";

const meta = { caller: "test", callerId: "test", tool: "test" };
const stubFor = () => env.MEMORY.getByName(freshContext("rank"));
const NOW = Date.now();

describe("reciprocal rank fusion", () => {
  it("scores each id by the sum of 1 / (60 + rank) over the lists holding it", () => {
    const fused = reciprocalRankFusion([
      [
        { id: 1, score: 9 },
        { id: 2, score: 5 },
        { id: 3, score: 1 },
      ],
      [
        { id: 3, score: 0.9 },
        { id: 4, score: 0.8 },
      ],
    ]);
    expect(RRF_K).toBe(60);
    expect(fused.map((f) => f.id)).toEqual([3, 1, 2, 4]);
    expect(fused[0]?.score).toBeCloseTo(1 / 63 + 1 / 61, 12);
    expect(fused[1]?.score).toBeCloseTo(1 / 61, 12);
    expect(fused[2]?.score).toBe(fused[3]?.score);
  });

  it("ignores the lists' own scores and keeps the first list's order on ties", () => {
    const a = reciprocalRankFusion([[{ id: 7, score: 1000 }], [{ id: 8, score: 0.0001 }]]);
    expect(a.map((f) => f.id)).toEqual([7, 8]);
    expect(a[0]?.score).toBe(a[1]?.score);
  });

  it("counts an id repeated within one list once, at its best rank", () => {
    const fused = reciprocalRankFusion([
      [
        { id: 1, score: 2 },
        { id: 1, score: 1 },
      ],
    ]);
    expect(fused).toEqual([{ id: 1, score: 1 / 61 }]);
  });
});

/** Two entities with "billing" and "service": apart (id 1), and together as a phrase (id 2). */
function writeBillingPair(instance: MemoryContext): void {
  instance.createEntities(
    [
      { name: "apart", entityType: "note", observations: ["the service was slow, and billing was late again this week"] },
      { name: "together", entityType: "note", observations: ["this week the billing service was slow and late again"] },
    ],
    meta,
  );
}

describe("whole-query ranking", () => {
  it("ranks the entity matching more of the question first, whatever the stop and question words", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      instance.createEntities(
        [
          { name: "t1", entityType: "Caroline", observations: ["I went to a support group yesterday, it was powerful"] },
          { name: "t2", entityType: "Melanie", observations: ["The kids loved the group painting class"] },
          { name: "t3", entityType: "Melanie", observations: ["We support each other when it is hard"] },
        ],
        meta,
      );
      const db = new Db(state.storage.sql);
      const r = rankQuery(db, parseQuery("When did Caroline go to the support group?"), { now: NOW, passages: true });
      expect(r.terms.map((t) => t.term.key)).toEqual(["caroline", "go", "support", "group"]);
      expect(r.entities[0]?.id).toBe(1);
      expect(r.entities.map((e) => e.id).sort()).toEqual([1, 2, 3]);
      // The matched observation is the entity's best passage.
      expect(r.entities[0]?.passages).toHaveLength(1);
    });
  });

  it("gives a phrase (adjacent query words close together) a bonus over the same words apart", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      writeBillingPair(instance);
      const r = rankQuery(new Db(state.storage.sql), parseQuery("billing service"), { now: NOW });
      expect(r.entities.map((e) => e.id)).toEqual([2, 1]);
    });
  });

  it("with no place in the best list (top 0) still returns the words' entries: the first word's best, the second's best two", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      writeBillingPair(instance);
      const r = rankQuery(new Db(state.storage.sql), parseQuery("billing service"), { now: NOW, top: 0, perTerm: 1 });
      expect(r.entities.map((e) => e.id)).toEqual([2, 1]);
    });
  });

  it("keeps an entity whose priority bound overflows a double: its factor is the clamp's, the largest", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      instance.createEntities(
        [
          { name: "plain", entityType: "note", observations: ["billing service notes"] },
          { name: "used", entityType: "note", observations: ["billing service notes"] },
        ],
        meta,
      );
      const db = new Db(state.storage.sql);
      db.run("UPDATE entities SET uses = 1e308 WHERE name = 'used'");
      const r = rankQuery(db, parseQuery("billing service"), { now: NOW, top: 1 });
      expect(r.entities.map((e) => e.id)).toEqual([2]);
    });
  });

  it("keeps a well connected entity whose text alone ranks it below the rest: its connection lifts it first", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      const filler = "with notes from the team about the week and the plans for the next quarter of work";
      const neighbours = Array.from({ length: 20 }, (_, i) => ({ name: `n${i}`, entityType: "note", observations: [`neighbour ${i}`] }));
      instance.createEntities(
        [
          { name: "plain", entityType: "note", observations: ["billing service"] },
          { name: "hub", entityType: "note", observations: [`billing service ${filler}`] },
          ...neighbours,
        ],
        meta,
      );
      instance.createRelations(
        neighbours.map((n) => ({ from: "hub", to: n.name, relationType: "links" })),
        meta,
      );
      const db = new Db(state.storage.sql);
      const text = rankQuery(db, parseQuery("billing service"), { now: NOW, top: 2 });
      const [hub, plain] = [text.entities.find((e) => e.id === 2), text.entities.find((e) => e.id === 1)];
      // The hub's connection (degree 20) outweighs its longer observation, by less than its text trails.
      expect(hub && plain && hub.score > plain.score).toBe(true);
      const r = rankQuery(db, parseQuery("billing service"), { now: NOW, top: 1 });
      expect(r.entities.map((e) => e.id)).toEqual([2]);
    });
  });

  it("bounds every connection by the largest hub's degree, read from the hubs' index, and by twice the relations", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      const db = new Db(state.storage.sql);
      // The bound's threshold is the index's own.
      const hubs = db.one<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'search_hubs'")?.sql;
      expect(hubs).toContain(`WHERE degree > ${HUBS_INDEXED_ABOVE}`);
      const spokes = Array.from({ length: 90 }, (_, i) => ({ name: `s${i}`, entityType: "note", observations: [`spoke ${i}`] }));
      instance.createEntities([{ name: "hub", entityType: "note", observations: ["centre"] }, ...spokes], meta);
      // No relation: no entity is lifted, and the bound is 1.
      expect(reachBound(db)).toBeCloseTo(1, 6);
      instance.createRelations(
        spokes.slice(0, 10).map((s) => ({ from: "hub", to: s.name, relationType: "links" })),
        meta,
      );
      rankQuery(db, parseQuery("centre"), { now: NOW, top: 1 }); // brings the statistics up to date, as every search does
      expect(reachBound(db)).toBeCloseTo(connectionFactor(20), 6); // 10 relations: at most 20 ends on one entity
      instance.createRelations(
        spokes.slice(10).map((s) => ({ from: "hub", to: s.name, relationType: "links" })),
        meta,
      );
      rankQuery(db, parseQuery("centre"), { now: NOW, top: 1 });
      // 90 relations, all on the hub: its degree, 90, not 180.
      expect(reachBound(db)).toBeCloseTo(connectionFactor(90), 6);
      expect(reachBound(db)).toBeGreaterThanOrEqual(connectionFactor(90));
    });
  });

  it("ranks the longest query with the most synonyms in one statement within the object's 100 bound parameters", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      // Words WordNet gives many synonyms; every adjacent pair a phrase, every word in a document.
      const words = "car big fast house run quick small happy sad begin end buy sell help start stop".split(" ");
      expect(words).toHaveLength(MAX_QUERY_TERMS);
      instance.createEntities(
        words.map((w, i) => ({ name: `doc${i}`, entityType: "note", observations: [`${w} ${words[(i + 1) % words.length]} notes`] })),
        meta,
      );
      const query = parseQuery(words.join(" "));
      const expansion = expansionFor(query);
      expect(expansion.length).toBeGreaterThanOrEqual(20);
      const r = rankQuery(new Db(state.storage.sql), query, { now: NOW, top: 50, perTerm: 3, expansion });
      expect(r.entities.length).toBeGreaterThan(0);
    });
  });

  it("gives the phrase bonus to a compound written next to the query's other word", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      instance.createEntities(
        [
          { name: "apart", entityType: "note", observations: ["the dependency was late, and the owner-quota was raised again this week"] },
          { name: "together", entityType: "note", observations: ["this week the dependency owner-quota was raised and late again, as it was in the week before"] },
        ],
        meta,
      );
      const r = rankQuery(new Db(state.storage.sql), parseQuery("dependency owner-quota"), { now: NOW });
      expect(r.entities.map((e) => e.id)).toEqual([2, 1]);
    });
  });

  it("gives the phrase bonus of a pair with a compound to every entity writing it, whatever its age", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      const n = 12;
      instance.createEntities(
        Array.from({ length: n }, (_, i) => ({ name: `n${i}`, entityType: "note", observations: ["the dependency owner-quota was raised"] })),
        meta,
      );
      instance.createEntities([{ name: "apart", entityType: "note", observations: ["the dependency was raised, and the owner-quota later"] }], meta);
      const r = rankQuery(new Db(state.storage.sql), parseQuery("dependency owner-quota"), { now: NOW });
      const scores = new Map(r.entities.map((e) => [e.id, e.score]));
      const near = [...Array(n).keys()].map((i) => scores.get(i + 1) as number);
      // Equal texts written at nearly the same time: the same score up to recency, and every one above the pair written apart.
      for (const s of near) expect(s).toBeCloseTo(near[0] as number, 6);
      expect(Math.min(...near)).toBeGreaterThan(scores.get(n + 1) as number);
    });
  });

  it("scores an expansion term with its weight, below a literal match", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      instance.createEntities(
        [
          { name: "garage", entityType: "place", observations: ["the car is parked here"] },
          { name: "showroom", entityType: "place", observations: ["an automobile on display"] },
        ],
        meta,
      );
      const db = new Db(state.storage.sql);
      const plain = rankQuery(db, parseQuery("automobile"), { now: NOW });
      expect(plain.entities.map((e) => e.id)).toEqual([2]);
      const expanded = rankQuery(db, parseQuery("automobile"), { now: NOW, expansion: [{ term: "car", weight: 0.5 }] });
      expect(expanded.entities.map((e) => e.id)).toEqual([2, 1]);
      expect(expanded.terms.map((t) => [t.term.key, t.weight, t.index])).toEqual([
        ["automobile", 1, 0],
        ["car", 0.5, -1],
      ]);
      const [literal, synonym] = expanded.entities;
      expect(synonym?.score).toBeLessThan(literal?.score ?? 0);
      // Weight 0.5 on the same kind of hit halves the term's share.
      expect((synonym?.perTerm.get(1) ?? 0) / (literal?.perTerm.get(0) ?? 1)).toBeGreaterThan(0.3);
      expect((synonym?.perTerm.get(1) ?? 0) / (literal?.perTerm.get(0) ?? 1)).toBeLessThan(0.7);
    });
  });

  it("fuses a semantic list by RRF, adding entities only it found and dropping ids that no longer exist", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      instance.createEntities(
        [
          { name: "a", entityType: "note", observations: ["kafka consumer lag"] },
          { name: "b", entityType: "note", observations: ["kafka topics"] },
          { name: "c", entityType: "note", observations: ["message queue backlog"] },
        ],
        meta,
      );
      const db = new Db(state.storage.sql);
      const lexical = rankQuery(db, parseQuery("kafka lag"), { now: NOW });
      expect(lexical.entities.map((e) => e.id)).toEqual([1, 2]);
      const fused = rankQuery(db, parseQuery("kafka lag"), {
        now: NOW,
        semantic: [
          { id: 3, score: 0.9 },
          { id: 99, score: 0.8 },
          { id: 1, score: 0.7 },
        ],
      });
      expect(fused.entities.map((e) => e.id)).toEqual([1, 3, 2]);
      expect(fused.entities[0]?.score).toBeCloseTo(1 / 61 + 1 / 62, 12);
      expect(fused.entities[1]?.perTerm.size).toBe(0);
    });
  });
});

describe("search_nodes returns every entity that matches well", () => {
  it('finds both people for "person", not one', async () => {
    await runInDurableObject(stubFor(), async (instance) => {
      instance.createEntities(
        [
          { name: "Ada Lovelace", entityType: "person", observations: ["wrote the first program"] },
          { name: "Alan Turing", entityType: "person", observations: ["broke Enigma"] },
          { name: "Analytical Engine", entityType: "machine", observations: ["designed by Babbage"] },
        ],
        meta,
      );
      const r = await instance.searchNodes("person", {}, meta);
      expect(r.ok && r.value.entities.map((e) => e.name).sort()).toEqual(["Ada Lovelace", "Alan Turing"]);
      expect(r.ok && r.value.entities.every((e) => e.role === "entry")).toBe(true);
    });
  });

  it('finds an entity whose observation says "billing service" for "billing", beside the one named for it', async () => {
    await runInDurableObject(stubFor(), async (instance) => {
      instance.createEntities(
        [
          { name: "billing", entityType: "team", observations: ["owns invoices"] },
          { name: "payments-api", entityType: "service", observations: ["calls the billing service on every charge"] },
          { name: "search-api", entityType: "service", observations: ["answers queries"] },
        ],
        meta,
      );
      const r = await instance.searchNodes("billing", {}, meta);
      expect(r.ok && r.value.entities.map((e) => e.name)).toEqual(["billing", "payments-api"]);
    });
  });

  it("keeps the limit and puts the best match first", async () => {
    await runInDurableObject(stubFor(), async (instance) => {
      instance.createEntities(
        Array.from({ length: 12 }, (_, i) => ({ name: `p${i}`, entityType: "person", observations: [i === 5 ? "a person who leads the person team" : "someone"] })),
        meta,
      );
      const r = await instance.searchNodes("person", { limit: 4 }, meta);
      expect(r.ok && r.value.entities).toHaveLength(4);
      expect(r.ok && r.value.entities[0]?.name).toBe("p5");
    });
  });
});

describe("a compound at any age", () => {
  it("finds every document writing the compound, joined or apart, the oldest as the newest", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      instance.createEntities(
        [
          { name: "old-apart", entityType: "note", observations: ["the github sqlite wal mode"] },
          { name: "old-compound", entityType: "note", observations: ["about github-sqlite-wal"] },
          { name: "githubSqliteWal", entityType: "note", observations: ["plain"] },
          ...Array.from({ length: 4 }, (_, i) => ({ name: `filler-${i}`, entityType: "note", observations: ["nothing here"] })),
          { name: "new-apart", entityType: "note", observations: ["github sqlite wal again"] },
        ],
        meta,
      );
      const db = new Db(state.storage.sql);
      const id = (name: string) => db.one<{ id: number }>("SELECT id FROM entities WHERE name = ?", name)?.id;
      const r = rankQuery(db, parseQuery("github-sqlite-wal"), { now: NOW });
      expect(r.entities.map((e) => e.id).sort()).toEqual([id("old-apart"), id("old-compound"), id("githubSqliteWal"), id("new-apart")].sort());
      const term = r.terms[0]?.term;
      if (!term) throw new Error("no term");
      const docs = db.all<{ n: number }>("SELECT count(*) AS n FROM search_words WHERE search_words MATCH ?", expression(term))[0]?.n;
      expect(docs).toBe(4);
    });
  });
});

describe("the best match at any age", () => {
  it("ranks an old entity first when it is the clear best match, under many newer ones holding the same common words", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      instance.createEntities(
        [{ name: "component-943", entityType: "service", observations: ["kafka outage at noon", "the kafka outage again", "kafka outage postmortem"] }],
        meta,
      );
      for (let i = 0; i < 3; i++) {
        instance.createEntities(
          Array.from({ length: 100 }, (_, k) => ({
            name: `filler-${i}-${k}`,
            entityType: "service",
            observations: [`kafka consumer lag on shard ${k}`, `an outage of the billing cron ${k}`],
          })),
          meta,
        );
      }
      const db = new Db(state.storage.sql);
      const r = rankQuery(db, parseQuery("kafka outage"), { now: NOW, top: 5, passages: true });
      expect(r.entities[0]?.id).toBe(1);
      expect(r.entities[0]?.passages).toHaveLength(3);
      const found = await instance.searchNodes("kafka outage", { limit: 5 }, meta);
      expect(found.ok && found.value.entities[0]?.name).toBe("component-943");
    });
  });
});

describe("passages of an entity with many observations", () => {
  it("finds the observations holding the query's words by walking the words' doclists, not by asking each of thousands", async () => {
    await runInDurableObject(stubFor(), async (instance, state) => {
      const filler = (from: number) => Array.from({ length: 1000 }, (_, i) => `routine note ${from + i}`);
      instance.createEntities([{ name: "hub", entityType: "service", observations: filler(0) }], meta);
      instance.addObservations([{ entityName: "hub", contents: [...filler(1000).slice(0, 999), "the zeppelin outage at noon"] }], meta);
      instance.addObservations([{ entityName: "hub", contents: filler(2000).slice(0, 500) }], meta);
      const db = new Db(state.storage.sql);
      const r = rankQuery(db, parseQuery("zeppelin outage"), { now: NOW, top: 5, passages: true });
      const passage = db.one<{ id: number }>("SELECT id FROM observations WHERE content = ?", "the zeppelin outage at noon")?.id;
      expect(r.entities.map((e) => e.id)).toEqual([1]);
      expect(r.entities[0]?.passages).toEqual([passage]);
    });
  });
});
