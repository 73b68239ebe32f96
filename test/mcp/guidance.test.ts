/**
 * The server's instructions: what an agent learns about its memory with no
 * custom system prompt, through real clients of both SDK generations.
 */
import { describe, expect, it } from "vitest";
import { INSTRUCTIONS_MAX, instructions } from "../../src/mcp/guidance";
import { TOOLSETS, type Toolset } from "../../src/mcp/tool";
import { TOOLS } from "../../src/mcp/tools";
import { CLIENTS } from "../helpers/clients";

/** Every tool name the text mentions. */
const toolsNamed = (text: string) => TOOLS.map((t) => t.name).filter((n) => new RegExp(`\\b${n}\\b`).test(text));

describe.each(CLIENTS)("instructions, with %s client", (_label, connect) => {
  it(`carries the guidance, at most ${INSTRUCTIONS_MAX} characters, on the default connection`, async () => {
    const c = await connect();
    const text = c.instructions() ?? "";
    await c.close();
    expect(text.length).toBeGreaterThan(500);
    expect(text.length).toBeLessThanOrEqual(INSTRUCTIONS_MAX);
    expect(text).toMatch(/search_nodes/);
    expect(text).toMatch(/One fact per observation/);
    expect(text).toMatch(/active voice/);
    expect(text).toMatch(/context/);
  });

  it("mentions only the tools of the toolsets the connection serves", async () => {
    const c = await connect({ url: "http://localhost/mcp?tools=files,history" });
    const text = c.instructions() ?? "";
    await c.close();
    const served = new Set(TOOLS.filter((t) => t.toolset === "files" || t.toolset === "history").map((t) => t.name));
    expect(toolsNamed(text).length).toBeGreaterThan(0);
    for (const name of toolsNamed(text)) expect(served, name).toContain(name);
    expect(text).not.toMatch(/search_nodes|recall|memory:\/\/brief|list_contexts/);
  });

  it("names the context of a pinned URL", async () => {
    const c = await connect({ url: "http://localhost/mcp/pinned-guide" });
    expect(c.instructions()).toContain('pinned to the memory context "pinned-guide"');
    await c.close();
  });
});

describe("instructions for every combination of toolsets", () => {
  it("stay within the limit and name only served tools", () => {
    const toolOf = new Map(TOOLS.map((t) => [t.name, t.toolset]));
    for (let mask = 1; mask < 1 << TOOLSETS.length; mask++) {
      const sets = new Set(TOOLSETS.filter((_, i) => mask & (1 << i))) as ReadonlySet<Toolset>;
      const text = instructions(sets, "x".repeat(64));
      expect(text.length).toBeLessThanOrEqual(INSTRUCTIONS_MAX);
      for (const name of toolsNamed(text)) expect(sets.has(toolOf.get(name) as Toolset), `${name} with ${[...sets]}`).toBe(true);
    }
  });
});
