/**
 * search_documents through both MCP clients, and the query builder on its own:
 * FTS5 syntax in a query is always plain text, never an operator or an error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ftsQuery } from "../../src/documents/search";
import { LIMITS } from "../../src/limits";
import { CLIENTS, freshContext, json, text, type TestClient } from "../helpers/clients";
import { update } from "../helpers/documents";

interface Hit {
  id: string;
  title: string;
  snippet: string;
}
const search = async (c: TestClient, query: string, limit?: number) => {
  const r = await c.call("search_documents", limit === undefined ? { query } : { query, limit });
  expect(r.isError, text(r)).toBeFalsy();
  return json<{ results: Hit[] }>(r).results;
};
const ids = (hits: Hit[]) => hits.map((h) => h.id).sort();

async function notebook(connect: (o: { url: string }) => Promise<TestClient>) {
  const c = await connect({ url: `http://localhost/mcp/${freshContext("find")}` });
  await update(c, "root", "# メモ帳\n[[ops]] [[design]] [[tasks]]");
  await update(c, "ops", '# Operations\nDo NOT deploy on Friday. Deploys run through CI: pipeline "blue-green" (a*b) NEAR the edge.');
  await update(c, "design", "# Design decisions\nWe decided on SQLite with FTS5. データベース設計についての議論。");
  await update(c, "tasks", "# Tasks\n- [ ] deploy the search index\n- [ ] 検索の改善 🔍");
  return c;
}

describe.each(CLIENTS)("search_documents (%s)", (_label, connect) => {
  // Searching writes nothing a test here looks at, so the read-only tests share one notebook.
  let shared: TestClient;
  beforeAll(async () => {
    shared = await notebook(connect);
  });
  afterAll(() => shared.close());

  it("returns ids, titles and snippets, best match first, words stemmed", async () => {
    const c = await notebook(connect);
    const hits = await search(c, "deploying");
    expect(ids(hits)).toEqual(["ops", "tasks"]);
    expect(hits[0]).toEqual({ id: "ops", title: "Operations", snippet: expect.stringContaining("**deploy**") });
    expect(ids(await search(c, "decision sqlite"))).toEqual(["design"]);
    expect(await search(c, "deploy sqlite")).toEqual([]);
    expect(await search(c, "deploy", 1)).toHaveLength(1);
    await c.close();
  });

  it.each([
    ["Do NOT deploy", ["ops"]],
    ["NOT", ["ops"]],
    ['"blue-green"', ["ops"]],
    ["blue-green", ["ops"]],
    ["deploy*", ["ops", "tasks"]],
    ["a*b", ["ops"]],
    ["NEAR(the edge)", ["ops"]],
    ["ops:deploy", []],
    ["^Operations", ["ops"]],
    ["-Friday", ["ops"]],
    ["deploy OR sqlite", []],
    ["AND", []],
    ["(", []],
    ['"', []],
    ['* ^ - + : ( ) " { }', []],
    ["'; DROP TABLE documents; --", []],
  ] as const)("treats FTS5 syntax as plain text: %s", async (query, expected) => {
    expect(ids(await search(shared, query))).toEqual([...expected]);
  });

  it("finds Japanese text inside a run, with a marked snippet", async () => {
    const c = await notebook(connect);
    const hits = await search(c, "設計");
    expect(hits).toEqual([{ id: "design", title: "Design decisions", snippet: expect.stringContaining("データベース**設計**について") }]);
    expect(ids(await search(c, "データベース"))).toEqual(["design"]);
    expect(ids(await search(c, "検索"))).toEqual(["tasks"]);
    expect(ids(await search(c, "検"))).toEqual(["tasks"]);
    expect(ids(await search(c, "メモ帳"))).toEqual(["root"]);
    expect(ids(await search(c, "設計 sqlite"))).toEqual(["design"]);
    expect(await search(c, "設計 deploy")).toEqual([]);
    await c.close();
  });

  it("follows every write: replaced words and removed documents are no longer found", async () => {
    const c = await notebook(connect);
    await update(c, "ops", "# Operations\nFreeze: nothing ships this week.");
    expect(ids(await search(c, "deploy"))).toEqual(["tasks"]);
    expect(ids(await search(c, "freeze"))).toEqual(["ops"]);
    await update(c, "root", "# メモ帳\n[[ops]] [[design]]");
    expect(await search(c, "deploy")).toEqual([]);
    await c.close();
  });

  it(`answers a query over ${LIMITS.queryChars} characters by its first ${LIMITS.queryChars}`, async () => {
    // "deploy" is in ops and tasks, "sqlite" only in design: the cut leaves "sqlite" out.
    const pasted = `deploy ${" ".repeat(LIMITS.queryChars)} sqlite`;
    expect(ids(await search(shared, pasted))).toEqual(["ops", "tasks"]);
    expect(ids(await search(shared, "deploy sqlite"))).toEqual([]);
  });

  it("rejects an empty query and a limit over 100", async () => {
    const c = await notebook(connect);
    for (const args of [{ query: "" }, { query: "deploy", limit: 101 }]) {
      const r = await c.call("search_documents", args);
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/query|limit/);
    }
    await c.close();
  });
});

describe("ftsQuery", () => {
  it("quotes every word and restricts it to the text columns", () => {
    expect(ftsQuery('Do "NOT" deploy*')).toBe('{title content} : "Do" AND {title content} : """NOT""" AND {title content} : "deploy*"');
  });

  it("turns CJK runs into bigram phrases, a single character into a prefix", () => {
    expect(ftsQuery("DB設計 検")).toBe('{title content} : "DB" AND search_cjk : "設計" AND search_cjk : "検"*');
    expect(ftsQuery("データベース")).toBe('search_cjk : "デー ータ タベ ベー ース"');
  });

  it("drops words with no letter or digit and gives null when none is left", () => {
    expect(ftsQuery("( * -")).toBeNull();
    expect(ftsQuery("🔍 deploy")).toBe('{title content} : "deploy"');
  });
});
