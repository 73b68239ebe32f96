/**
 * completion/complete through real clients of both SDK generations: prefix,
 * case-insensitive, best priority first, at most 100, a range on an index.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { COMPLETION_MAX, prefixQuery } from "../../src/priority/complete";
import { Db } from "../../src/storage/sql";
import { CLIENTS, freshContext } from "../helpers/clients";
import { as, registered, stubOf, unwrap } from "../helpers/context";

const recall = { type: "ref/prompt", name: "recall" } as const;
const entityTemplate = { type: "ref/resource", uri: "memory://entity/{name}" } as const;

describe.each(CLIENTS)("completion, with %s client", (_label, connect) => {
  it("completes the recall topic and entity names by prefix, ignoring case, best priority first", async () => {
    const context = await registered(freshContext("cmp"));
    const stub = stubOf(context);
    unwrap(
      await stub.createEntities(
        ["Ada Lovelace", "adam smith", "ADAPTER", "Bob"].map((name) => ({ name, entityType: "t", observations: [] })),
        as("seed"),
      ),
    );
    unwrap(await stub.markImportant(["entity:ADAPTER"], true, as("seed")));
    const c = await connect({ url: `http://localhost/mcp/${context}` });
    const topic = await c.complete(recall, "topic", "aDa");
    expect(topic.values[0]).toBe("ADAPTER");
    expect([...topic.values].sort()).toEqual(["ADAPTER", "Ada Lovelace", "adam smith"]);
    expect((await c.complete(entityTemplate, "name", "b")).values).toEqual(["Bob"]);
    expect((await c.complete(entityTemplate, "name", "zz")).values).toEqual([]);
    expect((await c.complete(recall, "other", "a")).values).toEqual([]);
    await c.close();
  });

  it("completes file paths and document ids, and returns at most 100 with hasMore", async () => {
    const context = await registered(freshContext("cmp"));
    const c = await connect({ url: `http://localhost/mcp/${context}` });
    await c.call("create", { path: "Notes/Plan.md", file_text: "x" });
    await c.call("update_document", { id: "root", content: "# Root\n\n[[child-doc]]" });
    expect((await c.complete({ type: "ref/resource", uri: "memory://file/{+path}" }, "path", "notes/")).values).toEqual(["Notes/Plan.md"]);
    expect((await c.complete({ type: "ref/resource", uri: "memory://doc/{id}" }, "id", "CH")).values).toEqual(["child-doc"]);
    unwrap(
      await stubOf(context).createEntities(
        Array.from({ length: 150 }, (_, i) => ({ name: `n${i}`, entityType: "t", observations: [] })),
        as("seed"),
      ),
    );
    const many = await c.complete(entityTemplate, "name", "N");
    expect(many.values).toHaveLength(COMPLETION_MAX);
    expect(many.hasMore).toBe(true);
    expect(many.total).toBe(150);
    await c.close();
  });

  it("refuses a template the connection does not serve", async () => {
    const c = await connect({ url: "http://localhost/mcp?tools=files" });
    const e = await c.complete(entityTemplate, "name", "a").then(
      () => undefined,
      (error: unknown) => error as { code?: number },
    );
    expect(e?.code).toBe(-32602);
    await c.close();
  });
});

describe("the prefix lookup", () => {
  it("is a range search on the NOCASE index, for every kind", async () => {
    const stub = stubOf(await registered(freshContext("cmp")));
    await runInDurableObject(stub, (_instance: MemoryContext, state) => {
      const db = new Db(state.storage.sql);
      for (const kind of ["entity", "file", "doc"] as const) {
        const q = prefixQuery(kind, "ab");
        const plan = db
          .all<{ detail: string }>(`EXPLAIN QUERY PLAN ${q.sql}`, ...q.params)
          .map((r) => r.detail)
          .join("; ");
        expect(plan, kind).toMatch(/SEARCH \w+ USING (COVERING )?INDEX \w+_nocase \(/);
        expect(plan, kind).not.toMatch(/TEMP B-TREE/);
      }
    });
  });
});
