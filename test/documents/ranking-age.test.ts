/**
 * search_documents at any age, through MCP: documents ranked by the full
 * score (BM25F × recency × √priority, docs/search.md "Files and documents:
 * the same BM25F"), every-word matches first. An old document that is the
 * best match comes first under many newer ones, and a document the boost
 * puts first is found however many have a better text score than it.
 */
import { describe, expect, it } from "vitest";
import { byLexical, clockedContext, referenceIn, YEAR_MS } from "../helpers/aged";
import { json, type TestClient } from "../helpers/clients";
import { update } from "../helpers/documents";

const found = async (c: TestClient, query: string, limit: number) => {
  const r = await c.call("search_documents", { query, limit });
  expect(r.isError).toBeFalsy();
  return json<{ results: { id: string }[] }>(r).results.map((h) => h.id);
};
const filler = (i: number) => `Standup ${i}: reviewed the roadmap, the hiring plan and the budget for next quarter with everyone.`;

describe("search_documents ranks documents at any age", () => {
  const now = Date.UTC(2026, 5, 1);

  it("returns an old document first when it is the best match, among newer ones holding the same words", async () => {
    const { c, name, set } = await clockedContext("docs-old", now - 2 * YEAR_MS);
    await update(c, "root", "# Root\n[[incident]]");
    await update(c, "incident", "# Kafka outage\n\nKafka outage: restart kafka, then page the outage lead.");
    // Newer, though old enough that recency no longer tells them apart from the incident: the text decides.
    set(now - 200 * 24 * 3600_000);
    const ids = Array.from({ length: 40 }, (_, i) => `n${i}`);
    await update(c, "root", `# Root\n[[incident]] ${ids.map((id) => `[[${id}]]`).join(" ")}`);
    for (let i = 0; i < 40; i++) await update(c, `n${i}`, `# Note ${i}\n\n${filler(i)} ${i < 15 ? "A kafka outage came up." : ""}`);
    set(now);
    const reference = (await referenceIn(name, "doc", ["kafka", "outage"], now)).filter((r) => r.all);
    expect(reference.map((r) => r.key)).toHaveLength(16);
    expect(reference[0]?.key).toBe("incident");
    expect(await found(c, "kafka outage", 5)).toEqual(reference.slice(0, 5).map((r) => r.key));
    await c.close();
  });

  it("finds the document the boost puts first even when more than the limit have a better text score", async () => {
    const { c, name, set } = await clockedContext("docs-cut", now - 2 * YEAR_MS);
    const old = Array.from({ length: 12 }, (_, i) => `old${i}`);
    const links = [...old, ...old.map((_, i) => `misc${i}`)].map((id) => `[[${id}]]`).join(" ");
    await update(c, "root", `# Root\n${links}`);
    for (const [i, id] of old.entries()) await update(c, id, `# Alert ${i}\n\nKafka lag alert ${i}.`);
    set(now);
    await update(c, "root", `# Root\n${links} [[today]]`);
    await update(c, "today", "# Today\n\nKafka consumer lag grew again this morning; the team is looking at the brokers.");
    const reference = await referenceIn(name, "doc", ["kafka"], now);
    expect(reference[0]?.key).toBe("today");
    expect(byLexical(reference).indexOf("today")).toBeGreaterThanOrEqual(5);
    expect(await found(c, "kafka", 5)).toEqual(reference.slice(0, 5).map((r) => r.key));
    await c.close();
  });

  it("still puts the documents holding every word first, each group by the full score", async () => {
    const { c, name, set } = await clockedContext("docs-all", now - 2 * YEAR_MS);
    await update(c, "root", "# Root\n[[old]] [[a]] [[b]] [[c]]");
    await update(c, "old", "# Deploy\n\nDeploy the kafka brokers one at a time.");
    set(now);
    await update(c, "a", "# Kafka\n\nKafka, kafka, kafka.");
    await update(c, "b", "# Deploys\n\nDeploy on Tuesdays.");
    await update(c, "c", "# Lunch\n\nTacos on Friday.");
    const partial = (await referenceIn(name, "doc", ["deploy", "kafka"], now)).map((r) => r.key).filter((k) => k !== "old");
    expect(await found(c, "deploy kafka", 10)).toEqual(["old", ...partial]);
    await c.close();
  });
});
