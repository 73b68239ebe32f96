/**
 * The prompts through real clients of both SDK generations: each embeds live
 * memory of the caller's context within its budget, a missing argument is
 * Invalid Params naming it, and only the served toolsets' prompts appear.
 */
import { describe, expect, it } from "vitest";
import { BRIEF_BUDGET, estimateTokens } from "../../src/priority/brief";
import { LIMITS } from "../../src/limits";
import { PROMPT_TOKENS } from "../../src/mcp/prompts";
import { cutQuery } from "../../src/mcp/schemas";
import { CLIENTS, freshContext, rejection } from "../helpers/clients";
import { as, registered, stubOf, unwrap } from "../helpers/context";

type Connect = (typeof CLIENTS)[number][1];

async function withMemory(connect: Connect, tools = "all") {
  const context = await registered(freshContext("prm"));
  const c = await connect({ url: `http://localhost/mcp/${context}?tools=${tools}` });
  await c.call("create_entities", {
    entities: [
      { name: "Ada Lovelace", entityType: "person", observations: ["Leads the billing rewrite", "Prefers Postgres"] },
      { name: "Billing Rewrite", entityType: "project", observations: ["Due in March"] },
    ],
  });
  await c.call("create_relations", { relations: [{ from: "Ada Lovelace", to: "Billing Rewrite", relationType: "leads" }] });
  return { c, context };
}

const textOf = (r: { messages: { content: { text?: string } }[] }) => r.messages.map((m) => m.content.text ?? "").join("\n");

describe.each(CLIENTS)("prompts, with %s client", (_label, connect) => {
  it("lists recall, remember, memory-guide and brief with their arguments", async () => {
    const c = await connect();
    const prompts = await c.listPrompts();
    await c.close();
    expect(prompts.map((p) => p.name).sort()).toEqual(["brief", "memory-guide", "recall", "remember"]);
    expect(prompts.find((p) => p.name === "recall")?.arguments).toEqual([expect.objectContaining({ name: "topic", required: true })]);
    expect(prompts.find((p) => p.name === "remember")?.arguments).toEqual([expect.objectContaining({ name: "summary", required: true })]);
  });

  it("recall embeds what memory holds about the topic, best first, with handles", async () => {
    const { c, context } = await withMemory(connect);
    const text = textOf(await c.getPrompt("recall", { topic: "billing" }));
    expect(text).toContain(`context "${context}"`);
    expect(text).toContain("Leads the billing rewrite");
    expect(text).toContain("memory://entity/Ada%20Lovelace");
    expect(text).toContain("Ada Lovelace leads Billing Rewrite");
    expect(text).toMatch(/open_nodes/);
    expect(estimateTokens(text)).toBeLessThanOrEqual(PROMPT_TOKENS.recall);
    const nothing = textOf(await c.getPrompt("recall", { topic: "zebra" }));
    expect(nothing).toContain("Nothing yet");
    await c.close();
  });

  it("recall stays within its budget on a context of long observations", async () => {
    const context = await registered(freshContext("prm"));
    const entities = Array.from({ length: 300 }, (_, i) => ({
      name: `billing item ${i}`,
      entityType: "note",
      observations: Array.from({ length: 5 }, (_, j) => `billing detail ${j} ${"x".repeat(400)}`),
    }));
    unwrap(await stubOf(context).createEntities(entities, as("seed")));
    const c = await connect({ url: `http://localhost/mcp/${context}` });
    const text = textOf(await c.getPrompt("recall", { topic: "billing detail item" }));
    await c.close();
    expect(estimateTokens(text)).toBeLessThanOrEqual(PROMPT_TOKENS.recall);
    expect(text).toMatch(/more not shown/);
  });

  it("recall quotes a pasted page cut as the search cuts it, and stays within its budget", async () => {
    const { c } = await withMemory(connect);
    const topic = "billing ".repeat(12_500);
    const text = textOf(await c.getPrompt("recall", { topic }));
    await c.close();
    expect(text).toContain(`holds about ${JSON.stringify(cutQuery(topic))} (its first ${LIMITS.queryChars} characters), best first:`);
    expect(text).toContain("Leads the billing rewrite");
    expect(estimateTokens(text)).toBeLessThanOrEqual(PROMPT_TOKENS.recall);
  });

  it("remember lists the existing entities the summary touches, so their names are reused", async () => {
    const { c } = await withMemory(connect);
    const text = textOf(await c.getPrompt("remember", { summary: "Ada moved the billing rewrite to April" }));
    expect(text).toContain("Ada moved the billing rewrite to April");
    expect(text).toContain('"Ada Lovelace" (person)');
    expect(text).toContain('"Billing Rewrite" (project)');
    expect(text).toMatch(/One fact per observation/);
    await c.close();
  });

  it("memory-guide gives the guidance with examples and what the context holds; brief gives the briefing", async () => {
    const { c, context } = await withMemory(connect);
    const guide = textOf(await c.getPrompt("memory-guide"));
    expect(guide).toContain("## Examples");
    expect(guide).toContain(`"${context}" holds 2 entities, 1 relations`);
    const brief = textOf(await c.getPrompt("brief"));
    expect(brief).toContain("Ada Lovelace");
    expect(estimateTokens(brief)).toBeLessThanOrEqual(PROMPT_TOKENS.brief);
    await c.close();
  });

  it("brief takes a budget from 200 to 3000 tokens, so a client that injects it on its own can ask for more", async () => {
    const context = await registered(freshContext("prm"));
    const c = await connect({ url: `http://localhost/mcp/${context}` });
    const entities = Array.from({ length: 120 }, (_, i) => ({
      name: `Service ${i}`,
      entityType: "service",
      observations: [`Service ${i} runs the nightly ledger export for region ${i} and pages the billing on-call rotation`],
    }));
    expect((await c.call("create_entities", { entities })).isError).toBeFalsy();
    const tokens = async (budgetTokens?: string) => estimateTokens(textOf(await c.getPrompt("brief", budgetTokens === undefined ? undefined : { budgetTokens })));
    const [least, standard, most] = [await tokens(String(BRIEF_BUDGET.min)), await tokens(), await tokens(String(BRIEF_BUDGET.max))];
    expect(least).toBeLessThanOrEqual(BRIEF_BUDGET.min);
    expect(standard).toBeGreaterThan(least);
    expect(standard).toBeLessThanOrEqual(PROMPT_TOKENS.brief);
    expect(most).toBeGreaterThan(PROMPT_TOKENS.brief);
    expect(most).toBeLessThanOrEqual(BRIEF_BUDGET.max);
    for (const budgetTokens of ["199", "3001", "lots", "1.5"]) {
      const e = await rejection(c.getPrompt("brief", { budgetTokens }));
      expect(e.code, budgetTokens).toBe(-32602);
      expect(e.message, budgetTokens).toContain("budgetTokens must be a whole number of tokens from 200 to 3000");
    }
    await c.close();
  });

  it("memory-guide's example calls are valid calls of the tools they name", async () => {
    const { c } = await withMemory(connect);
    const guide = textOf(await c.getPrompt("memory-guide"));
    const calls = [...guide.matchAll(/^- (\w+) (\{.*\})/gm)].map((m) => [m[1] as string, JSON.parse(m[2] as string)] as const);
    expect(calls.map(([name]) => name)).toEqual(["search_nodes", "add_observations", "create_relations"]);
    for (const [name, args] of calls) expect((await c.call(name, args)).isError, name).toBeFalsy();
    await c.close();
  });

  it("refuses a missing or empty required argument with Invalid Params naming it", async () => {
    const c = await connect();
    for (const [name, args, argument] of [
      ["recall", {}, "topic"],
      ["recall", { topic: " " }, "topic"],
      ["remember", {}, "summary"],
    ] as const) {
      const e = await rejection(c.getPrompt(name, args));
      expect(e.code, name).toBe(-32602);
      expect(e.message, name).toContain(argument);
    }
    await c.close();
  });

  it("leaves out the graph prompts when the graph toolset is left out", async () => {
    const c = await connect({ url: "http://localhost/mcp?tools=documents" });
    expect((await c.listPrompts()).map((p) => p.name).sort()).toEqual(["brief", "memory-guide"]);
    const e = await rejection(c.getPrompt("recall", { topic: "x" }));
    expect(e.code).toBe(-32602);
    await c.close();
  });
});
