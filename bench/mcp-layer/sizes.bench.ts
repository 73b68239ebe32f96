/**
 * What the MCP layer puts into a model's context window, in bytes and
 * tokens (characters or bytes / 4, as the budgets count them):
 *
 *   npm run bench:sizes
 *
 * - tools/list, prompts/list, resources/list (the first page of an empty
 *   context) and resources/templates/list per toolset, and the default
 *   tools/list;
 * - the server's instructions on the default connection;
 * - the brief (`memory://brief`) of 2,000 entities with long observations.
 *
 * It measures, it does not check: the budgets these figures must stay within
 * are held by test/mcp/token-economy.test.ts, test/mcp/guidance.test.ts and
 * test/priority/brief.test.ts.
 */
import { env, SELF } from "cloudflare:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { BRIEF_TOKENS, estimateTokens } from "../../src/priority/brief";
import { registryOf } from "../../src/registry/Registry";
import { TOOLSETS } from "../../src/mcp/tool";

const TOKEN = "bench-admin-token";
const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;
const tokens = (n: number) => Math.ceil(n / 4);

async function connect(path: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`http://localhost${path}`), {
    fetch: (input, init) => SELF.fetch(new Request(input, init)),
    requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
  });
  const client = new Client({ name: "engram-sizes", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(transport);
  return client;
}

it("prints the bytes and tokens each list costs per toolset, and the instructions", async () => {
  const rows: string[] = [];
  for (const set of [...TOOLSETS, "all"]) {
    const c = await connect(`/mcp?tools=${set}`);
    const { tools } = await c.listTools();
    const list = bytes({ tools });
    const prompts = bytes({ prompts: (await c.listPrompts()).prompts });
    const hasResources = c.getServerCapabilities()?.resources !== undefined;
    const resources = hasResources ? bytes(await c.listResources({ cursor: "" })) : 0;
    const templates = hasResources ? bytes({ resourceTemplates: (await c.listResourceTemplates()).resourceTemplates }) : 0;
    await c.close();
    const cell = (n: number) => `${n} (${tokens(n)})`;
    rows.push(`| ${set} | ${tools.length} | ${cell(list)} | ${cell(prompts)} | ${cell(resources)} | ${cell(templates)} |`);
  }
  const c = await connect("/mcp");
  const { tools } = await c.listTools();
  const instructions = c.getInstructions() ?? "";
  await c.close();
  expect(tools.length).toBeGreaterThan(0);
  console.log(
    [
      "bytes of JSON (tokens, bytes / 4) per toolset; resources/list is the first page of an empty context",
      "| toolset | tools | tools/list | prompts/list | resources/list | resources/templates/list |",
      "|---|---|---|---|---|---|",
      ...rows,
      "",
      `default tools/list: ${bytes({ tools })} bytes of JSON for ${tools.length} tools`,
      `instructions (every toolset): ${instructions.length} characters (${tokens(instructions.length)} tokens)`,
    ].join("\n"),
  );
});

it("prints the brief's size on 2,000 entities with long observations", { timeout: 600_000 }, async () => {
  const context = `sizes-brief-${Date.now().toString(36)}`;
  const stub = env.MEMORY.getByName(context) as DurableObjectStub<MemoryContext>;
  const meta = { caller: "bench", callerId: "bench", tool: "bench" };
  const long = (i: number) => `Observation ${i}: ${"a long remark about the project and its people ".repeat(12)}`;
  expect((await registryOf(env).useContext(context, true, "bench")).ok).toBe(true);
  for (let start = 0; start < 2000; start += 500) {
    const batch = Array.from({ length: 500 }, (_, i) => ({
      name: `entity ${start + i}`,
      entityType: "thing",
      observations: [long(start + i), long(start + i + 1)],
    }));
    expect((await stub.createEntities(batch, meta)).ok).toBe(true);
  }
  expect((await stub.markImportant(["entity:entity 1999"], true, meta)).ok).toBe(true);
  expect((await stub.openNodes(["entity 7"], meta)).ok).toBe(true);
  const c = await connect(`/mcp/${context}`);
  const text = (await c.readResource({ uri: "memory://brief" })).contents[0];
  await c.close();
  const brief = text && "text" in text ? text.text : "";
  console.log(`brief of 2,000 entities: ${brief.length} characters, ${estimateTokens(brief)} tokens (characters / 4) of a ${BRIEF_TOKENS}-token budget`);
});
