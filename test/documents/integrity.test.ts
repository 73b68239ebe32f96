/**
 * Tree integrity and limits through both MCP clients: every rejected update
 * names the offending link and writes nothing, not even the valid parts of
 * the same update (a new child, an orphan to remove).
 */
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/limits";
import { CLIENTS, freshContext, text, type TestClient } from "../helpers/clients";
import { expectTreeIntact, growNaturally, snapshot, update } from "../helpers/documents";

// In the natural-growth tree (root > project_overview, tech_decisions, current_tasks > architecture > db_schema, service_layer),
// each case rewrites one document: it keeps one child, drops another (an orphan-to-be), adds [[brand_new]] and one bad link.
// biome-ignore format: a table, one case per line
const RULES: [rule: string, id: string, content: string, reason: string][] = [
  ["rule 3: a document linking itself", "architecture", "[[db_schema]] [[brand_new]] [[architecture]]", "[[architecture]] links the document to itself (a cycle)"],
  ["rule 3: a document linking its parent", "architecture", "[[db_schema]] [[brand_new]] [[current_tasks]]", '[[current_tasks]] is an ancestor of "architecture" (a cycle)'],
  ["rule 3: a document linking the root", "db_schema", "[[brand_new]] [[root]]", '[[root]] is an ancestor of "db_schema" (a cycle)'],
  ["rule 2: a link to a sibling", "db_schema", "[[brand_new]] [[service_layer]]", '[[service_layer]] is a sibling of "db_schema" (both under "architecture")'],
  ["rule 2: a link into another branch", "project_overview", "[[brand_new]] [[architecture]]", '[[architecture]] belongs to another branch (its parent is "current_tasks")'],
  ["rule 2: a link to an ancestor's sibling", "db_schema", "[[brand_new]] [[tech_decisions]]", '[[tech_decisions]] belongs to another branch (its parent is "root")'],
  ["rule 4: a grandchild linked from its grandparent", "current_tasks", "[[brand_new]] [[db_schema]]", '[[db_schema]] is already under "architecture", below "current_tasks"'],
  ["rule 1: the root linking a grandchild", "root", "[[project_overview]] [[tech_decisions]] [[brand_new]] [[architecture]]", '[[architecture]] is already under "current_tasks", below "root"'],
];

async function grown(connect: (o: { url: string }) => Promise<TestClient>) {
  const ctx = freshContext("rule");
  const c = await connect({ url: `http://localhost/mcp/${ctx}` });
  await growNaturally(c);
  return { ctx, c };
}

describe.each(CLIENTS)("document tree integrity (%s)", (_label, connect) => {
  it.each(RULES)("rejects %s, naming the link, and writes nothing", async (_rule, id, content, reason) => {
    const { ctx, c } = await grown(connect);
    const before = await snapshot(ctx);
    const r = await c.call("update_document", { id, content });
    expect(r.isError).toBe(true);
    expect(r.content[0]?.text).toContain("Error (Invalid): ");
    expect(r.content[0]?.text).toContain(reason);
    expect(r.content[0]?.text).toContain("nothing was written");
    expect(await snapshot(ctx)).toEqual(before);
    expect((await c.call("read_document", { id: "brand_new" })).isError).toBe(true);
    await c.close();
  });

  it("names every offending link of one update", async () => {
    const { c } = await grown(connect);
    const r = await c.call("update_document", { id: "db_schema", content: "[[db_schema]] [[service_layer]] [[root]]" });
    for (const link of ["[[db_schema]]", "[[service_layer]]", "[[root]]"]) expect(r.content[0]?.text).toContain(link);
    await c.close();
  });

  it("rejects content over 256 KB, naming the limit, and accepts exactly 256 KB of Japanese and emoji", async () => {
    const { ctx, c } = await grown(connect);
    // "日本" is 6 bytes, "🎉" 4: fill to the byte limit exactly.
    const head = "# 上限 🎉\n";
    const headBytes = new TextEncoder().encode(head).length;
    const fill = LIMITS.documentBytes - headBytes;
    const atLimit = head + "日本".repeat(Math.floor(fill / 6)) + "🎉".repeat(Math.floor((fill % 6) / 4)) + "a".repeat((fill % 6) % 4);
    expect(new TextEncoder().encode(atLimit).length).toBe(LIMITS.documentBytes);
    expect(await update(c, "tech_decisions", atLimit)).toBe("Succeeded");
    expect((await c.call("read_document", { id: "tech_decisions" })).content[0]?.text).toBe(atLimit);

    const before = await snapshot(ctx);
    const r = await c.call("update_document", { id: "tech_decisions", content: `${atLimit}x` });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain(`content must be at most ${LIMITS.documentBytes} bytes`);
    expect(await snapshot(ctx)).toEqual(before);
    await c.close();
  });

  it("rejects a link deeper than DOCUMENT_MAX_DEPTH (16) and accepts one at it", async () => {
    const ctx = freshContext("deep");
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    let parent = "root";
    for (let depth = 1; depth <= 16; depth++) {
      expect(await update(c, parent, `# level ${depth - 1}\n[[d${depth}]]`)).toBe(`Succeeded\nCreated: d${depth}`);
      parent = `d${depth}`;
    }
    const before = await snapshot(ctx);
    const r = await c.call("update_document", { id: "d16", content: "# level 16\n[[d17]]" });
    expect(r.isError).toBe(true);
    expect(r.content[0]?.text).toContain("Error (TooLarge): ");
    expect(r.content[0]?.text).toContain("[[d17]] would be 17 links below the root; documents may be at most 16 deep");
    expect(await snapshot(ctx)).toEqual(before);
    const tree = text(await c.call("get_document_tree"));
    expect(tree).toContain(`${"  ".repeat(16)}d16:\n`);
    await c.close();
  });

  const BAD: [what: string, args: Record<string, unknown>, message: string][] = [
    ["an id with a space", { id: "my doc", content: "x" }, "id must be 1-128 characters of letters, digits, '_' and '-'"],
    ["an id over 128 characters", { id: "a".repeat(129), content: "x" }, "id must be 1-128"],
    ["a control character in content", { content: "a\u0000b" }, "control characters"],
    ["missing content", { id: "root" }, "content"],
    ["a link id over 128 characters", { content: `[[${"x".repeat(129)}]]` }, "has an id of 129 characters (at most 128)"],
    [
      "more links than a document may hold",
      { content: Array.from({ length: LIMITS.documentLinks + 1 }, (_, i) => `[[n${i}]]`).join(" ") },
      `at most ${LIMITS.documentLinks}`,
    ],
  ];

  it.each(BAD)("rejects %s with a clear error and writes nothing", async (_what, args, message) => {
    const { ctx, c } = await grown(connect);
    const before = await snapshot(ctx);
    const r = await c.call("update_document", args);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain(message);
    expect(await snapshot(ctx)).toEqual(before);
    await c.close();
  });

  it("treats [[...]] that is not an id as plain text", async () => {
    const { ctx, c } = await grown(connect);
    const content = "# メモ帳\n[[project_overview]] [[tech_decisions]] [[current_tasks]] [[not a link]] [[日本語]] [[]] [x] [[a.b]]";
    expect(await update(c, "root", content)).toBe("Succeeded");
    await expectTreeIntact(ctx);
    await c.close();
  });

  it("serialises concurrent updates from two clients without losing a link", async () => {
    const ctx = freshContext("race");
    const url = `http://localhost/mcp/${ctx}`;
    const [a, b] = [await connect({ url }), await (CLIENTS.find(([, other]) => other !== connect)?.[1] ?? connect)({ url })];
    await update(a, "root", "# メモ帳\n[[alpha]] [[beta]]");
    const grow = (c: TestClient, id: string) =>
      (async () => {
        for (let i = 1; i <= 8; i++) {
          const links = Array.from({ length: i }, (_, k) => `[[${id}_${k + 1}]]`).join(" ");
          await update(c, id, `# ${id}\n${links}`);
        }
      })();
    // Both clients also rewrite one shared document at the same time; whichever lands last wins whole.
    const shared = (c: TestClient, tag: string) => update(c, "root", `# メモ帳\n[[alpha]] [[beta]] [[shared_${tag}]]`);
    await Promise.all([grow(a, "alpha"), grow(b, "beta"), shared(a, "a"), shared(b, "b")]);

    const rows = await expectTreeIntact(ctx);
    const ids = new Set(rows.map((r) => r.id));
    for (let i = 1; i <= 8; i++) {
      expect(ids.has(`alpha_${i}`)).toBe(true);
      expect(ids.has(`beta_${i}`)).toBe(true);
    }
    expect([ids.has("shared_a"), ids.has("shared_b")].filter(Boolean)).toHaveLength(1);
    await a.close();
    await b.close();
  });
});
