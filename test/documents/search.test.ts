/**
 * search_documents through both MCP clients: natural questions ranked as the
 * other search surfaces rank them (stop words out, documents holding every
 * word first, any age), and FTS5 syntax in a query always plain text, never
 * an operator or an error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
const noteOf = async (c: TestClient, query: string) => json<{ results: Hit[]; note?: string }>(await c.call("search_documents", { query }));
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
    // A word counts once per field, as in an observation: the shorter document holding it ranks first.
    expect(hits.map((h) => h.id)).toEqual(["tasks", "ops"]);
    expect(hits[1]).toEqual({ id: "ops", title: "Operations", snippet: expect.stringContaining("**deploy**") });
    expect(ids(await search(c, "decision sqlite"))).toEqual(["design"]);
    // Any word may match: neither document holds both, so all three come back.
    expect(ids(await search(c, "deploy sqlite"))).toEqual(["design", "ops", "tasks"]);
    expect(await search(c, "deploy", 1)).toHaveLength(1);
    await c.close();
  });

  it.each([
    ["Do NOT deploy", ["ops", "tasks"]],
    ["NOT", []],
    ['"blue-green"', ["ops"]],
    ["blue-green", ["ops"]],
    ["deploy*", ["ops", "tasks"]],
    ["a*b", ["ops"]],
    ["NEAR(the edge)", ["ops"]],
    ["ops:deploy", ["ops", "root", "tasks"]],
    ["^Operations", ["ops"]],
    ["-Friday", ["ops"]],
    ["deploy OR sqlite", ["design", "ops", "tasks"]],
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
    const mixed = await search(c, "設計 deploy");
    expect(ids(mixed)).toEqual(["design", "ops", "tasks"]);
    expect(mixed.find((h) => h.id === "ops")?.snippet).toContain("**deploy**");
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
    expect(ids(await search(shared, "deploy sqlite"))).toContain("design");
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

/** A notebook whose best matches were written first, under many newer documents that hold some of the words. */
async function deepNotebook(connect: (o: { url: string }) => Promise<TestClient>) {
  const c = await connect({ url: `http://localhost/mcp/${freshContext("deep")}` });
  const newer = Array.from({ length: 24 }, (_, i) => `note_${i}`);
  await update(c, "root", `# Root\n[[oncall]] [[payments]] ${newer.map((id) => `[[${id}]]`).join(" ")}`);
  await update(c, "oncall", "# Rota\n\nWeek 13: Dana is on call, week 14 Lee.");
  await update(c, "payments", "# Payments\n\nStripe retries a webhook until we answer, so we see duplicates and drop them by event id.");
  for (const [i, id] of newer.entries()) {
    const body =
      i % 2 === 0
        ? "We had a call about the week ahead, a long call, the whole week."
        : "The Stripe webhook for invoices fired again; webhook logs are kept a week.";
    await update(c, id, `# Note ${i}\n\n${body}`);
  }
  return c;
}

describe.each(CLIENTS)("search_documents takes natural questions (%s)", (_label, connect) => {
  it("answers the questions a person asks, the document holding every word first, however old", async () => {
    const c = await deepNotebook(connect);
    const onCall = await search(c, "who is on call in week 13");
    expect(onCall[0]?.id).toBe("oncall");
    // The newer notes holding some of the words follow, up to the default limit: ranked, not all-terms-only.
    expect(onCall.length).toBe(20);
    const stripe = await search(c, "Stripe webhook duplicates");
    expect(stripe[0]?.id).toBe("payments");
    expect(stripe.length).toBe(13);
    expect((await search(c, "call week 13"))[0]?.id).toBe("oncall");
    expect((await search(c, "Stripe webhook duplicates", 1)).map((h) => h.id)).toEqual(["payments"]);
    await c.close();
  });

  it("says why an answer is empty: no searchable word, or nothing holds any", async () => {
    const c = await deepNotebook(connect);
    expect(await noteOf(c, "who is it?")).toEqual({ results: [], note: expect.stringMatching(/no searchable terms/) });
    expect(await noteOf(c, "giraffes")).toEqual({ results: [], note: expect.stringMatching(/Nothing in memory matches/) });
    expect((await noteOf(c, "week 13")).note).toBeUndefined();
    await c.close();
  });
});
