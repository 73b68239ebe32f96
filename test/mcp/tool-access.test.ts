/**
 * A tool's `access` (src/mcp/tool.ts) is what the context resolver enforces:
 * every tool that declares "write" is refused for a token holding only a
 * read grant, and writes nothing: neither the context's data and history
 * nor the Registry's list of contexts changes.
 */
import { describe, expect, it } from "vitest";
import { TOOLS } from "../../src/mcp/tools";
import { connectV2, freshContext, text } from "../helpers/clients";
import { exportText } from "../helpers/context";
import { ADMIN, api, connectAs, createContext, mint } from "../helpers/teams";

/** Valid arguments for every write tool, so each call passes validation and meets the access check. */
const WRITE_ARGS: Record<string, Record<string, unknown>> = {
  create_entities: { entities: [{ name: "new", entityType: "t", observations: ["o"] }] },
  create_relations: { relations: [{ from: "A", to: "B", relationType: "new" }] },
  add_observations: { observations: [{ entityName: "A", contents: ["more"] }] },
  delete_entities: { entityNames: ["A"] },
  delete_observations: { deletions: [{ entityName: "A", observations: ["a1"] }] },
  delete_relations: { relations: [{ from: "A", to: "B", relationType: "knows" }] },
  update_observation: { entityName: "A", old: "a1", new: "a2" },
  merge_entities: { target: "A", sources: ["B"] },
  undo: {},
  update_document: { id: "root", content: "replaced" },
  create: { path: "notes/new.md", file_text: "new" },
  str_replace: { path: "notes/a.md", old_str: "alpha", new_str: "beta" },
  insert: { path: "notes/a.md", insert_line: 0, insert_text: "top" },
  delete: { path: "notes/a.md" },
  rename: { old_path: "notes/a.md", new_path: "notes/b.md" },
  mark_important: { items: ["entity:A"], important: true },
  restore: { items: ["entity:A"] },
  add_context: { name: "readers-new" },
  remove_context: { name: "__context__" },
};

const contextNames = async () => ((await (await api("/contexts")).json()) as { contexts: { name: string }[] }).contexts.map((c) => c.name).sort();

describe("a tool's declared access", () => {
  it("declares read or write on every tool, and a tool that tells clients it only reads declares read", () => {
    for (const tool of TOOLS) {
      expect(["read", "write"], tool.name).toContain(tool.access);
      if (tool.annotations.readOnlyHint) expect(tool.access, tool.name).toBe("read");
    }
  });

  it("refuses every write tool to a read grant and writes nothing", async () => {
    const ctx = freshContext("readers");
    await createContext(ctx);
    const admin = await connectAs(connectV2, ADMIN, `/mcp/${ctx}`);
    const seed: [string, Record<string, unknown>][] = [
      [
        "create_entities",
        {
          entities: [
            { name: "A", entityType: "t", observations: ["a1"] },
            { name: "B", entityType: "t", observations: ["b1"] },
          ],
        },
      ],
      ["create_relations", { relations: [{ from: "A", to: "B", relationType: "knows" }] }],
      ["create", { path: "notes/a.md", file_text: "alpha" }],
    ];
    for (const [tool, args] of seed) expect((await admin.call(tool, args)).isError, tool).toBeFalsy();
    await admin.close();

    const writes = TOOLS.filter((t) => t.access === "write").map((t) => t.name);
    expect(Object.keys(WRITE_ARGS).sort()).toEqual([...writes].sort());

    const reader = await connectAs(connectV2, (await mint([{ context: ctx, role: "read" }])).token, `/mcp/${ctx}`);
    const before = { data: await exportText(ctx, true), contexts: await contextNames() };
    for (const tool of writes) {
      const args = JSON.parse(JSON.stringify(WRITE_ARGS[tool]).replace("__context__", ctx)) as Record<string, unknown>;
      const r = await reader.call(tool, args);
      expect(r.isError, tool).toBe(true);
      expect(text(r), tool).toContain("Error (Forbidden)");
    }
    expect({ data: await exportText(ctx, true), contexts: await contextNames() }).toEqual(before);
    // The reads still answer, so the refusals above are the access check's and not a broken context.
    expect((await reader.call("read_graph")).isError).toBeFalsy();
    await reader.close();
  });
});
