/**
 * Every byte of tools/list lands in a model's context window. These budgets
 * keep descriptions short; the README quotes the measured sizes.
 */
import { describe, expect, it } from "vitest";
import { TOOLSETS } from "../src/mcp/tool";
import { connectV2 } from "./helpers/clients";

async function toolsListBytes(tools: string) {
  const c = await connectV2({ url: `http://localhost/mcp?tools=${tools}` });
  const list = await c.listTools();
  await c.close();
  return { bytes: new TextEncoder().encode(JSON.stringify({ tools: list })).length, count: list.length };
}

describe("token economy", () => {
  it("keeps tools/list within budget per toolset", async () => {
    const sizes: Record<string, { bytes: number; count: number }> = {};
    for (const set of [...TOOLSETS, "all"]) sizes[set] = await toolsListBytes(set);
    console.log(`tools/list bytes per toolset: ${JSON.stringify(sizes)}`);
    expect(sizes.graph?.count).toBe(9);
    for (const [set, { bytes, count }] of Object.entries(sizes)) {
      expect(bytes, set).toBeLessThanOrEqual(Math.max(count, 1) * 1800);
    }
  });
});
