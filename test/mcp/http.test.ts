import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { serveMcpHttp } from "../../src/mcp/http";
import type { RequestScope } from "../../src/mcp/server";
import { TOOLSETS, type Toolset } from "../../src/mcp/tool";
import { CONTEXT_NAME_RULE, INVALID_CONTEXT_NAME } from "../../src/limits";
import { connectV1, connectV2, workerFetch } from "../helpers/clients";
import { withLogs } from "../helpers/logs";

const init = (headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
});

describe("HTTP edge", () => {
  it("serves loopback requests with no ADMIN_TOKEN configured (open local mode)", async () => {
    const c = await connectV2({ url: "http://127.0.0.1:8787/mcp" });
    expect((await c.listTools()).length).toBeGreaterThan(0);
    await c.close();
  });

  it("refuses non-loopback requests with 403 when no ADMIN_TOKEN is configured", async () => {
    const res = await workerFetch()("https://memory.example.com/mcp", init());
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toContain("ADMIN_TOKEN");
  });

  it("requires the bearer token once ADMIN_TOKEN is set, with WWW-Authenticate", async () => {
    const f = workerFetch({ ADMIN_TOKEN: "s3cret-token" });
    const missing = await f("https://memory.example.com/mcp", init());
    expect(missing.status).toBe(401);
    expect(missing.headers.get("WWW-Authenticate")).toContain("Bearer");
    const wrong = await f("https://memory.example.com/mcp", init({ Authorization: "Bearer nope" }));
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("WWW-Authenticate")).toContain("invalid_token");
    // Loopback is not open once a token is configured.
    expect((await f("http://localhost/mcp", init())).status).toBe(401);
  });

  it("accepts the admin token, also when configured as its SHA-256", async () => {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode("s3cret-token"));
    const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
    for (const configured of ["s3cret-token", `sha256:${hex}`]) {
      const c = await connectV1({
        url: "https://memory.example.com/mcp",
        fetch: workerFetch({ ADMIN_TOKEN: configured }),
        headers: { Authorization: "Bearer s3cret-token" },
      });
      expect((await c.listTools()).length).toBeGreaterThan(0);
      await c.close();
    }
  });

  it("refuses a foreign browser Origin and accepts the server's own", async () => {
    const f = workerFetch();
    expect((await f("http://localhost/mcp", init({ Origin: "https://evil.example" }))).status).toBe(403);
    expect((await f("http://localhost:8787/mcp", init({ Origin: "http://localhost:8787" }))).status).toBe(200);
  });

  it("lists only the toolsets a connection asks for, and rejects unknown ones", async () => {
    const c = await connectV2({ url: "http://localhost/mcp?tools=history" });
    expect((await c.listTools()).map((t) => t.name)).not.toContain("create_entities");
    await c.close();
    const res = await workerFetch()("http://localhost/mcp?tools=graph,nope", init());
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain("nope");
  });

  it("refuses an empty or unknown toolset with a 400 naming the valid ones, never an empty tools/list", async () => {
    const valid = `valid toolsets: ${TOOLSETS.join(", ")}, or all`;
    // Env types MEMORY_TOOLSETS as the wrangler.toml value; a deployment may set any string.
    const toolsets = (value: string) => ({ MEMORY_TOOLSETS: value }) as unknown as Partial<Env>;
    const refusals: [string, Partial<Env> | undefined, string][] = [
      ["http://localhost/mcp?tools=search", undefined, 'tools: unknown toolset "search"'],
      ["http://localhost/mcp?tools=", undefined, "tools names no toolset"],
      ["http://localhost/mcp?tools=,", undefined, "tools names no toolset"],
      ["http://localhost/mcp", toolsets("search"), 'MEMORY_TOOLSETS: unknown toolset "search"'],
      ["http://localhost/mcp", toolsets(" , "), "MEMORY_TOOLSETS names no toolset"],
    ];
    for (const [url, env, message] of refusals) {
      const res = await workerFetch(env)(url, init());
      expect(res.status, url).toBe(400);
      const body = (await res.json()) as { error: string; message: string };
      expect(body.error).toBe("invalid_toolsets");
      expect(body.message).toContain(message);
      expect(body.message).toContain(valid);
    }
    // A toolset the deployment does not serve would list nothing: refused, naming what it serves.
    const narrow = await workerFetch(toolsets("graph,history"))("http://localhost/mcp?tools=files", init());
    expect(narrow.status).toBe(400);
    expect(((await narrow.json()) as { message: string }).message).toBe(
      "tools: files not served by this deployment (MEMORY_TOOLSETS); valid toolsets: graph, history, or all.",
    );
  });

  it("answers malformed JSON-RPC with a protocol error, logs it as the client's mistake (info, not error) and keeps serving", async () => {
    const f = workerFetch();
    const { value: bad, logged } = await withLogs(() => f("http://localhost/mcp", { ...init(), body: "{not json" }));
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBeLessThan(500);
    const body = (await bad.json()) as { error?: { code: number } };
    expect(body.error?.code).toBe(-32700);
    const { value: incomplete, logged: more } = await withLogs(() => f("http://localhost/mcp", { ...init(), body: JSON.stringify({ jsonrpc: "2.0", id: 2 }) }));
    expect(incomplete.status).toBeLessThan(500);
    for (const l of [...logged, ...more]) expect(l).toEqual({ level: "info", line: expect.objectContaining({ event: "mcp_rejected", status: expect.any(Number) }) });
    expect(more).toEqual([{ level: "info", line: expect.objectContaining({ status: incomplete.status, error: expect.stringContaining("invalid-json-rpc-body") }) }]);
    const c = await connectV2();
    expect((await c.listTools()).length).toBeGreaterThan(0);
    await c.close();
  });

  it("logs a fault while serving MCP at error level, with no details in the answer", async () => {
    // A toolset lookup that throws stands for a server fault: the server cannot be built for the request.
    const broken = new Set<Toolset>(TOOLSETS);
    broken.has = () => {
      throw new Error("toolsets unavailable");
    };
    const scope: RequestScope = { env, caller: { id: "local", kind: "local", grants: [] }, toolsets: broken };
    const { value: res, logged } = await withLogs(() => serveMcpHttp(new Request("http://localhost/mcp", init()), scope, "test", JSON.parse(init().body)));
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain("toolsets unavailable");
    expect(logged).toEqual([{ level: "error", line: { event: "mcp_error", error: "Error: toolsets unavailable" } }]);
  });

  it("refuses bodies over 4 MB with 413", async () => {
    const res = await workerFetch()("http://localhost/mcp", { ...init(), body: "x".repeat(4 * 1024 * 1024 + 1) });
    expect(res.status).toBe(413);
  });

  it("rejects an invalid context in the URL", async () => {
    const res = await workerFetch()("http://localhost/mcp/Not%20Valid", init());
    expect(res.status).toBe(400);
  });
});

describe("2025-era requests (served statelessly, answered as JSON)", () => {
  const legacy = (message: Record<string, unknown>, url = "http://localhost/mcp") =>
    workerFetch()(url, { ...init({ "MCP-Protocol-Version": "2025-06-18" }), body: JSON.stringify({ jsonrpc: "2.0", id: 7, ...message }) });
  const call = (name: string, args: Record<string, unknown>, url?: string) => legacy({ method: "tools/call", params: { name, arguments: args } }, url);

  it("answers a ping and a tool call with one JSON body, and no CORS grant to a client that sent no Origin", async () => {
    const ping = await legacy({ method: "ping" });
    expect(ping.status).toBe(200);
    expect(ping.headers.get("Content-Type")).toBe("application/json");
    expect(ping.headers.get("Access-Control-Allow-Origin")).toBeNull();
    expect(ping.headers.get("Vary")).toContain("Origin");
    expect(await ping.json()).toEqual({ jsonrpc: "2.0", id: 7, result: {} });

    const res = await call("read_graph", { limit: 1, mode: "summary" });
    expect(res.headers.get("Content-Type")).toBe("application/json");
    const body = (await res.json()) as { id: number; result: { isError?: boolean; structuredContent: { entities: unknown[] } } };
    expect(body.id).toBe(7);
    expect(body.result.isError).toBeUndefined();
    expect(Array.isArray(body.result.structuredContent.entities)).toBe(true);
  });

  it("answers a call of an unknown tool, or of a toolset the connection left out, as the full server would", async () => {
    const errorOf = async (res: Response) => {
      const body = (await res.json()) as { result?: { isError?: boolean; content: { text: string }[] }; error?: { message: string } };
      return body.error?.message ?? (body.result?.isError ? body.result.content[0]?.text : undefined);
    };
    expect(await errorOf(await call("no_such_tool", {}))).toMatch(/no_such_tool.*not found/i);
    expect(await errorOf(await call("create_entities", { entities: [] }, "http://localhost/mcp?tools=history"))).toMatch(/create_entities.*not found/i);
    // Arguments are still validated against the one registered tool's schema.
    expect(await errorOf(await call("read_graph", { limit: "one" }))).toMatch(/limit/);
  });

  it("refuses GET and DELETE with 405 and Allow: POST, readable by the server's own page", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await workerFetch()("http://localhost/mcp", {
        method,
        headers: { Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18", Origin: "http://localhost" },
      });
      expect(res.status).toBe(405);
      expect(res.headers.get("Allow")).toBe("POST");
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe("http://localhost");
    }
  });
  it("rejects a context name in the URL with the one statement of the rule, for MCP and the API alike", async () => {
    const f = workerFetch();
    for (const url of ["http://127.0.0.1:8787/mcp/Bad%20Name", "http://127.0.0.1:8787/api/contexts/Bad%20Name/export"]) {
      const res = await f(url, url.includes("/api/") ? { method: "GET" } : init());
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: "invalid_context", message: INVALID_CONTEXT_NAME });
    }
    expect(INVALID_CONTEXT_NAME).toContain(CONTEXT_NAME_RULE);
  });
});
