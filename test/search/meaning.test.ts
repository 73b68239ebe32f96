/**
 * What search_nodes and recall find beyond the query's words: synonyms from
 * the bundled WordNet table (on unless SEARCH_EXPANSION is false) and, with
 * an embedder, the entities nearest in meaning fused by rank (hybrid mode).
 * The context's object is called directly, as the tools call it.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { expansionFor, searchMode } from "../../src/search/meaning";
import { parseQuery } from "../../src/search/query";
import { type AiBinding, WorkersAiEmbedder } from "../../src/search/semantic";
import { foldAppends } from "../../src/search/semantic/queue";
import { settings } from "../../src/settings";
import { Db } from "../../src/storage/sql";
import { as, stubOf, unwrap } from "../helpers/context";

type Stub = DurableObjectStub<MemoryContext>;
let n = 0;
const fresh = (): Stub => stubOf(`meaning-${Date.now()}-${n++}`);
const meta = as("tester");
const kinds = ["entity", "file", "doc"] as never;

/** A fake `AI` binding with two directions: texts mentioning fish or the made-up word "zqxv" point one way, everything else the other. */
class TwoWayAi implements AiBinding {
  async run(_model: string, inputs: Record<string, unknown>): Promise<unknown> {
    const texts = inputs.text as string[];
    return { shape: [texts.length, 4], data: texts.map((t) => (/fish|zqxv/i.test(t) ? [1, 0, 0, 0] : [0, 1, 0, 0])) };
  }
}

/** Runs the alarm until nothing waits to be embedded. */
async function drain(stub: Stub): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const waiting = await runInDurableObject(stub, (_i, state) => {
      const db = new Db(state.storage.sql);
      state.storage.transactionSync(() => foldAppends(db));
      return db.one<{ n: number }>("SELECT COUNT(*) AS n FROM embed_queue")?.n ?? 0;
    });
    if (waiting === 0) return;
    await runDurableObjectAlarm(stub);
  }
  throw new Error("the embedding queue did not drain");
}

const names = (r: { entities: { name: string }[] }) => r.entities.map((e) => e.name);

describe("query expansion", () => {
  it("adds synonyms of plain words below the literal weight, and none for compounds", () => {
    const added = expansionFor(parseQuery("automobile physician docker-compose"));
    expect(added.find((t) => t.term === "car")?.weight).toBeLessThan(1);
    expect(added.find((t) => t.term === "doctor")?.weight).toBeLessThan(1);
    expect(added.every((t) => t.weight < 1 && !t.term.includes("docker"))).toBe(true);
    expect(expansionFor(parseQuery("the of and"))).toEqual([]);
    expect(searchMode(added, undefined)).toBe("lexical+expansion");
    expect(searchMode([], undefined)).toBe("lexical");
    expect(searchMode(added, [])).toBe("hybrid");
  });

  it('search_nodes "automobile" finds the car, after the entity that says automobile; off, only the literal one', async () => {
    await runInDurableObject(fresh(), async (instance: MemoryContext) => {
      unwrap(
        instance.createEntities(
          [
            { name: "garage visit", entityType: "event", observations: ["took the car to the mechanic on Friday"] },
            { name: "motor club", entityType: "organisation", observations: ["an automobile association"] },
            { name: "lunch", entityType: "event", observations: ["sandwiches in the park"] },
          ],
          meta,
        ),
      );
      const found = names(unwrap(await instance.searchNodes("automobile", {}, meta)));
      expect(found).toEqual(["motor club", "garage visit"]);
      expect(names(unwrap(await instance.searchNodes("physician", {}, meta)))).toEqual([]);

      instance.config = () => ({ ...settings(env), SEARCH_EXPANSION: false });
      expect(names(unwrap(await instance.searchNodes("automobile", {}, meta)))).toEqual(["motor club"]);
      const r = unwrap(await instance.recall("automobile", { budgetTokens: 1500, kinds }, meta));
      expect(r.mode).toBe("lexical");
      expect(r.items.map((i) => i.key)).toEqual(["entity:motor club"]);
    });
  });

  it("recall finds a paraphrase and says it searched with expansion", async () => {
    await runInDurableObject(fresh(), async (instance: MemoryContext) => {
      unwrap(instance.createEntities([{ name: "Dr Okafor", entityType: "person", observations: ["our family doctor since 2019"] }], meta));
      const r = unwrap(await instance.recall("Who is the physician?", { budgetTokens: 1500, kinds }, meta));
      expect(r.mode).toBe("lexical+expansion");
      expect(r.items[0]?.key).toBe("entity:Dr Okafor");
    });
  });

  it("recall finds files and documents by synonym too, after the literal match; off, only the literal ones", async () => {
    await runInDurableObject(fresh(), async (instance: MemoryContext) => {
      unwrap(instance.createFile("notes/garage.md", "Took the car to the mechanic on Friday.\n", false, meta));
      unwrap(instance.createFile("notes/club.md", "Joined the automobile association.\n", false, meta));
      unwrap(instance.updateDocument("root", "# Root\n[[clinic]]", meta));
      unwrap(instance.updateDocument("clinic", "# Clinic\n\nOur family doctor moved to the new clinic.", meta));
      // The matches only: co-visited items (`via`) may follow them.
      const keys = async (query: string) =>
        unwrap(await instance.recall(query, { budgetTokens: 1500, kinds: ["file", "doc"] }, meta))
          .items.filter((i) => i.via === undefined)
          .map((i) => i.key);
      expect(await keys("automobile")).toEqual(["file:notes/club.md", "file:notes/garage.md"]);
      expect(await keys("physician")).toEqual(["doc:clinic"]);

      instance.config = () => ({ ...settings(env), SEARCH_EXPANSION: false });
      expect(await keys("automobile")).toEqual(["file:notes/club.md"]);
      expect(await keys("physician")).toEqual([]);
    });
  });

  it("the SEARCH_EXPANSION setting is true unless set to false, and refuses anything else", () => {
    expect(settings({} as Env).SEARCH_EXPANSION).toBe(true);
    expect(settings({ SEARCH_EXPANSION: "false" } as unknown as Env).SEARCH_EXPANSION).toBe(false);
    expect(() => settings({ SEARCH_EXPANSION: "maybe" } as unknown as Env)).toThrow(/SEARCH_EXPANSION/);
  });
});

describe("hybrid mode", () => {
  it("fuses the entities nearest in meaning: a query sharing no word finds them, and recall says hybrid", async () => {
    const stub = fresh();
    unwrap(
      await stub.createEntities(
        [
          { name: "Tom", entityType: "cat", observations: ["likes fish on Sundays"] },
          { name: "Rex", entityType: "dog", observations: ["chases the postman"] },
        ],
        meta,
      ),
    );
    // Lexical mode: the made-up word matches nothing.
    expect(names(unwrap(await stub.searchNodes("zqxv", {}, meta)))).toEqual([]);

    await runInDurableObject(stub, (instance: MemoryContext) => instance.useEmbedder(new WorkersAiEmbedder(new TwoWayAi(), "@cf/test/two-way")));
    await drain(stub);
    const found = names(unwrap(await stub.searchNodes("zqxv", {}, meta)));
    expect(found[0]).toBe("Tom");
    const r = unwrap(await stub.recall("zqxv", { budgetTokens: 1500, kinds }, meta));
    expect(r.mode).toBe("hybrid");
    expect(r.items[0]?.key).toBe("entity:Tom");
    // A literal match still counts: "postman" finds Rex first although the vectors point at Tom.
    expect(names(unwrap(await stub.searchNodes("postman", {}, meta)))[0]).toBe("Rex");
  });
});
