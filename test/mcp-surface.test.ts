import { describe, expect, it } from "vitest";
import { surfaceOf } from "../src/mcp/server";
import { TOOLSETS, type Toolset } from "../src/mcp/tool";

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

  it("registers everything for anything else", () => {
    for (const body of [
      rpc({ id: 1, method: "initialize", params: {} }),
      rpc({ id: 1, method: "tools/list" }),
      rpc({ id: 1, method: "resources/read", params: { uri: "memory://knowledge-graph" } }),
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
