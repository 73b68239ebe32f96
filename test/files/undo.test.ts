/**
 * History and undo for the file memory, through both MCP clients: every
 * file command is one recorded change, undo puts the files table back
 * exactly (ids, content, times), and undo refuses to clobber another
 * caller's later change.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { CLIENTS, freshContext, text, type TestClient } from "../helpers/clients";
import { as, changesOf, stubOf, unwrap } from "../helpers/context";
import { withDb } from "../helpers/documents";

/** Every file row, so "exactly" covers ids and times, not only what view shows. */
const filesOf = (ctx: string) => withDb(ctx, (db) => db.all("SELECT id, path, content, created_at, updated_at FROM files ORDER BY path"));

/** Makes the context's clock tick a second per reading, so each write has its own time and a wrongly restored time shows. */
async function tickingClock(ctx: string): Promise<void> {
  let t = Date.now();
  await runInDurableObject(stubOf(ctx), (instance: MemoryContext) => {
    instance.now = () => (t += 1000);
  });
}

async function seed(c: TestClient) {
  for (const [path, file_text] of [
    ["notes/a.md", "# A\nline two\n"],
    ["notes/b.md", "b"],
    ["top.md", "top"],
  ]) {
    expect((await c.call("create", { path, file_text })).isError).toBeFalsy();
  }
}

describe.each(CLIENTS)("undo of file commands (%s)", (_label, connect) => {
  const writes: [string, Record<string, unknown>][] = [
    ["create", { path: "notes/new.md", file_text: "fresh" }],
    ["create", { path: "top.md", file_text: "replaced", overwrite: true }],
    ["str_replace", { path: "notes/a.md", old_str: "line two", new_str: "line 2" }],
    ["insert", { path: "notes/a.md", insert_line: 1, insert_text: "inserted" }],
    ["delete", { path: "top.md" }],
    ["delete", { path: "notes" }],
    ["rename", { old_path: "top.md", new_path: "moved/top.md" }],
    ["rename", { old_path: "notes", new_path: "archive/notes" }],
  ];

  it.each(writes)("takes back %s %j and restores the files exactly", async (tool, args) => {
    const ctx = freshContext("ufile");
    await tickingClock(ctx);
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    await seed(c);
    const before = await filesOf(ctx);
    expect((await c.call(tool, args)).isError).toBeFalsy();
    expect(await filesOf(ctx)).not.toEqual(before);
    const r = await c.call("undo");
    expect(r.isError, text(r)).toBeFalsy();
    expect(text(r)).toMatch(new RegExp(`^Undid #\\d+ \\(${tool}: [+~-]file .+\\) as change #\\d+\\.`));
    expect(await filesOf(ctx)).toEqual(before);
    await c.close();
  });

  it("records each command as one change, filters by file item, and an undo of the undo redoes", async () => {
    const ctx = freshContext("ufile");
    await tickingClock(ctx);
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    await c.call("create", { path: "a.md", file_text: "one\n" });
    await c.call("str_replace", { path: "a.md", old_str: "one", new_str: "two" });
    await c.call("rename", { old_path: "a.md", new_path: "b.md" });
    await c.call("delete", { path: "b.md" });
    for (const path of ["d/1.md", "d/2.md", "d/3.md", "d/4.md", "d/5.md"]) await c.call("create", { path, file_text: "x" });
    await c.call("delete", { path: "d" });
    await c.call("view", { path: "/" });

    const changes = await changesOf(ctx);
    expect(changes.map((x) => [x.tool, x.summary])).toEqual([
      ["delete", "-file d/1.md, d/2.md, d/3.md and 2 more"],
      ...["d/5.md", "d/4.md", "d/3.md", "d/2.md", "d/1.md"].map((p) => ["create", `+file ${p}`]),
      ["delete", "-file b.md"],
      ["rename", "~file a.md -> b.md"],
      ["str_replace", "~file a.md"],
      ["create", "+file a.md"],
    ]);
    const listed = await c.call("memory_history", { item: "file:a.md" });
    expect(
      text(listed)
        .split("\n")
        .slice(0, 3)
        .map((l) => l.replace(/^#\d+ \S+ /, "")),
    ).toEqual(["local rename: ~file a.md -> b.md", "local str_replace: ~file a.md", "local create: +file a.md"]);

    await c.call("undo");
    expect(text(await c.call("view", { path: "/" }))).toContain(" d/\n  1.md");
    const edited = await filesOf(ctx);
    const undo = (await c.call("undo", { count: 7 })).structuredContent as { change: number; undone: { tool: string }[] };
    expect(undo.undone.map((u) => u.tool)).toEqual(["rename", "delete", "create", "create", "create", "create", "create"]);
    expect(text(await c.call("view", { path: "a.md" }))).toContain("   1: two");
    const redo = await c.call("undo", { change: undo.change });
    expect(redo.isError, text(redo)).toBeFalsy();
    expect(await filesOf(ctx)).toEqual(edited);
    await c.close();
  });

  it("records no change for an edit that changes nothing, so the next undo takes back the last real one", async () => {
    const ctx = freshContext("ufile");
    await tickingClock(ctx);
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    await c.call("create", { path: "a.md", file_text: "one\n" });
    await c.call("str_replace", { path: "a.md", old_str: "one", new_str: "two" });
    const before = await filesOf(ctx);
    const history = await changesOf(ctx);

    const same = await c.call("str_replace", { path: "a.md", old_str: "two", new_str: "two" });
    expect(same.isError).toBe(true);
    expect(text(same)).toContain("new_str is the same as old_str in a.md; nothing was changed.");
    const again = await c.call("create", { path: "a.md", file_text: "two\n", overwrite: true });
    expect(again.isError, text(again)).toBeFalsy();
    expect(again.structuredContent).toEqual({ path: "a.md", created: false, lines: 1, bytes: 4, unchanged: true });
    expect(text(again)).toContain("a.md already holds this text (1 line, 4 bytes); nothing changed.");
    expect(await filesOf(ctx)).toEqual(before);
    expect(await changesOf(ctx)).toEqual(history);

    const undo = (await c.call("undo")).structuredContent as { undone: { tool: string }[] };
    expect(undo.undone.map((u) => u.tool)).toEqual(["str_replace"]);
    expect(text(await c.call("view", { path: "a.md" }))).toContain("   1: one");
    await c.close();
  });

  it("refuses to undo over another caller's later edit, naming it, and changes nothing", async () => {
    const ctx = freshContext("ufile");
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    await c.call("create", { path: "shared.md", file_text: "mine\n" });
    unwrap(await stubOf(ctx).strReplace("shared.md", "mine", "bob's", as("bob", "str_replace")));
    const before = await filesOf(ctx);
    const history = await changesOf(ctx);
    const r = await c.call("undo");
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/cannot undo #\d+: later changes by others touch the same items .* by bob \(str_replace: ~file shared\.md\)/);
    expect(await filesOf(ctx)).toEqual(before);
    expect(await changesOf(ctx)).toEqual(history);
    await c.close();
  });

  it("refuses to restore a deleted file where another caller has since made a directory", async () => {
    const ctx = freshContext("ufile");
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    await c.call("create", { path: "x", file_text: "a file named x" });
    await c.call("delete", { path: "x" });
    // A different item (file:x/inner.md), so history sees no conflict; the applier does.
    unwrap(await stubOf(ctx).createFile("x/inner.md", "bob's", false, as("bob", "create")));
    const before = await filesOf(ctx);
    const r = await c.call("undo");
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("x is a directory now, so file x cannot be restored; nothing was undone.");
    expect(await filesOf(ctx)).toEqual(before);
    await c.close();
  });
});

describe("undo of large files", () => {
  it.each([
    ["quotes and backslashes", '"\\'.repeat(512 * 1024)],
    ["control characters", "\u0001\u001f".repeat(512 * 1024)],
  ])("deletes and restores a 1 MB file of %s, whose JSON would outgrow a history row", async (_what, content) => {
    const ctx = freshContext("ubig");
    const stub = stubOf(ctx);
    unwrap(await stub.createFile("big.txt", "small", false, as("local", "create")));
    unwrap(await stub.createFile("big.txt", content, true, as("local", "create")));
    unwrap(await stub.deletePath("big.txt", as("local", "delete")));
    // The platform refuses rows over 2 MB; local workerd does not, so the test measures them.
    const biggest = await withDb(ctx, (db) => db.one<{ n: number }>("SELECT MAX(length(CAST(ops AS BLOB))) AS n FROM change_inverse")?.n);
    expect(biggest).toBeGreaterThan(1024 * 1024);
    expect(biggest).toBeLessThan(2 * 1024 * 1024 - 1024);
    unwrap(await stub.undo({ count: 1 }, as("local", "undo")));
    const [row] = await withDb(ctx, (db) => db.all<{ content: string }>("SELECT content FROM files WHERE path = 'big.txt'"));
    expect(row?.content === content).toBe(true);
    unwrap(await stub.undo({ count: 1 }, as("local", "undo")));
    const [back] = await withDb(ctx, (db) => db.all<{ content: string }>("SELECT content FROM files WHERE path = 'big.txt'"));
    expect(back?.content).toBe("small");
  });
});
