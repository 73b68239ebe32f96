/**
 * Every byte of tools/list lands in a model's context window. These budgets
 * keep descriptions and schemas short; `npm run bench:sizes` prints the
 * measured sizes.
 */
import { describe, expect, it } from "vitest";
import { TOOLSETS } from "../../src/mcp/tool";
import { TOOLS } from "../../src/mcp/tools";
import { CLIENTS, connectV2 } from "../helpers/clients";

/** The default tools/list (every toolset) must stay within this many bytes of JSON. */
const DEFAULT_LIST_BUDGET = 20_000;

const bytesOf = (tools: unknown) => new TextEncoder().encode(JSON.stringify({ tools })).length;

async function toolsListBytes(tools: string) {
  const c = await connectV2({ url: `http://localhost/mcp?tools=${tools}` });
  const list = await c.listTools();
  await c.close();
  return { bytes: bytesOf(list), count: list.length };
}

describe("token economy", () => {
  it("keeps tools/list within budget per toolset, and no toolset is empty", async () => {
    const sizes: Record<string, { bytes: number; count: number }> = {};
    for (const set of [...TOOLSETS, "all"]) sizes[set] = await toolsListBytes(set);
    expect(sizes.graph?.count).toBe(13);
    for (const [set, { bytes, count }] of Object.entries(sizes)) {
      expect(count, set).toBeGreaterThan(0);
      expect(bytes, set).toBeLessThanOrEqual(count * 1800);
    }
  });

  it("keeps prompts/list, and resources/list with its templates, within budget per toolset", async () => {
    for (const set of [...TOOLSETS, "all"]) {
      const c = await connectV2({ url: `http://localhost/mcp?tools=${set}` });
      const prompts = new TextEncoder().encode(JSON.stringify({ prompts: await c.listPrompts() })).length;
      // The fixed resources of a context's first page (an empty context lists no item).
      const resources = c.capabilities()?.resources ? new TextEncoder().encode(JSON.stringify(await c.listResources(""))).length : 0;
      const templates = c.capabilities()?.resources ? new TextEncoder().encode(JSON.stringify({ resourceTemplates: await c.listResourceTemplates() })).length : 0;
      await c.close();
      expect(prompts, set).toBeLessThanOrEqual(1200);
      expect(resources + templates, set).toBeLessThanOrEqual(1500);
    }
  });

  it.each(CLIENTS)(`lists every tool in at most ${DEFAULT_LIST_BUDGET} bytes by default (%s client)`, async (_label, connect) => {
    const c = await connect();
    const list = await c.listTools();
    await c.close();
    expect(list.map((t) => t.name).sort()).toEqual(TOOLS.map((t) => t.name).sort());
    expect(list).toHaveLength(33);
    expect(bytesOf(list)).toBeLessThanOrEqual(DEFAULT_LIST_BUDGET);
  });
});
