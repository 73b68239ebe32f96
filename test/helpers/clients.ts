/**
 * Real MCP clients over the Worker's fetch handler: the SDK v1 client (a
 * 2025-era client) and the SDK v2 client (2026-07-28). Tool tests run
 * against both with `describe.each(CLIENTS)`.
 */
import { env, SELF, createExecutionContext } from "cloudflare:test";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import worker from "../../src/index";

export type Fetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

/** The Worker as the test's network: SELF, or the app with a modified env (e.g. ADMIN_TOKEN set). */
export function workerFetch(overrides?: Partial<Env>): Fetch {
  if (!overrides) return (input, init) => SELF.fetch(new Request(input, init));
  const patched = { ...env, ...overrides } as Env;
  return async (input, init) => worker.fetch(new Request(input, init), patched, createExecutionContext());
}

export interface ToolResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

/** The surface tests use, the same for both SDK generations. */
export interface TestClient {
  name: "v1" | "v2";
  listTools(): Promise<{ name: string; inputSchema: unknown; outputSchema?: unknown; annotations?: Record<string, unknown> }[]>;
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  readResource(uri: string): Promise<{ contents: { uri: string; text?: string; mimeType?: string }[] }>;
  /** The server's instructions (initialize, or discover for 2026-07-28). */
  instructions(): string | undefined;
  capabilities(): Record<string, unknown> | undefined;
  listPrompts(): Promise<{ name: string; description?: string; arguments?: { name: string; required?: boolean }[] }[]>;
  getPrompt(name: string, args?: Record<string, string>): Promise<PromptResult>;
  /** One page of resources/list. */
  listResources(cursor?: string): Promise<{ resources: { uri: string; name: string; mimeType?: string }[]; nextCursor?: string }>;
  listResourceTemplates(): Promise<{ name: string; uriTemplate: string }[]>;
  complete(ref: CompleteRef, argument: string, value: string): Promise<{ values: string[]; total?: number; hasMore?: boolean }>;
  close(): Promise<void>;
}

interface PromptResult {
  description?: string;
  messages: { role: string; content: { type: string; text?: string } }[];
}

type CompleteRef = { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };

/** The calls beyond tools, the same on both SDK generations' clients. */
interface GuideCalls {
  getInstructions(): string | undefined;
  getServerCapabilities(): unknown;
  listPrompts(): Promise<{ prompts: unknown[] }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<unknown>;
  listResources(params?: { cursor?: string }): Promise<unknown>;
  listResourceTemplates(): Promise<{ resourceTemplates: unknown[] }>;
  complete(params: { ref: CompleteRef; argument: { name: string; value: string } }): Promise<{ completion: unknown }>;
}

function guideCalls(
  client: GuideCalls,
): Pick<TestClient, "instructions" | "capabilities" | "listPrompts" | "getPrompt" | "listResources" | "listResourceTemplates" | "complete"> {
  return {
    instructions: () => client.getInstructions(),
    capabilities: () => client.getServerCapabilities() as Record<string, unknown> | undefined,
    listPrompts: async () => (await client.listPrompts()).prompts as Awaited<ReturnType<TestClient["listPrompts"]>>,
    getPrompt: async (name, args) => (await client.getPrompt({ name, ...(args ? { arguments: args } : {}) })) as PromptResult,
    // An explicit cursor (even "") asks for one page; the clients walk every page otherwise.
    listResources: async (cursor) => (await client.listResources(cursor === undefined ? undefined : { cursor })) as Awaited<ReturnType<TestClient["listResources"]>>,
    listResourceTemplates: async () => (await client.listResourceTemplates()).resourceTemplates as { name: string; uriTemplate: string }[],
    complete: async (ref, name, value) =>
      (await client.complete({ ref, argument: { name, value } })).completion as { values: string[]; total?: number; hasMore?: boolean },
  };
}

export interface ConnectOptions {
  url?: string;
  fetch?: Fetch;
  headers?: Record<string, string>;
}

export async function connectV1(opts: ConnectOptions = {}): Promise<TestClient> {
  const f = opts.fetch ?? workerFetch();
  const transport = new TransportV1(new URL(opts.url ?? "http://localhost/mcp"), {
    fetch: f,
    requestInit: { headers: opts.headers ?? {} },
  });
  const client = new ClientV1({ name: "engram-test-v1", version: "1.0.0" });
  await client.connect(transport);
  return {
    name: "v1",
    listTools: async () => (await client.listTools()).tools,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as ToolResult,
    readResource: async (uri) => (await client.readResource({ uri })) as { contents: { uri: string; text?: string }[] },
    ...guideCalls(client as unknown as GuideCalls),
    close: () => client.close(),
  };
}

export async function connectV2(opts: ConnectOptions = {}): Promise<TestClient> {
  const f = opts.fetch ?? workerFetch();
  const transport = new TransportV2(new URL(opts.url ?? "http://localhost/mcp"), {
    fetch: f,
    requestInit: { headers: opts.headers ?? {} },
  });
  // Pinned, not "auto": a silent fallback to the 2025 handshake would hide a broken modern path.
  const client = new ClientV2({ name: "engram-test-v2", version: "2.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(transport);
  return {
    name: "v2",
    listTools: async () => (await client.listTools()).tools as Awaited<ReturnType<TestClient["listTools"]>>,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as ToolResult,
    readResource: async (uri) => (await client.readResource({ uri })) as { contents: { uri: string; text?: string }[] },
    ...guideCalls(client as unknown as GuideCalls),
    close: () => client.close(),
  };
}

export const CLIENTS = [
  ["v1 (2025-era)", connectV1],
  ["v2 (2026-07-28)", connectV2],
] as const;

/** The first text block parsed as JSON. */
export function json<T = Record<string, unknown>>(r: ToolResult): T {
  return JSON.parse(r.content[0]?.text ?? "null") as T;
}

export const text = (r: ToolResult) => r.content.map((c) => c.text ?? "").join("\n");

let counter = 0;
/** A context name no other test uses, so tests never see each other's data. */
export const freshContext = (prefix = "t") => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

/** The protocol error a request was rejected with (its JSON-RPC code, message and data); fails when it was not rejected. */
export async function rejection(p: Promise<unknown>): Promise<{ code?: number; message: string; data?: unknown }> {
  const e = (await p.then(
    () => undefined,
    (error: unknown) => error,
  )) as { code?: number; message: string; data?: unknown } | undefined;
  if (!e) throw new Error("expected the request to be rejected");
  return e;
}
