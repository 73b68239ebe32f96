/**
 * Co-visitation for documents, and for what undo removes or moves: reading
 * a document is a retrieval answered with related items, updating one is a
 * write, and items an update or an undo deletes are forgotten while items an
 * undo moves back take their counts along.
 */
import { describe, expect, it } from "vitest";
import { CLIENTS, freshContext, text, type TestClient, type ToolResult } from "../helpers/clients";
import { withDb } from "../helpers/documents";

type Related = { item: string; count: number }[];
const related = (r: ToolResult): Related => (r.structuredContent as { related?: Related }).related ?? [];

/** Association rows naming `item`, either way round. */
const pairsNaming = (ctx: string, item: string) =>
  withDb(ctx, (db) => db.one<{ n: number }>("SELECT COUNT(*) AS n FROM covisit_pairs WHERE item = ?1 OR other = ?1", item)?.n ?? 0);

describe.each(CLIENTS)("co-visitation of documents (%s)", (_label, connect) => {
  let ctx = "";
  const open = (key: string) => connect({ url: `http://localhost/mcp/${ctx}`, headers: { "Mcp-Memory-Session": key } });

  async function session<T>(key: string, steps: (c: TestClient) => Promise<T>): Promise<T> {
    const c = await open(key);
    const out = await steps(c);
    await c.close();
    return out;
  }

  /**
   * root -> plan, notes, and the file a.md. Linking writes root and its new
   * children in one call, so those three relate to each other once; the file
   * is created in a session of its own.
   */
  async function seed() {
    ctx = freshContext("cdoc");
    await session("seed:docs", (c) => c.call("update_document", { content: "# メモ帳\n\n[[plan]] [[notes]]\n" }));
    await session("seed:file", (c) => c.call("create", { path: "a.md", file_text: "# a\n" }));
  }

  const probe = (tool: string, args: Record<string, unknown>) => session(`probe-${Math.random()}`, (c) => c.call(tool, args));

  it("answers read_document with related items across kinds, as view and open_nodes do", async () => {
    await seed();
    for (const key of ["s1", "s2"]) {
      await session(key, async (c) => {
        await c.call("read_document", { id: "plan" });
        await c.call("view", { path: "a.md" });
      });
    }
    const r = await probe("read_document", { id: "plan" });
    expect(r.content[0]?.text).toBe("# plan\n\n");
    expect(r.content[1]?.text).toBe(
      "🧠 RELATED FILES (Associative Memory)\n  [1] a.md (co-visited 2x)\n  [2] doc:notes (co-visited 1x)\n  [3] doc:root (co-visited 1x)",
    );
    expect(r.content[2]?.text).toBe(`[context: ${ctx}]`);
    expect(r.structuredContent).toEqual({
      id: "plan",
      content: "# plan\n\n",
      related: [
        { item: "file:a.md", count: 2 },
        { item: "doc:notes", count: 1 },
        { item: "doc:root", count: 1 },
      ],
    });
    const v = await probe("view", { path: "a.md" });
    expect(related(v)).toEqual([{ item: "doc:plan", count: 2 }]);
    expect(text(v)).toContain("  [1] doc:plan (co-visited 2x)");
  });

  it("counts update_document as a write that relates the document to what the session read", async () => {
    await seed();
    await session("s1", async (c) => {
      await c.call("read_document", { id: "plan" });
      await c.call("search_documents", { query: "notes" });
      await c.call("update_document", { id: "notes", content: "# notes\n\nafter reading the plan\n" });
    });
    expect(related(await probe("read_document", { id: "notes" }))).toEqual([
      { item: "doc:plan", count: 2 },
      { item: "doc:root", count: 1 },
    ]);
    // Search hits are not uses: root (a hit for "notes") gained nothing in s1.
    expect(related(await probe("read_document", { id: "root" }))).toEqual([
      { item: "doc:notes", count: 1 },
      { item: "doc:plan", count: 1 },
    ]);
  });

  it("forgets documents an update removes, and never recommends them again", async () => {
    await seed();
    await session("s1", async (c) => {
      for (const id of ["plan", "notes"]) await c.call("read_document", { id });
    });
    expect(await pairsNaming(ctx, "doc:notes")).toBe(4);
    await session("cut", (c) => c.call("update_document", { content: "# メモ帳\n\n[[plan]]\n" }));
    expect(await pairsNaming(ctx, "doc:notes")).toBe(0);
    await session("relink", (c) => c.call("update_document", { content: "# メモ帳\n\n[[plan]] [[notes]]\n" }));
    expect(related(await probe("read_document", { id: "plan" }))).toEqual([{ item: "doc:root", count: 1 }]);
  });

  it("forgets what an undo deletes (a created document, file or entity), as the delete tools do", async () => {
    await seed();
    await session("s1", async (c) => {
      await c.call("update_document", { content: "# メモ帳\n\n[[plan]] [[notes]] [[extra]]\n" });
      await c.call("create", { path: "b.md", file_text: "b" });
      await c.call("create_entities", { entities: [{ name: "E", entityType: "t", observations: [] }] });
      await c.call("open_nodes", { names: ["E"] });
      await c.call("view", { path: "a.md" });
    });
    for (const item of ["doc:extra", "file:b.md", "entity:E"]) expect(await pairsNaming(ctx, item)).toBeGreaterThan(0);
    const undo = await session("s1", (c) => c.call("undo", { count: 3 }));
    expect(undo.isError, text(undo)).toBeFalsy();
    for (const item of ["doc:extra", "file:b.md", "entity:E"]) expect(await pairsNaming(ctx, item)).toBe(0);
    expect(related(await probe("view", { path: "a.md" }))).toEqual([{ item: "doc:root", count: 1 }]);
  });

  it("moves counts back with a file an undo renames back", async () => {
    await seed();
    await session("seed:b", (c) => c.call("create", { path: "b.md", file_text: "b" }));
    await session("s1", async (c) => {
      await c.call("view", { path: "a.md" });
      await c.call("view", { path: "b.md" });
    });
    await session("mv", (c) => c.call("rename", { old_path: "a.md", new_path: "moved/a.md" }));
    expect(related(await probe("view", { path: "b.md" }))).toEqual([{ item: "file:moved/a.md", count: 1 }]);
    const undo = await session("mv", (c) => c.call("undo"));
    expect(undo.isError, text(undo)).toBeFalsy();
    expect(related(await probe("view", { path: "b.md" }))).toEqual([{ item: "file:a.md", count: 1 }]);
    expect(await pairsNaming(ctx, "file:moved/a.md")).toBe(0);
  });
});
