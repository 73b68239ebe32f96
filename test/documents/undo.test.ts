/**
 * History and undo for working memory, through both MCP clients: an update
 * is one change whatever it created and removed, undo restores a removed
 * subtree (rows, parent links, FTS index) and removes created children, and
 * undo refuses to clobber another caller's later change.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { CLIENTS, freshContext, text, type TestClient } from "../helpers/clients";
import { as, changesOf, registered, stubOf, unwrap } from "../helpers/context";
import { expectTreeIntact, growNaturally, snapshot, update, withDb } from "../helpers/documents";

const NATURAL_TREE = `root:
  project_overview:
  tech_decisions:
  current_tasks:
    architecture:
      db_schema:
      service_layer:
`;

/** Makes the context's clock tick a second per reading, so a wrongly restored time shows. */
async function tickingClock(ctx: string): Promise<void> {
  let t = Date.now();
  await runInDurableObject(stubOf(ctx), (instance: MemoryContext) => {
    instance.now = () => (t += 1000);
  });
}

/** Every column of every document row (access statistics included) and the co-visitation sessions an access feeds. */
const stateOf = (ctx: string) =>
  withDb(ctx, (db) => ["documents", "covisit_sessions", "covisit_session_items", "covisit_pairs"].map((table) => db.all(`SELECT * FROM ${table} ORDER BY 1, 2`)));

const hits = async (c: TestClient, query: string) =>
  ((await c.call("search_documents", { query })).structuredContent as { results: { id: string }[] }).results.map((h) => h.id);

describe.each(CLIENTS)("undo of documents (%s)", (_label, connect) => {
  it("restores a removed subtree with its search index, and removes the children the update created, as one change", async () => {
    const ctx = await registered(freshContext("udoc"));
    await tickingClock(ctx);
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    await growNaturally(c);
    await update(c, "db_schema", "# db_schema\n\npostgres tables and indexes\n");
    expect(await hits(c, "postgres")).toEqual(["db_schema"]);
    const before = await snapshot(ctx);
    const changesBefore = (await changesOf(ctx)).length;

    expect(await update(c, "current_tasks", "# Current tasks\n\n[[next_sprint]]\n")).toBe(
      "Succeeded\nCreated: next_sprint\nRemoved: architecture, db_schema, service_layer",
    );
    const [change, ...rest] = await changesOf(ctx);
    expect(rest).toHaveLength(changesBefore);
    expect(change).toMatchObject({ tool: "update_document", summary: "~doc current_tasks; +doc next_sprint; -doc service_layer, db_schema, architecture" });
    expect(await hits(c, "postgres")).toEqual([]);
    const after = await snapshot(ctx);

    const r = await c.call("undo");
    expect(r.isError, text(r)).toBeFalsy();
    expect(text(r)).toMatch(/^Undid #\d+ \(update_document: ~doc current_tasks; \+doc next_sprint; -doc service_layer, db_schema, architecture\)/);
    expect(await snapshot(ctx)).toEqual(before);
    await expectTreeIntact(ctx);
    expect(await hits(c, "postgres")).toEqual(["db_schema"]);
    expect((await c.call("get_document_tree")).content[0]?.text).toBe(NATURAL_TREE);

    // Undoing the undo removes the subtree again, exactly as the update did.
    const redo = await c.call("undo", { change: (r.structuredContent as { change: number }).change });
    expect(redo.isError, text(redo)).toBeFalsy();
    expect(await snapshot(ctx)).toEqual(after);
    await expectTreeIntact(ctx);
    await c.close();
  });

  it("undoes updates one by one back to the root template, and lists changes by document", async () => {
    const ctx = await registered(freshContext("udoc"));
    await tickingClock(ctx);
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    const template = (await c.call("read_document")).content[0]?.text;
    // A read stores nothing: the first write stores the root, from the template.
    expect(await snapshot(ctx)).toEqual({ documents: [], indexed: [] });
    await growNaturally(c);
    await update(c, "architecture", "# Architecture v2\n\n[[db_schema]] [[service_layer]]\n");

    const listed = await c.call("memory_history", { item: "doc:architecture" });
    expect(
      text(listed)
        .split("\n")
        .slice(0, 3)
        .map((l) => l.replace(/^#\d+ \S+ /, "")),
    ).toEqual([
      "local update_document: ~doc architecture",
      "local update_document: ~doc architecture; +doc db_schema, service_layer",
      "local update_document: ~doc current_tasks; +doc architecture",
    ]);

    const one = (await c.call("undo")).structuredContent as { undone: { summary: string }[] };
    expect(one.undone.map((u) => u.summary)).toEqual(["~doc architecture"]);
    expect((await c.call("read_document", { id: "architecture" })).content[0]?.text).toBe("# Architecture\n\n- [[db_schema]]\n- [[service_layer]]\n");
    const all = (await c.call("undo", { count: 3 })).structuredContent as { undone: unknown[] };
    expect(all.undone).toHaveLength(3);
    const back = await snapshot(ctx);
    expect(back.documents.map((d) => [d.id, d.content])).toEqual([["root", template]]);
    expect(back.indexed.map((d) => d.content)).toEqual([template]);
    expect((await c.call("read_document")).content[0]?.text).toBe(template);
    await expectTreeIntact(ctx);
    await c.close();
  });

  it("records no change for an update that changes nothing, so the next undo takes back the last real one", async () => {
    const ctx = await registered(freshContext("udoc"));
    await tickingClock(ctx);
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    await update(c, "root", "# メモ帳\n\n[[plan]]\n");
    await update(c, "plan", "# Plan\n\nfirst\n");
    const before = await stateOf(ctx);
    const history = await changesOf(ctx);

    const same = await c.call("update_document", { id: "plan", content: "# Plan\n\nfirst\n" });
    expect(same.isError, text(same)).toBeFalsy();
    expect(same.structuredContent).toEqual({ created: [], removed: [], unchanged: true });
    expect(text(same)).toContain("plan already holds this content; nothing changed.");
    // Nothing written, not even the update time, and no access counted.
    expect(await stateOf(ctx)).toEqual(before);
    expect(await changesOf(ctx)).toEqual(history);

    const undo = (await c.call("undo")).structuredContent as { undone: { summary: string }[] };
    expect(undo.undone.map((u) => u.summary)).toEqual(["~doc plan"]);
    expect(text(await c.call("read_document", { id: "plan" }))).toContain("# plan\n\n");

    // The title is the first line: changing only it is a change, recorded and undone like any other.
    await update(c, "plan", "# plan v2\n\n");
    const [retitled] = await changesOf(ctx);
    expect(retitled).toMatchObject({ tool: "update_document", summary: "~doc plan" });
    expect(text(await c.call("get_document_tree", { titles: true }))).toContain("plan:  # plan v2");
    expect(text(await c.call("undo"))).toMatch(/^Undid #\d+ \(update_document: ~doc plan\)/);
    expect(text(await c.call("read_document", { id: "plan" }))).toContain("# plan\n\n");
    await c.close();
  });

  it("stores nothing for an update of the unstored root with the template it serves", async () => {
    const ctx = await registered(freshContext("udoc"));
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    const template = (await c.call("read_document")).content[0]?.text ?? "";
    const r = await c.call("update_document", { content: template });
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent).toEqual({ created: [], removed: [], unchanged: true });
    expect(await snapshot(ctx)).toEqual({ documents: [], indexed: [] });
    expect(await changesOf(ctx)).toEqual([]);
    await c.close();
  });

  it("refuses to undo a link when another caller has since written the linked document, and changes nothing", async () => {
    const ctx = freshContext("udoc");
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    await update(c, "root", "# メモ帳\n\n[[plan]]\n");
    unwrap(await stubOf(ctx).updateDocument("plan", "# Plan\n\nbob's plan\n", as("bob", "update_document")));
    const before = await snapshot(ctx);
    const history = await changesOf(ctx);
    const r = await c.call("undo");
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/cannot undo #\d+: later changes by others touch the same items .* by bob \(update_document: ~doc plan\)/);
    expect(await snapshot(ctx)).toEqual(before);
    expect(await changesOf(ctx)).toEqual(history);
    await c.close();
  });
});

describe("document undo appliers", () => {
  it("refuse to remove a created document that has children history cannot see, writing nothing", async () => {
    const ctx = freshContext("udoc");
    const stub = stubOf(ctx);
    unwrap(await stub.updateDocument("root", "# r\n\n[[plan]]\n", as("alice", "update_document")));
    // A row written behind history's back (as by a restore from an old backup).
    await withDb(ctx, (db) =>
      db.run("INSERT INTO documents (id, parent_id, title, content, created_at, updated_at) VALUES ('stray', 'plan', 'stray', '# stray', 0, 0)"),
    );
    const before = await snapshot(ctx);
    const r = await stub.undo({ count: 1 }, as("alice", "undo"));
    expect(r).toEqual({
      ok: false,
      kind: "Conflict",
      message: 'document "plan" has child documents now (stray), so its creation cannot be undone; nothing was undone.',
    });
    expect(await snapshot(ctx)).toEqual(before);
  });
});
