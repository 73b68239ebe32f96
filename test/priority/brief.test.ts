/**
 * The brief's budget on a large context, and its order: marked important,
 * then most used, then most recent.
 */
import { describe, expect, it } from "vitest";
import { BRIEF_TOKENS, estimateTokens } from "../../src/priority/brief";
import { CLIENTS, freshContext } from "../helpers/clients";
import { as, registered, stubOf, unwrap } from "../helpers/context";

const long = (i: number) => `Observation ${i}: ${"a long remark about the project and its people ".repeat(12)}`;

async function largeContext(entities: number) {
  const context = await registered(freshContext("brief"));
  const stub = stubOf(context);
  for (let start = 0; start < entities; start += 500) {
    const batch = Array.from({ length: Math.min(500, entities - start) }, (_, i) => ({
      name: `entity ${start + i}`,
      entityType: "thing",
      observations: [long(start + i), long(start + i + 1)],
    }));
    unwrap(await stub.createEntities(batch, as("seed")));
  }
  return { context, stub };
}

describe("the brief on a large context", () => {
  it.each(CLIENTS)("holds 2,000 entities with long observations within 1,500 tokens (%s client)", async (_label, connect) => {
    const { context, stub } = await largeContext(2000);
    unwrap(await stub.markImportant(["entity:entity 1999"], true, as("seed")));
    unwrap(await stub.openNodes(["entity 7"], as("seed")));
    const c = await connect({ url: `http://localhost/mcp/${context}` });
    const text = (await c.readResource("memory://brief")).contents[0]?.text ?? "";
    const prompt = await c.getPrompt("brief");
    await c.close();
    expect(estimateTokens(text)).toBeLessThanOrEqual(BRIEF_TOKENS);
    expect(estimateTokens(text)).toBeGreaterThan(BRIEF_TOKENS * 0.8);
    const important = text.indexOf('"entity 1999"');
    const used = text.indexOf('"entity 7"');
    expect(important).toBeGreaterThan(0);
    expect(used).toBeGreaterThan(important);
    expect(text.indexOf("## Most used")).toBeLessThan(used);
    expect(text).toMatch(/more not shown/);
    expect(estimateTokens(prompt.messages[0]?.content.text ?? "")).toBeLessThanOrEqual(BRIEF_TOKENS);
  });

  it("never exceeds a small budget, header included", async () => {
    const { stub } = await largeContext(50);
    for (const maxTokens of [1, 10, 60, 200]) {
      const b = unwrap(await stub.brief({ maxTokens, kinds: ["entity", "file", "doc"], header: "# a header of some length" }, as("reader")));
      expect(b.tokens, String(maxTokens)).toBeLessThanOrEqual(maxTokens);
      expect(b.shown + b.omitted).toBe(50);
      if (maxTokens >= 60) expect(b.text).toContain(`${b.omitted} more not shown`);
    }
  });

  it("is not an access: reading it changes no statistics", async () => {
    const { stub } = await largeContext(5);
    const before = unwrap(await stub.entityStats(["entity 0"]));
    unwrap(await stub.brief({ maxTokens: 1500, kinds: ["entity"], header: "#" }, as("reader")));
    expect(unwrap(await stub.entityStats(["entity 0"]))).toEqual(before);
  });
});
