/**
 * Working memory through both MCP clients: growing the tree, reading,
 * orphan cleanup, the YAML tree, Japanese and emoji content.
 */
import { describe, expect, it } from "vitest";
import { CLIENTS, freshContext, json, text } from "../helpers/clients";
import { registered } from "../helpers/context";
import { expectTreeIntact, growNaturally, snapshot, update } from "../helpers/documents";

const NATURAL_TREE = `root:
  project_overview:
  tech_decisions:
  current_tasks:
    architecture:
      db_schema:
      service_layer:
`;

describe.each(CLIENTS)("working memory documents (%s)", (_label, connect) => {
  it("starts every context with the root template", async () => {
    const ctx = await registered(freshContext("doc"));
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    const r = await c.call("read_document");
    expect(r.isError).toBeFalsy();
    expect(r.content[0]?.text).toBe("# メモ帳\n");
    expect(r.structuredContent).toEqual({ id: "root", content: "# メモ帳\n", related: [] });
    expect(r.content.at(-1)?.text).toBe(`[context: ${ctx}]`);
    expect(text(await c.call("get_document_tree"))).toContain("root:\n");
    await c.close();
  });

  it("grows the natural-growth example: linking creates children with the template", async () => {
    const ctx = freshContext("doc");
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    expect(await update(c, "root", "# メモ帳\n\n- [[project_overview]]\n- [[tech_decisions]]\n- [[current_tasks]]\n")).toBe(
      "Succeeded\nCreated: project_overview, tech_decisions, current_tasks",
    );
    expect(await update(c, "current_tasks", "# Current tasks\n\nDesign first: [[architecture]]\n")).toBe("Succeeded\nCreated: architecture");
    const r = await c.call("update_document", { id: "architecture", content: "# Architecture\n\n[[db_schema]] [[service_layer]]" });
    expect(r.content[0]?.text).toBe("Succeeded\nCreated: db_schema, service_layer");
    expect(r.structuredContent).toEqual({ created: ["db_schema", "service_layer"], removed: [] });

    expect(text(await c.call("read_document", { id: "db_schema" }))).toContain("# db_schema\n\n");
    expect((await c.call("read_document", { id: "db_schema" })).structuredContent).toMatchObject({ id: "db_schema", content: "# db_schema\n\n" });
    expect((await c.call("get_document_tree")).content[0]?.text).toBe(NATURAL_TREE);

    // Rewriting a document that keeps its links creates and removes nothing.
    expect(await update(c, "architecture", "# Architecture v2\n\n[[service_layer]] then [[db_schema]]\n")).toBe("Succeeded");
    await expectTreeIntact(ctx);
    await c.close();
  });

  it("answers an unknown id with not found and writes nothing", async () => {
    const ctx = freshContext("doc");
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    await growNaturally(c);
    const read = await c.call("read_document", { id: "nope" });
    expect(read.isError).toBe(true);
    expect(read.content[0]?.text).toBe("Error: nope: not found");

    const before = await snapshot(ctx);
    const write = await c.call("update_document", { id: "nope", content: "# Nope\n[[child]]" });
    expect(write.isError).toBe(true);
    // A write's failure carries its kind, as every other tool's does; the read keeps its documented answer.
    expect(write.content[0]?.text).toMatch(/^Error \(NotFound\): nope: not found\. A document is created by linking \[\[nope\]\] from its parent\.$/);
    expect(await snapshot(ctx)).toEqual(before);
    await c.close();
  });

  it("deletes an unlinked child with its whole subtree in the same call and says so", async () => {
    const ctx = freshContext("doc");
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    await growNaturally(c);
    const r = await c.call("update_document", { content: "# メモ帳\n\n- [[project_overview]]\n- [[tech_decisions]]\n- [[next_steps]]\n" });
    expect(r.content[0]?.text).toBe("Succeeded\nCreated: next_steps\nRemoved: current_tasks, architecture, db_schema, service_layer");
    expect(r.structuredContent).toEqual({ created: ["next_steps"], removed: ["current_tasks", "architecture", "db_schema", "service_layer"] });
    for (const gone of ["current_tasks", "architecture", "db_schema", "service_layer"]) {
      expect((await c.call("read_document", { id: gone })).content[0]?.text).toBe(`Error: ${gone}: not found`);
    }
    expect((await c.call("get_document_tree")).content[0]?.text).toBe("root:\n  project_overview:\n  tech_decisions:\n  next_steps:\n");
    const rows = await expectTreeIntact(ctx);
    expect(rows.map((d) => d.id).sort()).toEqual(["next_steps", "project_overview", "root", "tech_decisions"]);

    // Linking a removed id again creates a fresh document from the template.
    expect(await update(c, "root", "[[current_tasks]]")).toBe("Succeeded\nCreated: current_tasks\nRemoved: project_overview, tech_decisions, next_steps");
    expect(text(await c.call("read_document", { id: "current_tasks" }))).toMatch(/^# current_tasks\n\n/);
    await c.close();
  });

  it("renders the tree as YAML in link order, titles as comments when asked", async () => {
    const ctx = freshContext("doc");
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    await growNaturally(c);
    await update(c, "tech_decisions", "## Tech decisions: 🚀 Workers + SQLite # not a comment\nbody");
    await update(c, "root", "# メモ帳\n[[current_tasks]] [[tech_decisions]] [[project_overview]] [[current_tasks]]");
    const plain = await c.call("get_document_tree");
    expect(plain.content[0]?.text).toBe(
      "root:\n  current_tasks:\n    architecture:\n      db_schema:\n      service_layer:\n  tech_decisions:\n  project_overview:\n",
    );
    expect(plain.structuredContent).toEqual({ yaml: plain.content[0]?.text, documents: 7 });
    const titled = await c.call("get_document_tree", { titles: true });
    expect(titled.content[0]?.text).toBe(
      [
        "root:  # メモ帳",
        "  current_tasks:  # Current tasks",
        "    architecture:  # Architecture",
        "      db_schema:",
        "      service_layer:",
        "  tech_decisions:  # Tech decisions: 🚀 Workers + SQLite # not a comment",
        "  project_overview:",
        "",
      ].join("\n"),
    );
    await c.close();
  });

  it("keeps Japanese and emoji content exactly", async () => {
    const ctx = freshContext("doc");
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    const content = "# 開発メモ 📝\n\n## 決定事項\n- データベースは SQLite 🗄️\n- 家族の絵文字 👨‍👩‍👧‍👦 と 🇯🇵\n\n詳細: [[設計_notes]] は不可、[[design_notes]] は可\n";
    expect(await update(c, "root", content)).toBe("Succeeded\nCreated: design_notes");
    expect((await c.call("read_document")).content[0]?.text).toBe(content);
    expect(text(await c.call("get_document_tree", { titles: true }))).toContain("root:  # 開発メモ 📝\n  design_notes:\n");
    const found = json<{ results: { id: string; title: string; snippet: string }[] }>(await c.call("search_documents", { query: "決定" }));
    expect(found.results).toEqual([{ id: "root", title: "開発メモ 📝", snippet: expect.stringContaining("**決定**事項") }]);
    await c.close();
  });
});
