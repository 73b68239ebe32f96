/**
 * recall's files and documents at any age, through MCP: an old file or
 * document that is the best match under the full score (BM25F × recency ×
 * √priority, docs/search.md "Files and documents: the same BM25F") comes
 * first under many newer partial matches, and an item that the boost lifts
 * above items with a better text score is found however many of them there are.
 */
import { describe, expect, it } from "vitest";
import type { RecallItem } from "../../src/search/pack";
import { byLexical, clockedContext, referenceIn, YEAR_MS } from "../helpers/aged";
import type { TestClient } from "../helpers/clients";

interface Recalled {
  items: (RecallItem & { via?: string })[];
}

const ok = (r: { isError?: boolean; content: { text?: string }[] }) => expect(r.isError, r.content[0]?.text).toBeFalsy();
const matched = async (c: TestClient, query: string, kind: string) => {
  const r = await c.call("recall", { query, kinds: [kind], budgetTokens: 20_000 });
  ok(r);
  return (r.structuredContent as unknown as Recalled).items.filter((i) => !i.via).map((i) => i.key);
};
const filler = (i: number) => `Standup ${i}: reviewed the roadmap, the hiring plan and the budget for next quarter with everyone.`;

describe("recall ranks files and documents at any age", () => {
  const now = Date.UTC(2026, 5, 1);

  it("returns an old file and an old document first when they are the best match, under many newer ones", async () => {
    const { c, set } = await clockedContext("recall-old", now - 2 * YEAR_MS);
    ok(await c.call("create", { path: "runbooks/kafka-outage.md", file_text: "# Kafka outage\n\nKafka outage: restart kafka, then page the outage lead.\n" }));
    ok(await c.call("update_document", { id: "root", content: "# Root\n[[incident]]" }));
    ok(await c.call("update_document", { id: "incident", content: "# Kafka outage\n\nKafka outage: restart kafka, then page the outage lead." }));
    set(now - 60 * 24 * 3600_000);
    const ids = Array.from({ length: 45 }, (_, i) => `n${i}`);
    ok(await c.call("update_document", { id: "root", content: `# Root\n[[incident]] ${ids.map((id) => `[[${id}]]`).join(" ")}` }));
    for (let i = 0; i < 45; i++) {
      const text = `${filler(i)} ${i < 15 ? "Kafka came up." : i < 30 ? "An outage came up." : ""}`;
      ok(await c.call("create", { path: `notes/n${i}.md`, file_text: text }));
      ok(await c.call("update_document", { id: `n${i}`, content: `# Note ${i}\n\n${text}` }));
    }
    set(now);
    expect((await matched(c, "kafka outage", "file"))[0]).toBe("file:runbooks/kafka-outage.md");
    expect((await matched(c, "kafka outage", "doc"))[0]).toBe("doc:incident");
    await c.close();
  });

  it.each([
    ["file", "file:notes/today.md"],
    ["doc", "doc:today"],
  ])("finds the %s the boost puts first even when more than 15 items have a better text score", async (kind, today) => {
    const { c, name, set } = await clockedContext("recall-cut", now - 2 * YEAR_MS);
    const old = Array.from({ length: 25 }, (_, i) => `old${i}`);
    // Documents made by a link hold only their template, so the misc ones keep "kafka" below half the documents, as the files are.
    const links = [...old, ...old.map((_, i) => `misc${i}`)].map((id) => `[[${id}]]`).join(" ");
    ok(await c.call("update_document", { id: "root", content: `# Root\n${links}` }));
    for (const [i, id] of old.entries()) {
      ok(await c.call("create", { path: `notes/${id}.md`, file_text: `Kafka lag alert ${i}.` }));
      ok(await c.call("update_document", { id, content: `# Alert ${i}\n\nKafka lag alert ${i}.` }));
    }
    for (let i = 0; i < 25; i++) ok(await c.call("create", { path: `misc/m${i}.md`, file_text: filler(i) }));
    set(now);
    ok(await c.call("update_document", { id: "root", content: `# Root\n${links} [[today]]` }));
    ok(await c.call("create", { path: "notes/today.md", file_text: "Kafka consumer lag grew again this morning; the team is looking at the brokers." }));
    ok(await c.call("update_document", { id: "today", content: "# Today\n\nKafka consumer lag grew again this morning; the team is looking at the brokers." }));
    // The precondition: first under the full score, below the 15 best by its text alone.
    const reference = await referenceIn(name, kind as "file" | "doc", ["kafka"], now);
    expect(reference[0]?.key).toBe(today.slice(today.indexOf(":") + 1));
    expect(byLexical(reference).indexOf(reference[0]?.key ?? "")).toBeGreaterThanOrEqual(15);
    expect((await matched(c, "kafka", kind))[0]).toBe(today);
    await c.close();
  });
});
