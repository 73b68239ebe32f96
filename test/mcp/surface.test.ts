import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/limits";
import { cutQuery } from "../../src/mcp/schemas";
import { surfaceOf } from "../../src/mcp/server";
import { ADDITIVE, DESTRUCTIVE, DESTRUCTIVE_REPEATABLE, READ, SETS, TOOLSETS, type Toolset } from "../../src/mcp/tool";
import { TOOLS } from "../../src/mcp/tools";
import { CLIENTS } from "../helpers/clients";

const all = new Set<Toolset>(TOOLSETS);
const rpc = (message: Record<string, unknown>) => ({ jsonrpc: "2.0", ...message });

describe("surfaceOf: what the server built for one request registers", () => {
  it("registers one tool for a call of an enabled tool", () => {
    expect(surfaceOf(rpc({ id: 1, method: "tools/call", params: { name: "search_nodes", arguments: {} } }), all)).toEqual({ kind: "tool", name: "search_nodes" });
  });

  it("registers nothing for a ping or a notification", () => {
    expect(surfaceOf(rpc({ id: 1, method: "ping" }), all)).toEqual({ kind: "none" });
    expect(surfaceOf(rpc({ method: "notifications/initialized" }), all)).toEqual({ kind: "none" });
  });

  it("registers the prompts, resources and completions, and no tool, for their methods", () => {
    for (const method of ["prompts/list", "prompts/get", "resources/list", "resources/read", "resources/templates/list", "completion/complete"]) {
      expect(surfaceOf(rpc({ id: 1, method, params: {} }), all), method).toEqual({ kind: "guide" });
    }
  });

  it("registers everything for anything else", () => {
    for (const body of [
      rpc({ id: 1, method: "initialize", params: {} }),
      rpc({ id: 1, method: "tools/list" }),
      rpc({ id: 1, method: "server/discover" }),
      rpc({ id: 1, method: "tools/call", params: { name: "no_such_tool" } }),
      rpc({ id: 1, method: "tools/call", params: { name: 42 } }),
      rpc({ id: 1, method: "tools/call" }),
      rpc({ id: 1, method: "notifications/initialized" }), // a request id makes it no notification
      [rpc({ id: 1, method: "ping" }), rpc({ id: 2, method: "ping" })],
      undefined,
      "ping",
      { method: 5 },
    ]) {
      expect(surfaceOf(body, all)).toEqual({ kind: "all" });
    }
  });

  it("registers everything for a call of a tool whose toolset the connection left out", () => {
    expect(surfaceOf(rpc({ id: 1, method: "tools/call", params: { name: "create_entities" } }), new Set<Toolset>(["history"]))).toEqual({ kind: "all" });
  });
});

describe("tool declarations", () => {
  it("takes every tool's annotations from a preset", () => {
    const presets = [READ, ADDITIVE, SETS, DESTRUCTIVE, DESTRUCTIVE_REPEATABLE];
    for (const def of TOOLS) expect(presets, def.name).toContain(def.annotations);
  });

  it.each(CLIENTS)("lists the hints a client cannot infer, honestly, for every tool (%s client)", async (_label, connect) => {
    const c = await connect();
    const presets = new Map(TOOLS.map((t) => [t.name, t.annotations]));
    for (const tool of await c.listTools()) {
      const a = tool.annotations ?? {};
      expect(a.openWorldHint, tool.name).toBe(false);
      // A read-only tool says so alone; a write always says whether it destroys, and never restates a default.
      if (a.readOnlyHint) expect(Object.keys(a).sort(), tool.name).toEqual(["openWorldHint", "readOnlyHint"]);
      else {
        expect("readOnlyHint" in a, tool.name).toBe(false);
        expect(typeof a.destructiveHint, tool.name).toBe("boolean");
        expect([undefined, true], tool.name).toContain(a.idempotentHint);
      }
      // Read with MCP's defaults, the listed hints are the tool's preset.
      const preset = presets.get(tool.name);
      expect(a.readOnlyHint ?? false, tool.name).toBe(preset?.readOnlyHint);
      if (!a.readOnlyHint) expect([a.destructiveHint ?? true, a.idempotentHint ?? false], tool.name).toEqual([preset?.destructiveHint, preset?.idempotentHint]);
      if (/^(delete|remove_context$|undo$|update_document$|str_replace$)/.test(tool.name)) expect(a.destructiveHint, tool.name).toBe(true);
      if (/^(create_|add_|insert$|rename$|mark_important$|restore$|set_active)/.test(tool.name)) expect(a.destructiveHint, tool.name).toBe(false);
    }
    await c.close();
  });

  it.each(CLIENTS)("lists a title only where it says more than the name (%s client)", async (_label, connect) => {
    const c = await connect();
    const tools = (await c.listTools()) as { name: string; title?: string }[];
    await c.close();
    for (const def of TOOLS) {
      const listed = tools.find((t) => t.name === def.name);
      const restates = def.title.toLowerCase() === def.name.replaceAll("_", " ");
      expect(listed?.title, def.name).toBe(restates ? undefined : def.title);
    }
    expect(tools.find((t) => t.name === "rename")?.title).toBe("Rename or Move File or Directory");
  });

  it.each(CLIENTS)("states no default value in a description; limits come from src/limits.ts (%s client)", async (_label, connect) => {
    const c = await connect();
    const tools = await c.listTools();
    await c.close();
    const descriptions = (node: unknown): string[] =>
      !node || typeof node !== "object" ? [] : Object.entries(node).flatMap(([k, v]) => (k === "description" && typeof v === "string" ? [v] : descriptions(v)));
    for (const tool of tools) {
      for (const text of descriptions(tool)) expect(text, tool.name).not.toMatch(/default\W+\d|\(default\b/i);
    }
    const described = (name: string) => (tools.find((t) => t.name === name) as { description?: string } | undefined)?.description ?? "";
    expect(described("read_graph")).toContain(`${LIMITS.readGraphPageEntities} entities`);
    expect(described("search_nodes")).toContain(`${LIMITS.queryChars} characters`);
    expect(described("search_documents")).toContain(`${LIMITS.queryChars} characters`);
  });
});

describe("cutQuery", () => {
  it("keeps a query within the limit and cuts a longer one to it", () => {
    expect(cutQuery("short")).toBe("short");
    const exact = "q".repeat(LIMITS.queryChars);
    expect(cutQuery(exact)).toBe(exact);
    expect(cutQuery(`${exact}tail`)).toBe(exact);
  });

  it("drops the first half of a surrogate pair the cut would split", () => {
    const cut = cutQuery(`${"q".repeat(LIMITS.queryChars - 1)}🔍rest`);
    expect(cut).toBe("q".repeat(LIMITS.queryChars - 1));
    expect(cut.length).toBe(LIMITS.queryChars - 1);
  });
});
