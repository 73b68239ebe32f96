/**
 * The documents store inside the object (runInDurableObject): the configured
 * root template, the recorded mutation primitives undo replays, the depth
 * option, and a property test that no sequence of updates, accepted or
 * rejected, ever breaks the tree.
 */
import { env, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { itemSink } from "../../src/context/access";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { Db } from "../../src/storage/sql";
import { titleOf } from "../../src/documents/links";
import { deleteDocument, getDocument, putDocument } from "../../src/documents/rows";
import * as documents from "../../src/documents/store";
import { renderTree, yamlKey } from "../../src/documents/yaml";
import { capture } from "../../src/errors";
import type { InverseOp, WriteScope } from "../../src/history";
import { settings } from "../../src/settings";
import { freshContext } from "../helpers/clients";
import { expectTreeIntact, snapshot } from "../helpers/documents";

const OPTS: documents.DocumentOptions = { rootTemplate: "# メモ帳\n", maxDepth: 16 };

/** A write scope at time `now` whose recorder keeps the notes in `notes`. */
const scope = (db: Db, now: number, notes: [string | readonly string[], InverseOp][] = []): WriteScope => ({
  db,
  now,
  rec: { note: (items, op) => void notes.push([items, op]) },
  items: itemSink(db),
});

/** Runs `fn` in a fresh context's object, inside one transaction as MemoryContext does. */
function inObject<T>(context: string, fn: (db: Db) => T): Promise<T> {
  const stub = env.MEMORY.getByName(context) as DurableObjectStub<MemoryContext>;
  return runInDurableObject(stub, (_i: MemoryContext, state) => state.storage.transactionSync(() => fn(new Db(state.storage.sql))));
}

describe("documents store", () => {
  it("serves the configured template for the root without storing it, and the first write stores it, once", async () => {
    const ctx = freshContext("tpl");
    const custom = { ...OPTS, rootTemplate: "# Team notebook\n\nStart here.\n" };
    expect(await inObject(ctx, (db) => documents.readDocument(db, "root", custom))).toEqual({ id: "root", content: "# Team notebook\n\nStart here.\n" });
    expect(await inObject(ctx, (db) => documents.documentTree(db, custom))).toEqual({ root: { id: "root", title: "Team notebook", children: [] }, count: 1 });
    expect(await inObject(ctx, (db) => getDocument(db, "root"))).toBeUndefined();
    await inObject(ctx, (db) => documents.updateDocument(scope(db, 1), "root", "# Team notebook\n\n[[plan]]\n", custom));
    expect(await inObject(ctx, (db) => getDocument(db, "root"))).toMatchObject({ parent_id: null, title: "Team notebook", created_at: 1 });
    // The root now exists: a different template later changes nothing.
    expect(await inObject(ctx, (db) => documents.readDocument(db, "root", OPTS).content)).toBe("# Team notebook\n\n[[plan]]\n");
  });

  it("sends every mutation through primitives that return the prior row and note its inverse", async () => {
    const ctx = freshContext("prim");
    await inObject(ctx, (db) => {
      const notes: [string | readonly string[], InverseOp][] = [];
      const at = (now: number) => scope(db, now, notes);
      expect(putDocument(at(1), "root", "# r\n[[a]]", null)).toBeNull();
      expect(putDocument(at(2), "a", "# a\n", "root")).toBeNull();
      const prior = putDocument(at(3), "a", "# A2\n", "root");
      expect(prior).toMatchObject({ id: "a", parent_id: "root", content: "# a\n", title: "a", created_at: 2, updated_at: 2 });
      expect(getDocument(db, "a")).toMatchObject({ content: "# A2\n", title: "A2", created_at: 2, updated_at: 3 });
      expect(deleteDocument(at(4), "a")).toMatchObject({ id: "a", content: "# A2\n" });
      expect(deleteDocument(at(5), "a")).toBeNull();
      const seq = prior?.seq;
      // Priors carry the priority columns too, so undoing a delete restores them (src/items/stats.ts).
      const stats = { accessCount: 0, lastAccessedAt: null, category: "general", important: false, baseRelevance: 1, tier: "short", uses: 0, clusterSize: 0 };
      expect(notes).toEqual([
        ["doc:root", { kind: "document", id: "root", prior: null }],
        ["doc:a", { kind: "document", id: "a", prior: null }],
        ["doc:a", { kind: "document", id: "a", prior: { seq, parent: "root", content: "# a\n", createdAt: 2, updatedAt: 2, stats } }],
        ["doc:a", { kind: "document", id: "a", prior: { seq, parent: "root", content: "# A2\n", createdAt: 2, updatedAt: 3, stats }, deleted: true }],
      ]);
      // A restore puts the row back exactly: its seq (the FTS rowid) and its times.
      putDocument(at(9), "a", "# A2\n", "root", { seq: seq as number, parent: "root", content: "# A2\n", createdAt: 2, updatedAt: 3 });
      expect(getDocument(db, "a")).toMatchObject({ seq, created_at: 2, updated_at: 3, title: "A2" });
    });
  });

  it("honours a smaller maximum depth", async () => {
    const ctx = freshContext("depth");
    const shallow = { ...OPTS, maxDepth: 2 };
    await inObject(ctx, (db) => {
      documents.updateDocument(scope(db, 1), "root", "[[one]]", shallow);
      documents.updateDocument(scope(db, 1), "one", "[[two]]", shallow);
    });
    const outcome = await inObject(ctx, (db) => capture(() => documents.updateDocument(scope(db, 1), "two", "[[three]]", shallow)));
    expect(outcome).toEqual({
      ok: false,
      kind: "TooLarge",
      message: expect.stringContaining("[[three]] would be 3 links below the root; documents may be at most 2 deep"),
    });
  });

  it("keeps the tree intact through any sequence of updates, and a rejected one writes nothing", async () => {
    const ctx = freshContext("prop");
    const ids = ["root", "a", "b", "c", "d", "e", "f"];
    const op = fc.record({
      doc: fc.constantFrom(...ids),
      links: fc.subarray(ids),
      text: fc.constantFrom("", "# t\n", "日本語 🎉 "),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 12 }), async (ops) => {
        await inObject(ctx, (db) => db.run("DELETE FROM documents WHERE parent_id IS NOT NULL"));
        // Not the template, which an update would leave unstored: the root is stored from here on, as these plain calls
        // run outside the transaction that would roll back a rejected update's lazy creation of it.
        await inObject(ctx, (db) => documents.updateDocument(scope(db, 0), "root", "# Notebook\n", OPTS));
        for (const { doc, links, text } of ops) {
          const before = await snapshot(ctx);
          const content = text + links.map((l) => `[[${l}]]`).join(" ");
          const outcome = await inObject(ctx, (db) => capture(() => documents.updateDocument(scope(db, 1), doc, content, OPTS)));
          if (!outcome.ok) expect(await snapshot(ctx)).toEqual(before);
          await expectTreeIntact(ctx);
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe("document text rules", () => {
  it("takes the first non-blank line without its '#'s as the title", () => {
    expect(titleOf("\n\n  ## Architecture  \nbody")).toBe("Architecture");
    expect(titleOf("plain first line\n# later")).toBe("plain first line");
    expect(titleOf("")).toBe("");
    expect(titleOf("# a\tb\u0007c")).toBe("a b c");
    expect([...titleOf(`# ${"長".repeat(300)}`)]).toHaveLength(200);
  });

  it("quotes YAML keys that a parser would not read as strings", () => {
    for (const plain of ["root", "db_schema", "_x", "Yesterday", "null_ish"]) expect(yamlKey(plain)).toBe(plain);
    for (const quoted of ["123", "1e3", "-x", "yes", "No", "ON", "null", "True", "y", "0x1F"]) expect(yamlKey(quoted)).toBe(`"${quoted}"`);
  });

  it("renders an empty tree as the root alone", () => {
    expect(renderTree({ id: "root", title: "メモ帳", children: [] }, false)).toBe("root:\n");
    expect(renderTree({ id: "root", title: "root", children: [] }, true)).toBe("root:\n");
  });
});

describe("documents settings", () => {
  const base = { MEMORY: env.MEMORY } as unknown as Env;
  it("defaults to a Japanese notebook root and a depth of 16", () => {
    expect(settings({ ...base } as Env)).toMatchObject({ ROOT_TEMPLATE: "# メモ帳\n", DOCUMENT_MAX_DEPTH: 16 });
    expect(settings({ ...base, ROOT_TEMPLATE: "# Notes\n", DOCUMENT_MAX_DEPTH: "4" } as unknown as Env)).toMatchObject({
      ROOT_TEMPLATE: "# Notes\n",
      DOCUMENT_MAX_DEPTH: 4,
    });
  });

  it.each([
    [{ ROOT_TEMPLATE: "# Notes\n[[child]]" }, "ROOT_TEMPLATE: must not contain [[links]]"],
    [{ DOCUMENT_MAX_DEPTH: "0" }, "DOCUMENT_MAX_DEPTH"],
    [{ DOCUMENT_MAX_DEPTH: "deep" }, "DOCUMENT_MAX_DEPTH"],
    [{ DOCUMENT_MAX_DEPTH: "101" }, "DOCUMENT_MAX_DEPTH"],
  ])("rejects %o naming the variable", (vars, message) => {
    expect(() => settings({ ...base, ...vars } as unknown as Env)).toThrow(message);
  });
});
